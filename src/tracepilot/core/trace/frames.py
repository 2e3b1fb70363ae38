"""One more local in a method whose stack map frames do not know it: every frame rewritten as a full
frame with the local added at a slot past the method's own (an int the trace's entry call stores and its
exit calls read: the call's parent node, kept in a register by the JIT rather than reloaded from memory).

Frames are delta-encoded (same, chop, append); they are decoded to the whole locals list first, starting
from the frame the JVM derives from the descriptor, then written back as full frames.
"""

from __future__ import annotations

from ..instrument.classfile import (
    FULL,
    V_DOUBLE,
    V_FLOAT,
    V_INTEGER,
    V_LONG,
    V_OBJECT,
    V_TOP,
    V_UNINITIALIZED_THIS,
    ClassFile,
    Code,
    ConstantPool,
    StackMapTable,
    VType,
)

ACC_STATIC = 0x0008


def param_descriptors(descriptor: str) -> list[str]:
    out, i, inner = [], 0, descriptor[1:descriptor.index(")")]
    while i < len(inner):
        start = i
        while inner[i] == "[":
            i += 1
        i = inner.index(";", i) + 1 if inner[i] == "L" else i + 1
        out.append(inner[start:i])
    return out


def verification_type(desc: str, pool: ConstantPool) -> VType:
    if desc in "ZBCSI":
        return VType(V_INTEGER)
    if desc == "F":
        return VType(V_FLOAT)
    if desc == "J":
        return VType(V_LONG)
    if desc == "D":
        return VType(V_DOUBLE)
    return VType(V_OBJECT, pool.add_class(desc[1:-1] if desc[0] == "L" else desc))


def initial_locals(cf: ClassFile, name: str, descriptor: str, access: int) -> list[VType]:
    """The locals of the implicit frame at code index 0 (JVMS 4.10.1.6)."""
    first = []
    if not access & ACC_STATIC:
        first.append(VType(V_UNINITIALIZED_THIS) if name == "<init>" else VType(V_OBJECT, cf.this_class))
    return first + [verification_type(p, cf.pool) for p in param_descriptors(descriptor)]


def slots(locals_: list[VType]) -> int:
    return sum(2 if v.tag in (V_LONG, V_DOUBLE) else 1 for v in locals_)


def with_local(locals_: list[VType], slot: int, vtype: VType) -> list[VType]:
    """`locals_` padded with Top up to `slot`, then `vtype` there."""
    return locals_ + [VType(V_TOP)] * (slot - slots(locals_)) + [vtype]


def add_int_local(cf: ClassFile, code: Code, initial: list[VType], slot: int) -> None:
    """Every stack map frame of `code` made full, with an int at `slot` (past the method's own locals)."""
    for table in code.find(StackMapTable):
        current = list(initial)
        for frame in table.frames:
            t = frame.frame_type
            if t == FULL:
                current = list(frame.locals)
            elif 248 <= t <= 250:  # chop
                current = current[:len(current) - (251 - t)]
            elif 252 <= t <= 254:  # append
                current = current + list(frame.locals)
            frame.frame_type = FULL
            frame.locals = with_local(current, slot, VType(V_INTEGER))
