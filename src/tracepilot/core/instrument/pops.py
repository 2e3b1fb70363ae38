"""PopFrames at probe stops, made safe with several threads: pop, then *park* the thread before it stops.

Why: the JDWP agent pops a frame by resuming the thread for one instruction step and has the thread wait,
inside the agent, for its command thread to suspend it again; the thread then stays suspended there, deep in
the agent's pop code, until it is resumed. Caught there holding the agent's pop lock (it is suspended while it
enters another agent lock that other threads contend for), it makes the next PopFrames of any other thread wait
for that lock forever: the agent's command thread never answers again and no thread moves (seen on JDK 17 and
25 with three threads stopping at one in-JVM condition, about one run in 25: the popped thread parked in
``popFrameCompleteEvent``, the next one blocked entering it, the command thread in ``threadControl_popFrames``).

So a popped thread never waits in the agent: a one-shot breakpoint on that thread, where the pop left it (the
probe's call, not run yet), takes it, and the event that had stopped it at the probe is resumed. The thread
leaves the agent's code and stops at once on the parking breakpoint, like at any breakpoint; that event is
the stop. One pop at a time, each until its thread is parked, so no PopFrames runs while another popped
thread may still be in the agent.

A person's pop at a stop (`pop_frames`) is parked the same way, under the same lock (`pop_and_hold`), and so is
a guest debugger's StackFrame.PopFrames (core/foreign.py; a JDI client's pops hung the agent alike): popping
thread A, resuming all, then popping thread B that stopped again hung the agent within a few hundred rounds,
A having been suspended by B's stop while still in the agent's pop code. There the thread is held by the stop
already: its suspensions are taken back until it runs to its parking breakpoint (one suspending the thread
only), whose event gives the first one back, and is not the session's (`take_held`); the rest are made
again. The thread then stands where the pop left it, held as many times as before, outside the agent.

How many times it is held is read from the books of who holds it (the session's thread book, the guests'
books), not asked of the JVM (ThreadReference.SuspendCount): the agent's command thread answers that count
while its event thread suspends threads for an event and sends it, so the answer may leave out a suspension
whose event came before it (the thread, held once more than lent, never ran to its parking breakpoint: the next
pop waited 5 s and was refused with JDWP error 113), or count one whose event comes after it (that event's
suspension lent twice: once too often held again, held by no one). A book counts an event when it arrives, and
every event that arrives later is lent as it arrives (`suspended_all_elsewhere`, `take_held`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from ...jdwp import EventKind, EventRequest, JdwpError, Mod, StackFrame, SuspendPolicy, ThreadReference
from ...jdwp.events import Composite
from ..errors import TargetError
from ..threads import ThreadBook

# Seconds the next pop waits at most for a parking thread. It parks at once when it runs; it may be held longer
# by a stop of another breakpoint that suspends all threads, or a pause, until they are resumed (a pop meanwhile
# could hang the agent, see above). Probe events hold their own thread only, so none of them holds it.
PARK_WAIT = 120.0
# Seconds a person's pop waits for another pop's thread to park (it is quick unless a stop holds that thread),
# and for its own thread to park before it answers (the thread stands popped either way).
HOLD_WAIT = 5.0


def session_holds(book: ThreadBook, thread: int) -> int:
    """The session's suspensions of `thread` that a pop lends until the thread is parked: not those of events still
    being handled (their handler resumes them, or keeps them as a stop that holds the thread until resumed)."""
    record = book.records.get(thread)
    return max(0, book.expected_count(thread) - book.vm_handling - (record.handling if record is not None else 0))


class Pops:
    def __init__(self, session_holds: Callable[[int], int] = lambda thread: 0) -> None:
        self._lock = asyncio.Lock()
        self._parking: dict[int, tuple[int, Any]] = {}  # parking request -> (thread, what its event answers)
        self._timer: asyncio.TimerHandle | None = None
        self._holder: int | None = None  # the parking request the lock waits for
        # A person's pops: parking request -> (thread, its suspensions to give back, parked)
        self._held: dict[int, tuple[int, int, asyncio.Future[None]]] = {}
        # A guest's suspensions of a probe stop's parking thread, lent (pop_and_park, suspended_all_elsewhere) until
        # it is parked, then made again (`parked`), but those the guest resumed meanwhile (`give_back`)
        self._owed: dict[int, int] = {}
        # A guest debugger's suspensions of a thread (core/foreign.py sets it, with the first guest)
        self.guest_holds: Callable[[int], int] | None = None
        self.session_holds = session_holds  # the session's (`session_holds` over its thread book)

    def owns(self, request_id: int) -> bool:
        return request_id in self._parking

    async def pop_and_park(self, vm: Any, thread: int, frame_id: int, suspend_all: bool,
                           decide: Any) -> int:
        """Pop `frame_id` and the frames above it on the suspended `thread`, then call `decide()` (the thread
        still stands popped, suspended: its frames can be read, its expressions evaluated) for what the
        parking event answers (a stop, or None to let the thread go on); and set the parking breakpoint. The
        caller resumes the thread's event after this returns. Returns the parking request's id."""
        await self._lock.acquire()
        try:
            await vm.send(StackFrame.PopFrames, thread, frame_id)
            location = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames[0].location
            answer = await decide()
            policy = SuspendPolicy.ALL if suspend_all else SuspendPolicy.EVENT_THREAD
            mods = [Mod.ThreadOnly(thread), Mod.LocationOnly(location), Mod.Count(1)]
            request_id = (await vm.send(EventRequest.Set, EventKind.BREAKPOINT, policy, mods)).request_id
        except BaseException:
            self._lock.release()
            raise
        # A guest debugger's suspend-all stops that came while the thread waited at the probe hold it too: they
        # are lent until it is parked, then made again (`parked`), or the guest, whose next pop waits for this
        # one, would wait in vain for the thread it holds itself. As its book counts them now: those that come
        # later are lent as they come (`suspended_all_elsewhere`). (No await from here to `_parking`.)
        lent = self.guest_holds(thread) if self.guest_holds is not None else 0
        self._parking[request_id] = (thread, answer)
        self._holder = request_id
        self._timer = asyncio.get_running_loop().call_later(PARK_WAIT, self._unlock, request_id)
        if lent:
            self._owed[request_id] = lent
            _resume(vm, thread, lent)
        return request_id

    async def pop_and_hold(self, vm: Any, thread: int, frame_id: int) -> None:
        """A person's pop of `frame_id` and the frames above it on the held `thread`; it returns once the
        thread is parked where the pop left it, held as before (or after HOLD_WAIT, when a stop of another
        thread holds it on its way: it parks when resumed, and the next pop waits for that)."""
        try:
            await asyncio.wait_for(self._lock.acquire(), HOLD_WAIT)
        except TimeoutError:
            raise TargetError("another thread popped at a stop is held before it reached the line it was popped "
                              "to: popping now could hang the JVM's debug agent",
                              "resume the program (or that thread), then pop again") from None
        try:
            await vm.send(StackFrame.PopFrames, thread, frame_id)
        except BaseException:
            self._lock.release()
            raise
        try:
            location = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames[0].location
            mods = [Mod.ThreadOnly(thread), Mod.LocationOnly(location), Mod.Count(1)]
            request_id = (await vm.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                                        mods)).request_id
            # (Only for a thread no book says it holds, suspended all the same: the JVM's count is all there is.)
            unbooked = (await vm.send(ThreadReference.SuspendCount, thread)).suspend_count
        except JdwpError:  # (no breakpoint there, as in obsolete code): popped all the same, left where it is
            self._lock.release()
            return
        except BaseException:
            self._lock.release()
            raise
        # Held by the session's stop and the guests' as their books count them now (no await from here to
        # `_held`: what comes later is lent as it comes); a thread held twice runs only when both are undone.
        held = self.session_holds(thread) + (self.guest_holds(thread) if self.guest_holds is not None else 0)
        held = held or unbooked
        parked: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._held[request_id] = (thread, held, parked)
        self._holder = request_id
        self._timer = asyncio.get_running_loop().call_later(PARK_WAIT, self._unlock, request_id)
        _resume(vm, thread, held)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(parked), HOLD_WAIT)

    @property
    def holding(self) -> bool:
        """Is a person's popped thread on its way to being parked (take_held has work)?"""
        return bool(self._held)

    def suspended_all_elsewhere(self, conn: Any) -> None:
        """A suspend-all event the session never sees (a guest debugger's, core/foreign.py) suspended the popped
        threads on their way to parking too: on they go, that suspension held back until they are parked (as
        `take_held` does for the session's). Else a probe stop's thread held so would keep the lock, and the
        guest's next pop, made before it resumes that event, would wait for it in vain. Fire-and-forget: the JVM
        runs the connection's commands in order."""
        for request_id, (thread, held, parked) in list(self._held.items()):
            self._held[request_id] = (thread, held + 1, parked)
            conn.send_unanswered(ThreadReference.Resume, thread)
        for request_id, (thread, _answer) in self._parking.items():
            self._owed[request_id] = self._owed.get(request_id, 0) + 1
            conn.send_unanswered(ThreadReference.Resume, thread)
        conn.flush()

    @property
    def parking(self) -> bool:
        """Is any popped thread on its way to being parked (suspended_all_elsewhere has work)?"""
        return bool(self._held or self._parking)

    def lending(self) -> list[int]:
        """Threads on their way to parking that are to be held again once parked (`give_back` takes one)."""
        return [t for t, held, _p in self._held.values() if held > 0] + \
            [t for r, (t, _a) in self._parking.items() if self._owed.get(r, 0) > 0]

    def give_back(self, thread: int) -> bool:
        """A guest resumes its share of `thread` while the thread is on its way to parking, its suspensions
        lent: it is held once less when parked. True if so; then the resume must not reach the thread (the
        JVM would take it off another owner's share, or off none: a running thread's count stays 0)."""
        for request_id, (t, held, parked) in self._held.items():
            if t == thread and held > 0:
                self._held[request_id] = (t, held - 1, parked)
                return True
        for request_id, (t, _answer) in self._parking.items():
            if t == thread and self._owed.get(request_id, 0) > 0:
                self._owed[request_id] -= 1
                return True
        return False

    async def take_held(self, vm: Any, composite: Any) -> Any:
        """The part of an event packet that is the session's (None: none of it): a person's popped thread
        parked, held again as before the pop. Its parking event's suspension stands for one of those it had."""
        mine = [e for e in composite.events if getattr(e, "request_id", None) in self._held]
        if composite.suspend_policy == SuspendPolicy.ALL:
            # Another thread's stop suspended the popped thread too, maybe still in the agent's pop code: on to
            # its parking breakpoint, holding this suspension back until it is there (another thread's stop
            # came with the pop, often, where several threads hit one breakpoint).
            for request_id, (thread, held, parked) in list(self._held.items()):
                if not any(e.request_id == request_id for e in mine):
                    self._held[request_id] = (thread, held + 1, parked)
                    await vm.send(ThreadReference.Resume, thread)
        if not mine:
            return composite
        rest = [e for e in composite.events if not any(e is m for m in mine)]
        for event in mine:
            thread, held, parked = self._held.pop(event.request_id)
            self._unlock(event.request_id)
            with contextlib.suppress(JdwpError):  # (expired with its Count already)
                await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, event.request_id)
            # Another event where the thread stands (a breakpoint there) is the session's, with the packet's
            # suspension: the thread gets all of its own back.
            for _ in range(held if rest else held - 1):
                await vm.send(ThreadReference.Suspend, thread)
            if held == 0 and not rest:  # (all given back meanwhile: the parking event's suspension goes too)
                await vm.send(ThreadReference.Resume, thread)
            if not parked.done():
                parked.set_result(None)
        return Composite(composite.suspend_policy, rest) if rest else None

    async def parked(self, vm: Any, request_id: int) -> Any:
        """The parking breakpoint's event: the next pop may go; what the stop at the probe decided."""
        thread, answer = self._parking.pop(request_id)
        self._unlock(request_id)
        for _ in range(self._owed.pop(request_id, 0)):  # a guest's stops that came on its way: held for them again
            await vm.send(ThreadReference.Suspend, thread)
        with contextlib.suppress(JdwpError):  # (expired with its Count already)
            await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
        return answer

    def _unlock(self, request_id: int | None) -> None:
        if request_id != self._holder:
            return  # (parked after its wait ran out: the lock went on to another pop)
        self._holder = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._lock.locked():
            self._lock.release()

    def forget(self) -> None:
        self._parking.clear()
        self._owed.clear()
        for _thread, _held, parked in self._held.values():
            if not parked.done():
                parked.set_result(None)
        self._held.clear()
        self._unlock(self._holder)


def _resume(vm: Any, thread: int, times: int) -> None:
    """`times` resumes of `thread`, written now, unanswered: the JVM runs the connection's commands in order, and a
    guest's resume sent meanwhile cannot come between them."""
    conn = vm.conn
    for _ in range(times):
        conn.send_unanswered(ThreadReference.Resume, thread)
    conn.flush()
