"""Could a call running on a method's original code still reach a probe's place?

A capture point that moves into the JVM while threads are inside its method leaves those calls on the original
code (obsolete after the redefinition: no breakpoint reaches it, see safety.py). That is exact only if none of
them can still come to the point's place: a hit there would be taken by --no-instrument and lost in the JVM.
Decided on the bytecode: from where each frame stands, can control flow (fall-through, branches, switches,
exception handlers) reach an index where the probe is inserted?
"""

from __future__ import annotations

import functools
from typing import Any

from . import bytecode as bc
from .classfile import ClassFile, ClassFormatError, Code
from .frames_now import ClassFrames
from .insert import line_start
from .method_sites import ENTRY

__all__ = ["calls_may_reach", "old_calls_may_reach", "probe_places", "reaches"]

# After these, control does not go on to the next instruction.
_NO_FALL_THROUGH = frozenset([bc.GOTO, bc.GOTO_W, bc.TABLESWITCH, bc.LOOKUPSWITCH, bc.ATHROW, bc.RET,
                              *range(bc.IRETURN, bc.RETURN + 1)])
_CALLS = frozenset(range(bc.INVOKEVIRTUAL, bc.INVOKEDYNAMIC + 1))


def reaches(code: Code, start: int, places: set[int]) -> bool:
    """Can execution from code index `start` (not yet executed) reach one of `places`?"""
    instructions = _instructions(bytes(code.code))
    seen: set[int] = set()
    todo = [start]
    while todo:
        at = todo.pop()
        if at in seen or at not in instructions:
            continue
        if at in places:
            return True
        seen.add(at)
        ins = instructions[at]
        todo += ins.targets
        if ins.opcode not in _NO_FALL_THROUGH:
            todo.append(at + ins.length)
        todo += [e.handler_pc for e in code.exceptions if e.start_pc <= at < e.end_pc]
    return False


def probe_places(data: bytes, line: int, at: str, methods: tuple[str, ...]) -> dict[str, set[int]] | None:
    """Name + descriptor -> the code indexes where a line point's probe (or a method entry point's) is called,
    in the class's bytes; None when that cannot be said (then every running call counts as reaching it)."""
    try:
        cf = ClassFile.parse_shared(data)
    except ClassFormatError:
        return None
    out: dict[str, set[int]] = {}
    for m in cf.methods:
        key = cf.member_name(m) + cf.member_descriptor(m)
        if m.code is None:
            continue
        if at == "line":
            start = line_start(m.code, line)
            if start is not None:
                out[key] = {start}
        elif at == ENTRY and key in methods:
            out[key] = {0}
        elif key in methods:
            return None  # (an exit's places: not decided here)
    return out


async def old_calls_may_reach(vm: Any, type_id: int, data: bytes, places: dict[str, set[int]] | None) -> bool:
    """Might a call of the class now running (every thread suspended) reach one of `places` on the original
    code `data`? A thread that is not suspended might be anywhere."""
    if places is None:
        return True
    return calls_may_reach(await ClassFrames.read(vm, type_id), data, places)


def calls_may_reach(now: ClassFrames, data: bytes, places: dict[str, set[int]] | None) -> bool:
    """old_calls_may_reach on frames read already."""
    if places is None:
        return True
    codes = {key: code for key, code in _codes(data).items() if key in places}
    for frames in now.frames.values():
        if frames is None:
            return True
        for depth, frame in enumerate(frames):
            loc = frame.location
            if loc.class_id != now.type_id:
                continue
            key = now.names.get(loc.method_id)
            if key is None and loc.method_id:
                return True  # (a method the class does not list now)
            if key not in codes:
                continue
            code = codes[key]
            start = loc.index
            if depth > 0 and start < len(code.code) and code.code[start] in _CALLS:
                # A caller's frame stands at its call, which has begun: it goes on after it.
                start += 5 if code.code[start] in (bc.INVOKEINTERFACE, bc.INVOKEDYNAMIC) else 3
            if depth == 0 and start in places[key]:
                # Standing on the place: its breakpoint was posted there (JDWP reports it before the instruction
                # runs, and a thread let go after it stands there until it runs on), so this hit is the round
                # trip's. (Left: a thread the move's suspension caught on the place before its breakpoint was
                # posted; JDWP cannot tell the two apart. Its one hit would be lost.)
                if any(reaches(code, after, places[key]) for after in _successors(code, start)):
                    return True
            elif reaches(code, start, places[key]):
                return True
    return False


def _successors(code: Code, at: int) -> list[int]:
    ins = _instructions(bytes(code.code))[at]
    out = [*ins.targets, *(e.handler_pc for e in code.exceptions if e.start_pc <= at < e.end_pc)]
    return out if ins.opcode in _NO_FALL_THROUGH else [*out, at + ins.length]


@functools.lru_cache(maxsize=32)
def _instructions(code: bytes) -> dict[int, bc.Instruction]:
    """Offset -> instruction, decoded once per method body (a move asks for every frame in the method, with
    every thread held)."""
    return {ins.offset: ins for ins in bc.decode(code)}


def _codes(data: bytes) -> dict[str, Code]:
    try:
        cf = ClassFile.parse_shared(data)
    except ClassFormatError:
        return {}
    return {cf.member_name(m) + cf.member_descriptor(m): m.code for m in cf.methods if m.code is not None}
