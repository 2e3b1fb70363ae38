"""The probe calls a line starts with, and where they end: what a step that ends at the line runs first.

By round trip a step that ends at a line with breakpoints is one JDWP event with theirs: the line is logged,
counted, captured (or stopped at) with the step's stop. In the JVM those breakpoints are calls inserted at the
start of the line, which run only when the thread goes on; so the step runs them first and stops right after
them (session/events.py), where the line's own first instruction now is.

Only the calls inserted at a line's start (line and method-entry probes): each is the loads of its captures
(locals, `this`, a field of `this`, a static field) and an invokestatic of the probe, nothing the program
would see run. A method-exit probe's call sits before a return, further into its line: never run early.
"""

from __future__ import annotations

from . import bytecode as bc
from .classfile import ClassFile, ClassFormatError

__all__ = ["after_line_calls"]

# What call_payload emits to load a capture before a line's probe call (sipush and dup are an exit's only).
_LOADS = frozenset([bc.ILOAD, bc.LLOAD, bc.FLOAD, bc.DLOAD, bc.ALOAD, bc.WIDE, bc.GETFIELD, bc.GETSTATIC])


def after_line_calls(data: bytes, method: str, index: int, probe_classes: set[str]) -> int | None:
    """The code index just after the calls of `probe_classes` (internal names) that start at `index` in
    `method` (name + descriptor) of the class `data`, or None when no such call starts there."""
    try:
        cf = ClassFile.parse_shared(data)
    except ClassFormatError:
        return None
    code = next((m.code for m in cf.methods if cf.member_name(m) + cf.member_descriptor(m) == method), None)
    if code is None:
        return None
    try:
        instructions = bc.decode(code.code)
    except ValueError:
        return None
    end = None
    for ins in instructions:
        if ins.offset < index:
            continue
        if ins.opcode == bc.INVOKESTATIC:
            owner, _, _ = cf.pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))
            if owner not in probe_classes:
                break
            end = ins.offset + ins.length
        elif ins.opcode not in _LOADS:
            break
    return end
