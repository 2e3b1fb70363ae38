"""The reads a stop makes while it is handled (the top frame, its depth, its locals and their previews),
sent as one burst (stop_burst.py) and taken from it: the same requests and answers as asked one after the
other, one round trip instead of three.

At the stop the burst only holds its place in the connection's write queue (JdwpConnection.hold_place):
whatever is sent once the stop is known leaves after it, and the JVM runs a connection's commands in the
order they arrive, so the burst answers for the stop as it is. The stop is handed over first; the burst is
planned, made and written in the next event-loop turn, after the woken calls ran (`handed_over`: the write,
a system call that wakes the JVM, is no part of knowing the stop), or at once when something waits for it
(`settled`).
Everything that shows a stop's locals, reads what changed, or lets a thread run first waits for them
(`settled`: Inspector._ready and snapshot, Session._send_release, the next event's handling).

A call that waits for reads not started yet makes them itself, in its own task: no task of their own to
start and to wake it when done (two event-loop turns less per stop). Should that call be cancelled while it
reads, the reading starts over in a task of its own (fresh requests: the stop is the same, nothing runs on
before its locals are read), which the others waiting wait for, as they would have.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any

from ...jdwp import Location
from ..eager import run_eagerly
from ..model import Variable
from .stop_burst import Burst, Plan, Primed, Recipes, send_burst, slot_request

log = logging.getLogger(__name__)
_READING: contextvars.ContextVar[Any] = contextvars.ContextVar("stop_reads_reading", default=None)  # (settled)


class StopReads:
    def __init__(self) -> None:
        self._at: dict[int, tuple[Any, Location]] = {}  # id(stop) -> (stop, the event's location)
        self.recipes = Recipes()
        # (for tests and benchmarks) bursts sent; stops that took a primed reply; frame id guesses right and
        # wrong; the last stop's locals as noted ({name: text}), to compare with a fresh read
        self.bursts = 0
        self.values_taken = 0
        self.guessed = 0
        self.missed = 0
        self.noted: tuple[Any, dict[str, str]] | None = None
        self._following: asyncio.Future[None] | None = None  # a stop's locals still being read
        self._waiting: list[asyncio.Future[None]] = []  # calls in settled() until they are
        # (the reading not started yet, the write-queue place it holds, a reading of its own without that place)
        self._later: tuple[Any, Any, Any] | None = None
        self._later_scheduled = False

    def follow(self, reading: Any) -> None:
        """Take a stop's replies in a task of their own (`reading`, a coroutine): the stop is known now. It
        starts at once (core/eager.py): its requests leave in this turn, not the next one."""
        self._following = run_eagerly(asyncio.get_running_loop(), self._read(reading), contextvars.copy_context())

    def follow_after_handover(self, start: Any, place: Any, again: Any) -> None:
        """Start `start()` (a coroutine: the stop's reads at `place`, held in the write queue) once the stop
        is handed over (`handed_over`, called by the session once it woke the waiting calls), or at once when
        something waits for it first (settled). `again()`: the same reads without the place (settled's caller
        was cancelled while it made them)."""
        self._later = (start, place, again)
        self._later_scheduled = False

    def handed_over(self) -> None:
        """The stop's waiting calls are woken: the reads start in the next event-loop turn, after them (their
        wake-ups were queued first), or earlier when something waits for them (settled)."""
        if self._later is not None and not self._later_scheduled:
            self._later_scheduled = True
            asyncio.get_running_loop().call_soon(self._start_later)

    def _start_later(self) -> None:
        later, self._later = self._later, None
        if later is not None:
            self.follow(later[0]())

    async def _read(self, reading: Any) -> None:
        try:
            await _logged(reading)
        finally:  # (each waiting call is woken in one step: no shield or wait() around the task)
            self._wake_waiting()

    async def _read_here(self, reading: Any, again: Any) -> None:
        """Make the stop's reads in this task (settled's caller); others calling settled wait for them."""
        following = asyncio.get_running_loop().create_future()
        self._following = following
        inside = _READING.set(following)
        try:
            try:
                await reading
            except Exception as exc:  # noqa: BLE001 - as _logged: the stop stays, without locals
                log.debug("reading a stop's locals failed: %s", exc)
        except asyncio.CancelledError:
            # This caller gave up meanwhile: the reads start over in a task of their own, as they would have
            # gone on in one. (Who waits in settled() is woken when that task is done.)
            _READING.reset(inside)
            forgotten = self._following is not following  # (the VM went away meanwhile)
            self._finish_here(following)
            if forgotten:
                self._wake_waiting()
            else:
                self.follow(again())
            raise
        except BaseException:
            _READING.reset(inside)
            self._finish_here(following)
            self._wake_waiting()
            raise
        _READING.reset(inside)
        self._finish_here(following)
        self._wake_waiting()

    def _finish_here(self, following: asyncio.Future[None]) -> None:
        following.set_result(None)
        if self._following is following:
            self._following = None

    def _wake_waiting(self) -> None:
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            if not waiter.done():
                waiter.set_result(None)

    @property
    def done(self) -> bool:
        """Nothing to wait for (settled() would return at once): asked first on the stop path, where a
        coroutine per check costs more than the check."""
        task = self._following
        return self._later is None and (task is None or task.done())

    async def settled(self) -> None:
        """Wait until the last stop's locals are read (at once when they are)."""
        later = self._later
        if later is not None and (self._following is None or self._following.done()):
            self._later = None
            await self._read_here(later[0](), later[2])
            return
        self._start_later()
        task = self._following
        if task is None or task is asyncio.current_task() or _READING.get() is task:
            return  # (asked by the reading itself)
        if not task.done():
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            await waiter  # (a caller cancelled meanwhile does not cancel the reading)
        if self._following is task:
            self._following = None

    def noted_for(self, stop: Any) -> bool:
        """Is there an event location for `stop` (so a burst can be planned)?"""
        noted = self._at.get(id(stop))
        return noted is not None and noted[0] is stop and bool(stop.thread_id)

    def note(self, stop: Any, location: Location | None) -> None:
        """The location the event of `stop` names (its thread's top frame, for breakpoints and steps)."""
        if location is None or location.method_id == 0:
            return
        if len(self._at) > 64:
            self._at.clear()
        self._at[id(stop)] = (stop, location)

    def forget(self) -> None:
        self._at.clear()
        self._following = None
        later, self._later = self._later, None
        if later is not None:
            later[1].release()

    def plan(self, vm: Any, frames: Any, stop: Any) -> Plan | None:
        """What the burst for `stop` reads (None when its event named no location); nothing is sent. The
        values are read ahead only when the method's tables are cached (they are from its first stop on):
        a request for them would wait behind the burst's held place."""
        noted = self._at.pop(id(stop), None)
        if noted is None or noted[0] is not stop or not stop.thread_id:
            return None
        location = noted[1]
        tid = stop.thread_id
        predicted = frames.guess.predict(tid)
        slots: tuple[tuple[int, int], ...] | None = None
        with_this = False
        if predicted is not None:
            method = frames.known_method(location.class_id, location.method_id)
            live = frames.known_live_slots(location, method)
            if live is None or method is None:
                predicted = None  # (read the usual way, after the Frames reply)
            else:
                slots = slot_request(live)
                with_this = not method.is_static and not method.is_native
        return Plan(tid, location, predicted, slots, with_this, self.recipes.get(location))

    def send(self, place: Any, plan: Plan) -> Burst:
        """Make the burst's requests at `place` (a held place in the write queue, or the connection)."""
        self.bursts += 1
        return send_burst(place, plan)

    async def variables(self, vm: Any, frames: Any, values: Any, thread_id: int, top: Any,
                        burst: Burst | None) -> list[Variable]:
        """The top frame's locals, their reads taken from the burst where it asked the same; the object
        reads they made become the recipe for the next stop at this place."""
        primed = burst.primed if burst is not None else Primed()
        vm.primed = primed
        try:
            variables = await frames.variables(thread_id, top, values)
        finally:
            vm.primed = None
        if primed.taken:
            self.values_taken += 1
        if burst is not None and burst.predicted is not None:
            if top.frame_id == burst.predicted:
                self.guessed += 1
            else:
                self.missed += 1
        self.recipes.put(top.location, primed.recorded)
        return variables


async def _logged(reading: Any) -> None:
    try:
        await reading
    except Exception as exc:  # noqa: BLE001 - e.g. the VM went away meanwhile: the stop stays, without locals
        log.debug("reading a stop's locals failed: %s", exc)
