"""The first calls of a traced method with their arguments and return values: the bytecode side.

A guard at the method's entry and before each return, `if (Hub.REC[m])`, jumps to a block at the end of
the code that hands the values to the hub and jumps back. Once the hub has its first calls of m it clears
REC[m]: the guard's branch was never taken while the JIT profiled the method, so the compiled code holds
no call on the hot path (an uncommon trap instead), only the load of REC[m] and a test.

insert.py takes straight-line code only, so the guard goes in as `getstatic REC; sipush m; baload` and three
NOPs, which become `ifne` once the code is laid out (or `pop` where no block can be added). The blocks need stack map frames: at entry the frame the
JVM derives from the descriptor (plus the probe's local); before a return only the probe's local and the
value returned, every other local Top (the code from there, exit call and return, reads nothing else). A
return inside one of the method's own try blocks is not guarded: Top locals would not match its handler's
frame. Such a method tells the hub (begin's `closes` = 0) that it cannot count on seeing every return.
"""

from __future__ import annotations

from ..instrument import bytecode as bc
from ..instrument.classfile import (
    FULL,
    V_DOUBLE,
    V_INTEGER,
    V_LONG,
    ClassFile,
    Code,
    Frame,
    StackMapTable,
    VType,
)
from .frames import param_descriptors, verification_type, with_local

PLACEHOLDER = bytes([bc.NOP] * 3)
BALOAD, DUP, DUP2, GOTO_W = 0x33, bc.DUP, bc.DUP2, bc.GOTO_W
LOADS = {"I": bc.ILOAD, "J": bc.LLOAD, "F": bc.FLOAD, "D": bc.DLOAD, "A": bc.ALOAD}
KIND = {"Z": "Z", "B": "B", "C": "C", "S": "S", "I": "I", "J": "J", "F": "F", "D": "D"}


def _kind(desc: str) -> str:
    return KIND.get(desc, "A")


def _sig(kind: str) -> str:
    return "Ljava/lang/Object;" if kind == "A" else kind


def _u2(n: int) -> bytes:
    return n.to_bytes(2, "big")


def _s4(n: int) -> bytes:
    return n.to_bytes(4, "big", signed=True)


class Recorder:
    """The constant pool entries one class's recording code uses."""

    def __init__(self, cf: ClassFile, hub: str) -> None:
        self.cf = cf
        pool = cf.pool
        self.hub = hub
        self.rec = pool.add_field_ref(hub, "REC", "[Z")
        self.begin = pool.add_method_ref(hub, "begin", "(III)V")
        self._refs: dict[str, int] = {}

    def ref(self, name: str, descriptor: str) -> int:
        key = name + descriptor
        if key not in self._refs:
            self._refs[key] = self.cf.pool.add_method_ref(self.hub, name, descriptor)
        return self._refs[key]

    def guard(self, index: int) -> bytes:
        return bytes([bc.GETSTATIC]) + _u2(self.rec) + bytes([bc.SIPUSH]) + _u2(index) + bytes([BALOAD]) + PLACEHOLDER

    def guards(self, code: Code) -> list[int]:
        """Offsets of the NOP placeholders, in code order (the entry's first)."""
        at = []
        ins = bc.decode(code.code)
        for i, x in enumerate(ins[:-5]):
            if x.opcode == bc.GETSTATIC and int.from_bytes(code.code[x.offset + 1:x.offset + 3], "big") == self.rec \
                    and ins[i + 2].opcode == BALOAD and all(ins[i + k].opcode == bc.NOP for k in (3, 4, 5)):
                at.append(ins[i + 3].offset)
        return at

    def complete(self, code: Code, descriptor: str, initial: list[VType], first_local: int, slot: int,
                 index: int, closes: bool) -> None:
        """Turn the placeholders into branches to blocks appended to the code, with their frames."""
        spots = self.guards(code)
        if not spots:
            return
        tables = code.find(StackMapTable)
        if not tables:  # no frames to add to (a class file before Java 6; a constructor with no branch)
            _unguard(code, spots)
            return
        frames = tables[0].frames
        params = param_descriptors(descriptor)
        returned = descriptor[descriptor.index(")") + 1:]
        for n, spot in enumerate(spots):
            back = spot + 3
            block = len(code.code)
            if n == 0:
                body = bytes([bc.SIPUSH]) + _u2(index) + bytes([bc.SIPUSH]) + _u2(len(params)) + \
                    bytes([bc.SIPUSH]) + _u2(int(closes)) + bytes([bc.INVOKESTATIC]) + _u2(self.begin)
                local = first_local
                for k, p in enumerate(params):
                    kind = _kind(p)
                    load = LOADS.get(kind if kind in LOADS else "I", bc.ILOAD)
                    body += (bytes([load, local]) if local <= 0xFF else bytes([bc.WIDE, load]) + _u2(local))
                    body += bytes([bc.SIPUSH]) + _u2(k) + bytes([bc.INVOKESTATIC]) + \
                        _u2(self.ref("arg" + kind, f"({_sig(kind)}I)V"))
                    local += 2 if kind in "JD" else 1
                frame_locals, stack = with_local(list(initial), slot, _int()), []
            elif returned == "V":
                body = bytes([bc.SIPUSH]) + _u2(index) + bytes([bc.INVOKESTATIC]) + _u2(self.ref("retV", "(I)V"))
                frame_locals, stack = with_local([], slot, _int()), []
            else:
                kind = _kind(returned)
                value = verification_type(returned, self.cf.pool)
                body = bytes([DUP2 if value.tag in (V_LONG, V_DOUBLE) else DUP, bc.SIPUSH]) + _u2(index) + \
                    bytes([bc.INVOKESTATIC]) + _u2(self.ref("ret" + kind, f"({_sig(kind)}I)V"))
                frame_locals, stack = with_local([], slot, _int()), [value]
            body += bytes([GOTO_W]) + _s4(back - (block + len(body)))
            jump = block - spot
            if jump > 0x7FFF:  # too far for ifne: those calls are not recorded
                _unguard(code, spots[n:])
                return
            code.code = code.code[:spot] + bytes([bc.IFNE]) + _u2(jump) + code.code[spot + 3:] + body
            for offset in (back, block):
                frames[:] = [f for f in frames if f.offset != offset]
                frames.append(Frame(FULL, offset, list(frame_locals), list(stack)))
            frames.sort(key=lambda f: f.offset)
            code.max_stack = max(code.max_stack, (len(stack) * 2) + 4)


def _unguard(code: Code, spots: list[int]) -> None:
    """A guard left without its block drops the flag it loaded (`pop`): the stack stays as it was."""
    for spot in spots:
        code.code = code.code[:spot] + bytes([bc.POP, bc.NOP, bc.NOP]) + code.code[spot + 3:]


def _int() -> VType:
    return VType(V_INTEGER)
