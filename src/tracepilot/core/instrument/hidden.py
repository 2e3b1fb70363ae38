"""Where a thread is, as the program sees it: its top frame that is not an in-JVM probe's.

A thread paused while it runs a probe (a condition evaluating, a logpoint formatting) has the probe's
methods on top; thread lists and pause reports show the program's line that called the probe instead.
"""

from __future__ import annotations

from typing import Any

from ...jdwp import ThreadReference
from .naming import is_probe_class


async def top_frame(vm: Any, thread: int) -> Any | None:
    """The top frame not in a probe class (None: no Java frame). Raises what ThreadReference.Frames raises."""
    frames = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames
    if not frames:
        return None
    if not is_probe_class((await vm.type(frames[0].location.class_id)).signature):
        return frames[0]
    for frame in (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames:
        if not is_probe_class((await vm.type(frame.location.class_id)).signature):
            return frame
    return None


async def top_location(vm: Any, thread: int) -> Any | None:
    """The location of the thread's top frame that is not a probe's, readable even when that frame runs a
    method version a redefinition replaced (Vm.readable_location). None: no Java frame."""
    frames = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames
    if not frames:
        return None
    index = 0
    if is_probe_class((await vm.type(frames[0].location.class_id)).signature):
        frames = (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames
        # (a loop, not next() over a generator: an await in a generator's condition makes it an async one)
        index = -1
        for i, frame in enumerate(frames):
            if not is_probe_class((await vm.type(frame.location.class_id)).signature):
                index = i
                break
        if index < 0:
            return None
    return await vm.readable_location(thread, index, frames[index].location)
