"""A thread of a running program, stopped at an event for the debugger's calls (defining the trace probe
needs calls in the target, which JDWP makes only in a thread suspended by an event).

The first thread to enter a method of the traced classes stops there (a MethodEntry request per pattern,
suspending that thread alone, counted once); the others run on. A program that calls none of them (idle,
waiting for work) lends the first thread that enters any method after a second. Its event never reaches the session as a
stop: a tap takes it, and the thread book counts the suspension as the session's own, so calls in it work
as at a stop. `release` lets it go again.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...jdwp import EventKind, EventRequest, JdwpError, Mod, SuspendPolicy, ThreadReference
from ..instrument.naming import EXCLUDE_PATTERN as PROBE_EXCLUDE


class NoThread(Exception):
    """No thread entered a traced method in time."""


class Borrowed:
    def __init__(self, session: Any, vm: Any, thread: int) -> None:
        self.session, self.vm, self.thread = session, vm, thread
        self.released = False

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.session.threads.event_resumed(self.thread, vm_wide=False)
        with contextlib.suppress(Exception):
            await self.vm.send(ThreadReference.Resume, self.thread)


FIRST_TRY = 1.0  # seconds for a traced method before any method will do


async def borrow_thread(session: Any, vm: Any, patterns: list[str], timeout: float) -> Borrowed:
    """The first thread that enters a method of a class matching `patterns` (or, after FIRST_TRY seconds,
    of any class), suspended there."""
    try:
        return await _borrow(session, vm, patterns, min(FIRST_TRY, timeout))
    except NoThread:
        if timeout <= FIRST_TRY:
            raise
    try:
        return await _borrow(session, vm, [], timeout - FIRST_TRY)
    except NoThread:
        raise NoThread(f"no thread entered a method within {timeout:g}s to define the probe with") from None


async def _borrow(session: Any, vm: Any, patterns: list[str], timeout: float) -> Borrowed:
    loop = asyncio.get_running_loop()
    got: asyncio.Future[int] = loop.create_future()
    ids: set[int] = set()
    extra: list[int] = []
    setting = True
    early: list[Any] = []  # method entries that came before the reply that names their request

    def take(composite: Any) -> None:
        thread = next(e.thread for e in composite.events if getattr(e, "request_id", None) in ids)
        if got.done():
            extra.append(thread)  # a second pattern's event before its request was cleared
        else:
            session.threads.event_suspended(thread, vm_wide=False)
            session.threads.event_kept(thread, vm_wide=False)
            got.set_result(thread)

    def tap(composite: Any) -> bool:
        mine = [getattr(e, "request_id", None) in ids for e in composite.events]
        if mine and all(mine):
            take(composite)
            return True
        if any(mine):
            return False  # with a stop of the session's at the same place: the session's, and no borrowing
        if setting and composite.suspend_policy == SuspendPolicy.EVENT_THREAD and any(
                type(e).KIND == EventKind.METHOD_ENTRY for e in composite.events):
            early.append(composite)  # (a hot loop reports its entry before the Set's reply comes back)
            return True
        return False

    def sort_early() -> None:
        for composite in early:
            if all(getattr(e, "request_id", None) in ids for e in composite.events):
                take(composite)
            else:  # not ours: the session handles it as it would have
                loop.create_task(session._handle_composite(composite))
        early.clear()

    undo = session.add_event_tap(tap)
    try:
        for pattern in patterns or [None]:
            # Count last: it counts only the events the filters before it let through.
            mods = [Mod.ClassMatch(pattern)] if pattern else []
            reply = await vm.send(EventRequest.Set, EventKind.METHOD_ENTRY, SuspendPolicy.EVENT_THREAD,
                                  [*mods, Mod.ClassExclude(PROBE_EXCLUDE), Mod.Count(1)])
            ids.add(reply.request_id)
            if got.done():
                break
        setting = False
        sort_early()
        try:
            thread = await asyncio.wait_for(asyncio.shield(got), timeout)
        except TimeoutError:
            raise NoThread(f"no thread entered a method within {timeout:g}s") from None
    finally:
        setting = False
        sort_early()
        if not got.done():
            got.cancel()  # an event still on its way: its thread is resumed below
        for request in ids:
            with contextlib.suppress(JdwpError, Exception):
                await vm.send(EventRequest.Clear, EventKind.METHOD_ENTRY, request)
        undo()
        for other in extra:
            with contextlib.suppress(Exception):
                await vm.send(ThreadReference.Resume, other)
    return Borrowed(session, vm, thread)
