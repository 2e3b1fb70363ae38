"""Methods a thread was inside when an in-JVM trace began, instrumented the moment their threads leave them.

Their frames run the code they started with: redefining such a method would leave them on obsolete code
(see instrument/safety.py), so apply() leaves them out. Waiting for a random moment when no thread is inside
fails for a method its thread spends its life in (a loop calling `chunk` is inside `chunk` nearly always).
So each thread gets a breakpoint (suspend all, once) where its innermost such frame returns to its caller:
there the frame is gone, and with every thread suspended the classes whose methods no thread is inside now
are redefined with them instrumented. Their calls from then on are counted, as the round trip counts every
entry after its requests are in place: the call in flight at the start is counted by neither.

While breakpoints wait, a look every TICK without one (an exception may pop the frame elsewhere); after BUDGET
seconds, or when no frame has a caller to return into (a thread's first method, `main`), the methods still
inside a frame stay uncounted, and the answer names them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from ...jdwp import EventKind, EventRequest, JdwpError, Method, Mod, SuspendPolicy, VirtualMachine
from ...jdwp.wire import Location
from .inject import instrument

BUDGET = 1.0  # seconds of the trace spent instrumenting late
TICK = 0.25  # seconds between looks when no breakpoint is hit (each look holds the program a moment)
INVOKES = range(0xB6, 0xBB)  # invokevirtual .. invokedynamic


class Rejoin:
    def __init__(self, tracer: Any) -> None:
        self.tracer = tracer
        self.vm = tracer.vm
        self.requests: set[int] = set()
        self.hits: asyncio.Queue[Any] = asyncio.Queue()
        self.code: dict[tuple[int, int], bytes] = {}
        self.undo = None

    def tap(self, composite: Any) -> bool:
        mine = [getattr(e, "request_id", None) in self.requests for e in composite.events]
        if mine and all(mine):
            self.hits.put_nowait(composite)  # its suspension is this module's to resume
            return True
        if any(mine):  # with a stop of the session's at the same place: that stop keeps the suspension
            self.hits.put_nowait(None)
        return False

    async def run(self, stopping: asyncio.Event) -> None:
        """Until nothing is pending, the budget is spent or `stopping` is set. Called right after apply()
        resumed the program; each round holds it for a moment (counted in the tracer's held_ms)."""
        if not self._pending():
            return
        self.undo = self.tracer.session.add_event_tap(self.tap)
        deadline = time.monotonic() + BUDGET
        try:
            await self._round(hit=False)
            while self._pending() and self.requests and not stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                getter = asyncio.ensure_future(self.hits.get())
                stop = asyncio.ensure_future(stopping.wait())
                done, _ = await asyncio.wait({getter, stop}, timeout=min(TICK, left),
                                             return_when=asyncio.FIRST_COMPLETED)
                stop.cancel()
                if getter in done:
                    await self._round(hit=getter.result() is not None)
                else:
                    getter.cancel()
                    if stop not in done:
                        await self._round(hit=False)
        finally:
            await self._clear(final=True)

    def _pending(self) -> bool:
        return any(t.pending for t in self.tracer.classes)

    async def _round(self, *, hit: bool) -> None:
        """Every thread suspended (by the hit's event, or here): redefine what no thread is inside any more,
        and set the breakpoints anew (a redefinition drops those in its classes)."""
        tracer = self.tracer
        began = time.monotonic()
        if not hit:
            await self.vm.send(VirtualMachine.Suspend)
        try:
            await self._clear(final=False)
            frames = await tracer.frames_now()
            running = tracer.running_in(frames)
            redefine, changed = [], []
            for traced in tracer.classes:
                if not traced.pending:
                    continue
                inside = {m for m in traced.pending if m in running.get(traced.type_id, ())}
                if inside == traced.pending:
                    continue
                data, methods = instrument(traced.original, tracer.hub_internal, traced.first_index,
                                           frozenset(inside), skipped=[])
                redefine.append((traced.type_id, data))
                changed.append((traced, inside, methods))
            if redefine:
                await self.vm.send(VirtualMachine.RedefineClasses, redefine)
                for traced, inside, methods in changed:
                    traced.pending, traced.methods = inside, methods
                    tracer.joined_late += 1
            if self._pending():
                await self._set_breakpoints(frames)
        finally:
            with contextlib.suppress(Exception):
                await self.vm.send(VirtualMachine.Resume)  # the hit's suspension, or ours
            tracer.held_ms += (time.monotonic() - began) * 1000
        for traced, _, _ in changed:
            await tracer.redefined(traced)

    async def _set_breakpoints(self, frames: dict[int, list]) -> None:
        pending = {(t.type_id, name) for t in self.tracer.classes for name in t.pending}
        for thread, stack in frames.items():
            inner = None
            for depth, frame in enumerate(stack):
                loc = frame.location
                if loc.method_id and (loc.class_id, await self.tracer.method_key(loc)) in pending:
                    inner = depth
                    break
            if inner is None or inner + 1 >= len(stack):
                continue  # no pending frame, or it is the thread's first (nothing returns into a caller)
            caller = stack[inner + 1].location
            after = await self._after_call(caller)
            if after is None:
                continue
            with contextlib.suppress(JdwpError):
                reply = await self.vm.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                           [Mod.LocationOnly(after), Mod.ThreadOnly(thread), Mod.Count(1)])
                self.requests.add(reply.request_id)

    async def _after_call(self, caller: Location) -> Location | None:
        if not caller.method_id:
            return None  # obsolete or native
        key = (caller.class_id, caller.method_id)
        if key not in self.code:
            try:
                self.code[key] = (await self.vm.send(Method.Bytecodes, caller.class_id, caller.method_id)).bytecodes
            except JdwpError:
                self.code[key] = b""
        code = self.code[key]
        if caller.index >= len(code) or code[caller.index] not in INVOKES:
            return None  # not in an ordinary call (reflection, a native frame...)
        after = caller.index + (5 if code[caller.index] in (0xB9, 0xBA) else 3)
        return Location(caller.type_tag, caller.class_id, caller.method_id, after)

    async def _clear(self, *, final: bool) -> None:
        for request in self.requests:
            with contextlib.suppress(Exception):
                await self.vm.send(EventRequest.Clear, EventKind.BREAKPOINT, request)
        self.requests.clear()
        if final and self.undo is not None:
            self.undo()
            self.undo = None
        while not self.hits.empty():  # hits that came while this round ran: each suspended every thread once
            if self.hits.get_nowait() is not None:
                with contextlib.suppress(Exception):
                    await self.vm.send(VirtualMachine.Resume)

