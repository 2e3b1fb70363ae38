"""Where the in-JVM path inserted code: a stop, a step or a frame inside it reads as the line's first index.

The probe call goes in front of the line's first instruction and the line's LineNumberTable entry moves onto
it, so the line is right everywhere; but a frame that stands inside the call (after the probe's frames were
popped for a stop, the thread waits at the `invokestatic` that re-runs it) has a code index the program's
own class file does not have. Readers show the line's own index instead (issue 26: the stop's code index is
the line's).
"""

from __future__ import annotations

from . import bytecode as bc
from .classfile import ClassFile, ClassFormatError, LineNumberTable

__all__ = ["inserted_calls"]


def inserted_calls(data: bytes, probe_classes: set[str], methods: set[str] | None = None
                   ) -> dict[str, list[tuple[int, int]]]:
    """Method (name + descriptor) -> [start, end) ranges of the inserted calls of `probe_classes` (internal
    names): from the line's first index to just after the call. `methods`: only these can have such calls
    (the others' code is not decoded: a move into the JVM does this with every thread held)."""
    try:
        cf = ClassFile.parse_shared(data)
    except ClassFormatError:
        return {}
    found: dict[str, list[tuple[int, int]]] = {}
    for method in cf.methods:
        code = method.code
        if code is None or methods is not None and cf.member_name(method) + cf.member_descriptor(method) not in methods:
            continue
        starts = sorted(e.start_pc for table in code.find(LineNumberTable) for e in table.entries)
        try:
            instructions = bc.decode(code.code)
        except ValueError:
            continue
        for ins in instructions:
            if ins.opcode != bc.INVOKESTATIC:
                continue
            owner, _, _ = cf.pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))
            if owner not in probe_classes:
                continue
            start = max((s for s in starts if s <= ins.offset), default=ins.offset)
            found.setdefault(cf.member_name(method) + cf.member_descriptor(method), []).append(
                (start, ins.offset + ins.length))
    return found
