"""A small bytecode assembler with labels, and a writer for a class made of static methods.

Generated probe classes are class-file version 49: the JVM verifies them by type inference, so code with
branches needs no StackMapTable (the user's class keeps its own version; only straight-line code goes in
there, see insert.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import bytecode as bc
from .classfile import ClassFile, Code, ConstantPool, ExceptionEntry, Member

PROBE_CLASS_VERSION = 49
ACC_PUBLIC, ACC_PRIVATE, ACC_STATIC, ACC_FINAL, ACC_SUPER = 0x0001, 0x0002, 0x0008, 0x0010, 0x0020
ACC_SYNCHRONIZED, ACC_VOLATILE, ACC_SYNTHETIC = 0x0020, 0x0040, 0x1000


class Label:
    __slots__ = ("position",)

    def __init__(self) -> None:
        self.position = -1


@dataclass
class Assembler:
    pool: ConstantPool
    code: bytearray = field(default_factory=bytearray)
    fixups: list[tuple[int, Label]] = field(default_factory=list)  # (position of the branch opcode, target)
    handlers: list[tuple[Label, Label, Label, int]] = field(default_factory=list)

    def op(self, *values: int) -> None:
        self.code += bytes(values)

    def u2(self, opcode: int, operand: int) -> None:
        self.code.append(opcode)
        self.code += operand.to_bytes(2, "big")

    def branch(self, opcode: int, target: Label) -> None:
        self.fixups.append((len(self.code), target))
        self.code += bytes([opcode, 0, 0])

    def place(self, label: Label) -> None:
        label.position = len(self.code)

    def ldc(self, index: int, wide2: bool = False) -> None:
        if wide2:
            self.u2(bc.LDC2_W, index)
        elif index < 256:
            self.op(bc.LDC, index)
        else:
            self.u2(bc.LDC_W, index)

    def push_int(self, value: int) -> None:
        if -1 <= value <= 5:
            self.op(bc.ICONST_0 + value)
        elif -128 <= value <= 127:
            self.op(bc.BIPUSH, value & 0xFF)
        elif -32768 <= value <= 32767:
            self.code.append(bc.SIPUSH)
            self.code += value.to_bytes(2, "big", signed=True)
        else:
            self.ldc(self.pool.add_int(value))

    def local(self, base_opcode: int, slot: int) -> None:
        """xload/xstore of a local slot (base_opcode is ILOAD.. or ISTORE..), wide when needed."""
        if slot < 256:
            self.op(base_opcode, slot)
        else:
            self.op(bc.WIDE, base_opcode)
            self.code += slot.to_bytes(2, "big")

    def invoke(self, opcode: int, owner: str, name: str, descriptor: str, interface: bool = False) -> None:
        ref = self.pool.add_method_ref(owner, name, descriptor, interface)
        if opcode == bc.INVOKEINTERFACE:
            self.u2(opcode, ref)
            self.op(argument_slots(descriptor) + 1, 0)
        else:
            self.u2(opcode, ref)

    def field(self, opcode: int, owner: str, name: str, descriptor: str) -> None:
        self.u2(opcode, self.pool.add_field_ref(owner, name, descriptor))

    def finish(self) -> tuple[bytes, list[ExceptionEntry]]:
        code = bytearray(self.code)
        for at, label in self.fixups:
            if label.position < 0:
                raise AssertionError("a branch to a label that was never placed")
            code[at + 1:at + 3] = (label.position - at).to_bytes(2, "big", signed=True)
        if len(code) > 65535:
            raise ValueError("generated method too large")
        table = [ExceptionEntry(s.position, e.position, h.position, t) for s, e, h, t in self.handlers]
        return bytes(code), table


def argument_slots(descriptor: str) -> int:
    return sum(slot_size(d) for d in split_arguments(descriptor))


def slot_size(descriptor: str) -> int:
    return 2 if descriptor in ("J", "D") else 1


def split_arguments(descriptor: str) -> list[str]:
    """"(I[JLjava/lang/String;)V" -> ["I", "[J", "Ljava/lang/String;"]."""
    out = []
    i = descriptor.index("(") + 1
    while descriptor[i] != ")":
        start = i
        while descriptor[i] == "[":
            i += 1
        if descriptor[i] == "L":
            i = descriptor.index(";", i)
        i += 1
        out.append(descriptor[start:i])
    return out


def return_descriptor(descriptor: str) -> str:
    return descriptor[descriptor.index(")") + 1:]


@dataclass
class StaticClassWriter:
    """A class with static fields and static methods (plus optional instance methods), version 49."""

    name: str
    superclass: str = "java/lang/Object"
    pool: ConstantPool = field(default_factory=lambda: ConstantPool([None]))
    fields: list[Member] = field(default_factory=list)
    methods: list[Member] = field(default_factory=list)

    def add_field(self, name: str, descriptor: str, access: int) -> None:
        self.fields.append(Member(access, self.pool.add_utf8(name), self.pool.add_utf8(descriptor), []))

    def add_method(self, name: str, descriptor: str, access: int, asm: Assembler, max_stack: int,
                   max_locals: int) -> None:
        body, table = asm.finish()
        code = Code(self.pool.add_utf8("Code"), max_stack, max_locals, body, table, [])
        self.methods.append(Member(access, self.pool.add_utf8(name), self.pool.add_utf8(descriptor), [code]))

    def to_bytes(self) -> bytes:
        this_class = self.pool.add_class(self.name)
        super_class = self.pool.add_class(self.superclass)
        cf = ClassFile(0, PROBE_CLASS_VERSION, self.pool, ACC_PUBLIC | ACC_SUPER | ACC_FINAL | ACC_SYNTHETIC,
                       this_class, super_class, [], self.fields, self.methods, [])
        return cf.to_bytes()

