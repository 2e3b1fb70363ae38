"""The second pass of the condition compiler: `Emitter` writes a typed tree (compile.py's `Checker` made it)
as bytecode; captures are read from the probe method's argument slots."""
from __future__ import annotations

import math

from . import bytecode as bc
from .assemble import Assembler, Label, slot_size
from .shapes import (
    BOX_OF,
    BOXES,
    NULL,
    OBJECT,
    STRING,
    UNBOX_METHOD,
    Capture,
    Typed,
)

# ------------------------------------------------------------------------------------------- emitting

ARITH_BASE = {"+": bc.IADD, "-": bc.ISUB, "*": bc.IMUL, "/": bc.IDIV, "%": bc.IREM, "<<": bc.ISHL, ">>": bc.ISHR,
              ">>>": bc.IUSHR, "&": bc.IAND, "|": bc.IOR, "^": bc.IXOR}
TYPE_OFFSET = {"I": 0, "Z": 0, "J": 1, "F": 2, "D": 3}
LOAD_BASE = {"I": bc.ILOAD, "Z": bc.ILOAD, "B": bc.ILOAD, "C": bc.ILOAD, "S": bc.ILOAD, "J": bc.LLOAD,
             "F": bc.FLOAD, "D": bc.DLOAD}
IF_OF = {"==": bc.IFEQ, "!=": bc.IFNE, "<": bc.IFLT, ">=": bc.IFGE, ">": bc.IFGT, "<=": bc.IFLE}
ICMP_OF = {"==": bc.IF_ICMPEQ, "!=": bc.IF_ICMPNE, "<": bc.IF_ICMPLT, ">=": bc.IF_ICMPGE, ">": bc.IF_ICMPGT,
           "<=": bc.IF_ICMPLE}
NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
CONVERSIONS = {("I", "J"): [bc.I2L], ("I", "F"): [bc.I2F], ("I", "D"): [bc.I2D], ("J", "I"): [bc.L2I],
               ("J", "F"): [bc.L2F], ("J", "D"): [bc.L2D], ("F", "I"): [bc.F2I], ("F", "J"): [bc.F2L],
               ("F", "D"): [bc.F2D], ("D", "I"): [bc.D2I], ("D", "J"): [bc.D2L], ("D", "F"): [bc.D2F],
               ("I", "B"): [bc.I2B], ("I", "C"): [bc.I2C], ("I", "S"): [bc.I2S]}
APPEND_TYPES = {"Z", "C", "I", "J", "F", "D", STRING}


