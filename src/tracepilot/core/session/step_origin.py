"""Where a step starts from: the program's own frame when the thread stands in native or filtered code.

A pause lands wherever the thread is, mostly inside the JDK (Thread.sleep, a native wait). The JVM never
completes a step over from a native frame (jdb's `next` runs on to the next breakpoint there too), and a step
in filtered code (java.*) is never reported where it is. A person sees the first frame of the program's own
code selected there (the TUI, the snapshot), so a step from such a stop first steps out to that frame, then
steps as asked from it (issue 29, points 1 and 13), as IntelliJ does.
"""

from __future__ import annotations

import contextlib

from ...jdwp import JdwpError, Location, ThreadReference
from ..inspect.stack import is_library
from ..instrument.naming import is_probe_class
from ..vm import Vm

MAX_FRAMES = 64  # a program frame deeper than this under library code: step as the JVM does


def filtered(class_name: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Does a JDWP ClassExclude pattern ("java.*", "*.Proxy", "a.B") match the class name?"""
    for pattern in patterns:
        if pattern.startswith("*") and class_name.endswith(pattern[1:]):
            return True
        if pattern.endswith("*") and class_name.startswith(pattern[:-1]):
            return True
        if class_name == pattern:
            return True
    return False


async def program_frame_height(vm: Vm, thread: int, filters: list[str] | tuple[str, ...],
                               paused: bool) -> int | None:
    """The frame count at which the thread's first frame of the program's own code runs, when the step must
    leave the frames above it first (its top frame is native or filtered, or, for a pause, library code);
    None when the step starts where the thread is (its top frame is the program's, or none of the first
    frames is)."""
    return (await step_start(vm, thread, filters, paused))[0]


async def step_start(vm: Vm, thread: int, filters: list[str] | tuple[str, ...],
                     paused: bool) -> tuple[int | None, tuple[str, ...] | None]:
    """program_frame_height's answer, and the filters the step keeps when it starts where the thread is
    (None: all of them). A thread in filtered code with no frame of the program's own to step out to (a
    breakpoint in jdk.jshell's JShell.eval, a java.util.Timer's thread) steps in that code: the filters
    that match its top frame's class go for this step, or it would end nowhere (every place it could
    end filtered). Under native frames (a pause in Object.wait), the first frame with code is that frame."""
    height, code_class = await _height(vm, thread, filters, paused)
    if code_class is not None:
        return height, tuple(p for p in filters if not filtered(code_class, [p]))
    return height, None


async def _height(vm: Vm, thread: int, filters: list[str] | tuple[str, ...],
                  paused: bool) -> tuple[int | None, str | None]:
    """(the height, or None; with no program frame found, the class of the first frame with code, whose
    filters the step drops)."""

    async def foreign(location: Location) -> tuple[bool, bool]:
        """(not the program's to step in, the program's own code with lines) for a frame's location."""
        if not location.method_id:  # obsolete code (a redefined method still running): the program's own
            return False, True
        info = await vm.type(location.class_id)
        method = await vm.line_table(location.class_id, location.method_id)
        name = info.name
        outside = (method.is_native or filtered(name, filters) or is_probe_class(info.signature)
                   or (paused and is_library(name)))
        return outside, not outside and bool(method.lines) and not is_library(name)

    with contextlib.suppress(JdwpError):
        top = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames
        if not top or not (await foreign(top[0].location))[0]:
            return None, None  # (the common case, every step from the program's code: one frame read)
        total = (await vm.send(ThreadReference.FrameCount, thread)).frame_count
        frames = (await vm.send(ThreadReference.Frames, thread, 0, min(total, MAX_FRAMES))).frames
        for index, frame in enumerate(frames[1:], 1):
            if (await foreign(frame.location))[1]:
                return total - index, None
        if total > MAX_FRAMES:
            return None, None
        # No frame of the program's own: the step goes on from the first frame with code (above it, native
        # frames: stepped out of first), in that frame's code even when filtered.
        for index, frame in enumerate(frames):
            location = frame.location
            if location.method_id and not (await vm.line_table(location.class_id, location.method_id)).is_native:
                name = (await vm.type(location.class_id)).name
                if not filtered(name, filters) and index == 0:
                    return None, None
                return (total - index if index else None), name
    return None, None
