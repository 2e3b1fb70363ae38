"""When may a class be redefined without leaving a frame on obsolete code?

A frame that is running a method when its class is redefined with a different body keeps running the old
body: an *obsolete* method, which JDWP reports with method id 0, without line or variable tables, where no
breakpoint can reach it. The debugger must never make one needlessly: a class is redefined only when no
thread can be inside a method whose code the redefinition changes (every thread suspended, none with a
frame there). Methods whose code stays byte for byte the same are not obsolete after it (the JVM treats
them as the same method), so only the changed ones matter.
"""

from __future__ import annotations

from typing import Any

from ...jdwp import JdwpError, ThreadReference, VirtualMachine
from .classfile import ClassFile, ClassFormatError

__all__ = ["changed_methods", "thread_inside"]


def _bodies(data: bytes) -> dict[str, bytes]:
    cf = ClassFile.parse(data)
    return {cf.member_name(m) + cf.member_descriptor(m): (m.code.code if m.code is not None else b"")
            for m in cf.methods}


def changed_methods(old: bytes, new: bytes) -> set[str] | None:
    """Name + descriptor of every method whose code differs between the two versions; None when either
    version cannot be read (then every method counts as changed)."""
    try:
        before, after = _bodies(old), _bodies(new)
    except ClassFormatError:
        return None
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


async def thread_inside(vm: Any, type_id: int, methods: set[str] | None, *, only: set[int] | None = None) -> bool:
    """Might a thread be inside one of `methods` of the class (all of them when None)? A thread that is not
    suspended might be anywhere. `only`: these (suspended) threads alone. A frame already on obsolete code
    (method id 0) is not made worse."""
    names = {m.id: m.name + m.signature for m in await vm.methods(type_id)}
    threads = (await vm.send(VirtualMachine.AllThreads)).threads if only is None else sorted(only)
    for thread in threads:
        try:
            frames = (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames
        except JdwpError:
            if only is not None:
                continue  # (ended meanwhile)
            return True  # running (not suspended), or ended meanwhile: it could be anywhere
        for frame in frames:
            loc = frame.location
            if loc.class_id != type_id or not loc.method_id:
                continue
            if methods is None or names.get(loc.method_id, "") in methods or loc.method_id not in names:
                return True
    return False