class Emitter:
    """Writes a typed tree as bytecode; captures are read from the method's argument slots."""

    def __init__(self, asm: Assembler, capture_slots: list[int]) -> None:
        self.asm = asm
        self.slots = capture_slots

    def value(self, node: Typed) -> None:
        a = self.asm
        kind = node.kind
        if kind == "same":
            self.value(node.args[0])
        elif kind == "const":
            self.constant(node.type, node.value)
        elif kind == "capture":
            slot = self.slots[node.value]  # type: ignore[index]
            a.local(LOAD_BASE.get(node.type, bc.ALOAD), slot)
        elif kind == "getstatic":
            a.field(bc.GETSTATIC, *node.value)  # type: ignore[misc]
        elif kind == "getfield":
            self.value(node.args[0])
            a.field(bc.GETFIELD, *node.value)  # type: ignore[misc]
        elif kind == "arraylength":
            self.value(node.args[0])
            a.op(bc.ARRAYLENGTH)
        elif kind == "aload":
            self.value(node.args[0])
            self.value(node.args[1])
            element = node.type
            a.op({"I": 0x2E, "J": 0x2F, "F": 0x30, "D": 0x31, "B": 0x33, "Z": 0x33, "C": 0x34, "S": 0x35}.get(element, 0x32))
        elif kind in ("neg", "inv"):
            self.value(node.args[0])
            if kind == "neg":
                a.op(bc.INEG + TYPE_OFFSET[node.type])
            else:
                self.constant(node.type, -1)
                a.op(bc.IXOR + TYPE_OFFSET[node.type])
        elif kind == "arith":
            self.value(node.args[0])
            self.value(node.args[1])
            a.op(ARITH_BASE[node.value] + TYPE_OFFSET[node.type])  # type: ignore[index]
        elif kind == "concat":
            self.concat(node.args)
        elif kind in ("invokestatic", "invokevirtual", "invokeinterface"):
            for arg in node.args:
                self.value(arg)
            owner, name, descriptor, interface = node.value  # type: ignore[misc]
            opcode = {"invokestatic": bc.INVOKESTATIC, "invokevirtual": bc.INVOKEVIRTUAL,
                      "invokeinterface": bc.INVOKEINTERFACE}[kind]
            a.invoke(opcode, owner, name, descriptor, interface)
        elif kind == "convert":
            self.value(node.args[0])
            self.primitive_conversion(node.args[0].type, node.type)
        elif kind == "box":
            self.value(node.args[0])
            primitive = BOXES[node.type]
            a.invoke(bc.INVOKESTATIC, node.type[1:-1], "valueOf", f"({primitive}){node.type}")
        elif kind == "unbox":
            self.value(node.args[0])
            box = BOX_OF[node.type]
            a.invoke(bc.INVOKEVIRTUAL, box[1:-1], UNBOX_METHOD[node.type], f"(){node.type}")
        elif kind == "checkcast":
            self.value(node.args[0])
            a.u2(bc.CHECKCAST, a.pool.add_class(node.value))  # type: ignore[arg-type]
        elif kind == "instanceof":
            self.value(node.args[0])
            a.u2(bc.INSTANCEOF, a.pool.add_class(node.value))  # type: ignore[arg-type]
        elif kind == "cond":
            otherwise, end = Label(), Label()
            self.jump(node.args[0], otherwise, False)
            self.value(node.args[1])
            a.branch(bc.GOTO, end)
            a.place(otherwise)
            self.value(node.args[2])
            a.place(end)
        elif node.type == "Z":  # comparisons and logic as a value: 1 or 0
            false, end = Label(), Label()
            self.jump(node, false, False)
            a.op(bc.ICONST_0 + 1)
            a.branch(bc.GOTO, end)
            a.place(false)
            a.op(bc.ICONST_0)
            a.place(end)
        else:
            raise AssertionError(f"cannot emit {kind}")

    def jump(self, node: Typed, target: Label, when: bool) -> None:
        """Jump to target when the boolean node's value is `when`; fall through otherwise."""
        a = self.asm
        kind = node.kind
        if kind == "const" and node.type == "Z":
            if bool(node.value) == when:
                a.branch(bc.GOTO, target)
        elif kind == "not":
            self.jump(node.args[0], target, not when)
        elif kind == "logic":
            left, right = node.args
            if (node.value == "&&") != when:  # && jumping on true, || jumping on false: both must agree
                self.jump(left, target, when)
                self.jump(right, target, when)
            else:
                skip = Label()
                self.jump(left, skip, not when)
                self.jump(right, target, when)
                a.place(skip)
        elif kind == "compare":
            op, operands = node.value  # type: ignore[misc]
            op = op if when else NEGATE[op]
            self.value(node.args[0])
            self.value(node.args[1])
            if operands == "I":
                a.branch(ICMP_OF[op], target)
                return
            original = node.value[0]  # type: ignore[index]
            if operands == "J":
                a.op(bc.LCMP)
            elif operands == "F":
                a.op(bc.FCMPG if original in ("<", "<=") else bc.FCMPL)
            else:
                a.op(bc.DCMPG if original in ("<", "<=") else bc.DCMPL)
            a.branch(IF_OF[op], target)
        elif kind == "refcompare":
            self.value(node.args[0])
            self.value(node.args[1])
            equal = (node.value == "==") == when
            a.branch(bc.IF_ACMPEQ if equal else bc.IF_ACMPNE, target)
        elif kind == "isnull":
            self.value(node.args[0])
            null = (node.value == "==") == when
            a.branch(bc.IFNULL if null else bc.IFNONNULL, target)
        else:
            self.value(node)
            a.branch(bc.IFNE if when else bc.IFEQ, target)

    def constant(self, descriptor: str, value: object) -> None:
        a = self.asm
        if descriptor == NULL:
            a.op(bc.ACONST_NULL)
        elif descriptor == STRING:
            a.ldc(a.pool.add_string(value))  # type: ignore[arg-type]
        elif descriptor in ("I", "C", "S", "B", "Z"):
            a.push_int(int(value))  # type: ignore[call-overload]
        elif descriptor == "J":
            if value in (0, 1):
                a.op(bc.LCONST_0 + int(value))  # type: ignore[call-overload]
            else:
                a.ldc(a.pool.add_long(int(value)), wide2=True)  # type: ignore[call-overload]
        elif descriptor == "F":
            v = float(value)  # type: ignore[arg-type]
            if v in (0.0, 1.0, 2.0) and math.copysign(1, v) > 0:
                a.op(bc.FCONST_0 + int(v))
            else:
                a.ldc(a.pool.add_float(v))
        elif descriptor == "D":
            v = float(value)  # type: ignore[arg-type]
            if v in (0.0, 1.0) and math.copysign(1, v) > 0:
                a.op(bc.DCONST_0 + int(v))
            else:
                a.ldc(a.pool.add_double(v), wide2=True)
        else:
            raise AssertionError(f"no constant of type {descriptor}")

    def primitive_conversion(self, source: str, target: str) -> None:
        source = "I" if source in "BSCZ" else source
        if source == target:
            return
        if target in "BSC" and source != "I":
            self.asm.op(*CONVERSIONS[(source, "I")])
            source = "I"
        self.asm.op(*CONVERSIONS[(source, target)])

    def concat(self, parts: list[Typed]) -> None:
        a = self.asm
        builder = "java/lang/StringBuilder"
        a.u2(bc.NEW, a.pool.add_class(builder))
        a.op(bc.DUP)
        a.invoke(bc.INVOKESPECIAL, builder, "<init>", "()V")
        for part in parts:
            self.value(part)
            kind = part.type if part.type in APPEND_TYPES else "I" if part.type in "BS" else OBJECT
            if part.type == NULL:
                kind = OBJECT
            a.invoke(bc.INVOKEVIRTUAL, builder, "append", f"({kind})L{builder};")
        a.invoke(bc.INVOKEVIRTUAL, builder, "toString", f"(){STRING}")


def capture_slots(captures: list[Capture]) -> tuple[list[int], int]:
    """Argument slots of the captures in the probe method, and the slots they take in all."""
    slots, next_slot = [], 0
    for c in captures:
        slots.append(next_slot)
        next_slot += slot_size(c.descriptor)
    return slots, next_slot
