"""Stack frames and the variables valid in them.

Frame ids are cached per (thread, stop generation) and fetched again after any resume or invocation,
because the VM invalidates them then. Frames are addressed by index (0 = top) everywhere above this.
"""

from __future__ import annotations

import asyncio
import contextvars
from dataclasses import dataclass
from typing import Any

from ...jdwp import JdwpError, Location, StackFrame, ThreadReference, Value
from ...jdwp.errors import ThreadNotSuspended
from ..eager import gather_eagerly, run_eagerly
from ..errors import InvalidArgument, NotStopped
from ..model import FrameInfo, Variable
from ..vm import OBSOLETE_METHOD_ID, REPLACED_IDS, MethodInfo, VariableSlot, Vm
from .stop_burst import Burst, FrameIdGuess, slot_request
from .values import Values

LIBRARY_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala.", "org.junit.",
                    "org.springframework.", "org.apache.", "io.netty.", "reactor.", "com.google.")


def is_library(class_name: str) -> bool:
    return class_name.startswith(LIBRARY_PREFIXES)


@dataclass
class Frame:
    index: int
    frame_id: int
    location: Location


class Frames:
    def __init__(self, vm: Vm) -> None:
        self.vm = vm
        self._cache: dict[tuple[int, int], tuple[int, dict[int, Frame]]] = {}  # (thread, gen) -> (count, frames)
        self.guess = FrameIdGuess()  # each thread's next top frame id (stop_burst.py)
        # (class, method) -> (its class's TypeInfo, that class's method list, the method): Vm.known_method's
        # answer while the class's tables are the same objects (a redefinition or unload drops them)
        self._methods: dict[tuple[int, int], tuple[Any, Any, MethodInfo]] = {}

    def known_method(self, class_id: int, method_id: int) -> MethodInfo | None:
        """Vm.known_method, without scanning the class's methods at every stop."""
        if method_id == OBSOLETE_METHOD_ID or method_id >= REPLACED_IDS:  # (versions the Vm keeps apart)
            return self.vm.known_method(class_id, method_id)
        key = (class_id, method_id)
        found = self._methods.get(key)
        info = self.vm.types.get(class_id)
        if found is not None and found[0] is info and info is not None and found[1] is info.methods:
            return found[2]
        method = self.vm.known_method(class_id, method_id)
        if method is not None and info is not None and info.methods is not None:
            if len(self._methods) > 4096:
                self._methods.clear()
            self._methods[key] = (info, info.methods, method)
        return method

    def clear(self) -> None:
        self._cache.clear()

    async def adopt(self, burst: Burst, generation: int) -> bool:
        """Take a stop burst's Frames and FrameCount replies as this generation's depth and top frame (the
        requests `frame(thread, gen, 0)` makes first, answered for the same suspension); False when they
        cannot be taken (the usual requests then ask again)."""
        key = (burst.thread_id, generation)
        if key in self._cache:
            return False
        try:
            total = (await burst.count).frame_count
            reply = await burst.frames
        except JdwpError:
            return False
        if key in self._cache or not reply.frames:
            return False
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[key] = (total, {0: self._frame(burst.thread_id, total, 0, reply.frames[0])})
        return True

    async def count(self, thread_id: int, generation: int) -> int:
        entry = self._cache.get((thread_id, generation))
        if entry is None:
            try:
                n = (await self.vm.send(ThreadReference.FrameCount, thread_id)).frame_count
            except ThreadNotSuspended:
                raise NotStopped("that thread is running", "pause it or wait for a stop first") from None
            if len(self._cache) > 256:
                self._cache.clear()
            entry = (n, {})
            self._cache[(thread_id, generation)] = entry
        return entry[0]

    async def frames(self, thread_id: int, generation: int, start: int, count: int) -> list[Frame]:
        if (thread_id, generation) not in self._cache and count > 0:
            # A fresh stop: ask for the count and the frames in one burst (one round trip, not two).
            sent = self.vm.conn.send_nowait(ThreadReference.Frames, thread_id, start, count)
            try:
                total = await self.count(thread_id, generation)
            except BaseException:  # e.g. the thread runs again: the burst's reply fails too, nobody awaits it
                sent.add_done_callback(lambda f: f.cancelled() or f.exception())
                raise
            try:
                reply = await sent
            except JdwpError:  # e.g. fewer frames than asked for: fall through to the exact request
                pass
            else:
                known = self._cache[(thread_id, generation)][1]
                for offset, f in enumerate(reply.frames):
                    known[start + offset] = self._frame(thread_id, total, start + offset, f)
        total = await self.count(thread_id, generation)
        _, known = self._cache[(thread_id, generation)]
        end = min(total, start + count) if count >= 0 else total
        if start >= end:
            return []
        if any(i not in known for i in range(start, end)):
            try:
                reply = await self.vm.send(ThreadReference.Frames, thread_id, start, end - start)
            except ThreadNotSuspended:
                raise NotStopped("that thread is running", "pause it or wait for a stop first") from None
            for offset, f in enumerate(reply.frames):
                known[start + offset] = self._frame(thread_id, total, start + offset, f)
        return [known[i] for i in range(start, end) if i in known]

    def _frame(self, thread_id: int, total: int, index: int, f) -> Frame:  # noqa: ANN001 - a Frames reply item
        if index == 0:
            self.guess.learn(thread_id, f.frame_id)
        # A frame on obsolete code (method id 0) reads as the method version it runs, when that is known.
        return Frame(index, f.frame_id, self.vm.known_version(thread_id, total - 1 - index, f.location))

    def known_frame(self, thread_id: int, generation: int, index: int) -> Frame | None:
        """frame() when this generation's cache holds it (no request, no coroutine), else None."""
        entry = self._cache.get((thread_id, generation))
        if entry is None or not 0 <= index < entry[0]:
            return None
        return entry[1].get(index)

    def known_count(self, thread_id: int, generation: int) -> int | None:
        """count() when this generation's is cached, else None."""
        entry = self._cache.get((thread_id, generation))
        return entry[0] if entry is not None else None

    async def frame(self, thread_id: int, generation: int, index: int) -> Frame:
        if index < 0:
            raise InvalidArgument(f"frame {index} does not exist", "frames are numbered from 0 (the top)")
        found = await self.frames(thread_id, generation, index, 1)
        if not found:
            total = await self.count(thread_id, generation)
            raise InvalidArgument(f"frame {index} does not exist", f"this thread has {total} frames (0..{total - 1})")
        return found[0]

    async def frame_info(self, frame: Frame) -> FrameInfo:
        loc = await self.vm.code_location(frame.location)
        method = await self.vm.method(frame.location.class_id, frame.location.method_id)
        return FrameInfo(frame.index, loc, is_native=method.is_native, is_library=is_library(loc.class_name))

    async def live_slots(self, location: Location) -> tuple[list[VariableSlot], bool]:
        """Variables valid at the location (arguments first) and whether the method has a variable table."""
        method = await self.vm.variables(location.class_id, location.method_id)
        if not method.has_variable_table:
            return [], False
        return _live_at(method, location), True

    def known_live_slots(self, location: Location, method: MethodInfo | None = None) -> list[VariableSlot] | None:
        """live_slots' variables when the method's tables are cached (no request made), else None. (`method`:
        the location's, when the caller has it from Vm.known_method.)"""
        if method is None:
            method = self.known_method(location.class_id, location.method_id)
        if method is None or method.has_variable_table is None:
            return None
        return _live_at(method, location) if method.has_variable_table else []

    async def raw_values(self, thread_id: int, frame: Frame) -> tuple[list[tuple[VariableSlot, Value]], Value | None]:
        """(slot, value) of every live variable, and `this` (None in static or native frames)."""
        location = frame.location
        method = self.known_method(location.class_id, location.method_id)
        slots = self.known_live_slots(location, method) if method is not None else None
        if slots is None or method is None:  # (the method's tables are not cached yet: asked for)
            slots, _ = await self.live_slots(location)
            method = await self.vm.method(location.class_id, location.method_id)
        this_task = None
        if not method.is_static and not method.is_native:  # asked alongside the values (one round trip)
            this_task = run_eagerly(asyncio.get_running_loop(), self.vm.send(StackFrame.ThisObject, thread_id,
                                                                             frame.frame_id), contextvars.copy_context())
            this_task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (none left unretrieved)
        request = slot_request(slots)
        values: list[Value] = []
        if request:
            try:
                values = (await self.vm.send(StackFrame.GetValues, thread_id, frame.frame_id, request)).values
            except JdwpError:
                # One bad slot (e.g. a variable table that lies) must not hide the others.
                got = await asyncio.gather(*(self.vm.send(StackFrame.GetValues, thread_id, frame.frame_id, [r])
                                             for r in request), return_exceptions=True)
                values = [g.values[0] if not isinstance(g, BaseException) else None for g in got]
        this = None
        if this_task is not None:
            try:
                this = (await this_task).object_this
            except JdwpError:
                this = None
        return list(zip(slots, values, strict=True)), this

    async def variables(self, thread_id: int, frame: Frame, values: Values) -> list[Variable]:
        pairs, this = await self.raw_values(thread_id, frame)
        result: list[Variable] = []
        if this is not None and not this.is_null:
            result.append(Variable("this", await values.view(this, None, 0), "this"))
        # (each started at once: views whose reads are answered already, from a stop's burst, need no task)
        views = await gather_eagerly(*[values.view(v, s.type_name, 0, s.name) for s, v in pairs])
        for (slot, _), view in zip(pairs, views, strict=True):
            result.append(Variable(slot.name, view, "argument" if slot.is_argument else "local"))
        return result


def _live_at(method: MethodInfo, location: Location) -> list[VariableSlot]:
    # (asked at every stop, mostly at the same few places: kept per method version and code index, for the
    # variable table it was made from)
    known = method.live_at.get(location.index)
    if known is not None and known[0] is method.variables:
        return list(known[1])
    live = _live_in(method, location)
    if len(method.live_at) > 256:
        method.live_at.clear()
    method.live_at[location.index] = (method.variables, live)
    return list(live)


def _live_in(method: MethodInfo, location: Location) -> list[VariableSlot]:
    # `this` comes from StackFrame.ThisObject (it is also slot 0 of the table: don't list it twice).
    live = [v for v in method.variables or ()
            if v.name != "this" and (v.live_at(location.index) or v.is_argument)]
    # A slot can be reused by sibling scopes: keep the innermost (latest start) per name.
    by_name: dict[str, VariableSlot] = {}
    for v in sorted(live, key=lambda v: v.start):
        by_name[v.name] = v
    return sorted(by_name.values(), key=lambda v: (not v.is_argument, v.slot))
