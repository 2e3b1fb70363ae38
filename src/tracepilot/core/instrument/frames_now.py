"""Every thread's frames, read once for a move into the JVM (every thread suspended).

A move asks three questions of the same frames: is a thread inside a method the redefinition changes, is a
thread the user looks at inside one, and could a running call still reach the probe's place on the original
code. Each used to read every thread's frames again, one request after the other, with every thread held.
Here they are read once, all requests in flight together, and the questions are answered from that.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ...jdwp import JdwpError, ThreadReference, VirtualMachine

__all__ = ["ClassFrames"]


@dataclass
class ClassFrames:
    """The frames of every thread (None: not suspended, or ended: it could be anywhere) and the class's methods."""

    type_id: int
    names: dict[int, str]  # method id -> name + descriptor
    frames: dict[int, list[Any] | None]  # thread -> its frames, top first

    @classmethod
    async def read(cls, vm: Any, type_id: int) -> ClassFrames:
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        methods, *replies = await asyncio.gather(
            vm.methods(type_id), *(vm.send(ThreadReference.Frames, t, 0, -1) for t in threads),
            return_exceptions=True)
        if isinstance(methods, BaseException):
            raise methods
        frames: dict[int, list[Any] | None] = {}
        for thread, reply in zip(threads, replies, strict=True):
            if isinstance(reply, JdwpError):
                frames[thread] = None
            elif isinstance(reply, BaseException):
                raise reply
            else:
                frames[thread] = reply.frames
        return cls(type_id, {m.id: m.name + m.signature for m in methods}, frames)

    def touched(self) -> bool:
        """Might any thread be inside a method of the class (whichever the redefinition changes)?"""
        return self.inside(None)

    def inside(self, methods: set[str] | None, *, only: set[int] | None = None) -> bool:
        """As safety.thread_inside: might a thread be inside one of `methods` (all when None)? `only`: these
        (suspended) threads alone, skipping one that ended. A frame on obsolete code (method id 0) is not
        made worse."""
        for thread in (self.frames if only is None else sorted(only)):
            frames = self.frames.get(thread)
            if frames is None:
                if only is not None:
                    continue
                return True
            for frame in frames:
                loc = frame.location
                if loc.class_id != self.type_id or not loc.method_id:
                    continue
                if methods is None or self.names.get(loc.method_id, "") in methods or loc.method_id not in self.names:
                    return True
        return False
