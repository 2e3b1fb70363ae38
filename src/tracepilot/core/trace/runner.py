"""One `trace` call: check the program runs (or resume it), trace in the JVM or by round trip for the
duration, and build the answer. The duration is kept as the counting window: it runs from the moment the
requests (or the probes) are in place and the program runs to the moment counting ends (the round trip's
clock stops; in the JVM, the Suspend that reads the probes), whatever max_calls says; a stop of the whole
program ends the trace early, saying so. The call takes longer (instrumenting before, reading after): the
answer says how long each took."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from ...jdwp import JdwpTransportError
from ..errors import DebuggerError, InvalidArgument
from ..model import Actor, SessionState, TraceResult
from . import folded as folded_format
from .round_trip import Tracer, tap_events
from .tree import Trees

POLL = 0.05  # seconds between looks at the session's state while tracing

ROUND_TRIP_TIMING = ("times not measured: by round trip every call costs the program a JDWP event (tens of us, "
                     "more than most methods take), so the time between events would say how slow the debugger "
                     "is, not the method")


def held(session: Any) -> bool:
    """Is the whole program held by the debugger (a stop that suspended all threads, or the VM's start)?"""
    all_held = getattr(session, "_all_held", None)
    return session.state is SessionState.STOPPED and (all_held is None or all_held())


def not_running(session: Any) -> DebuggerError:
    stop = session.stop
    where = stop.headline() if stop is not None else "suspended"
    return DebuggerError(f"the program is not running (stopped: {where}): a trace now would count 0 calls",
                         "call trace with resume=true (at the prompt: trace PATTERN SECONDS resume) to resume "
                         "the program and trace it, or resume first")


async def wait_window(session: Any, conn: Any, duration: float, died: asyncio.Future | None = None) -> str:
    """Wait `duration` seconds while the program runs; why the wait ended: duration, stop or vm_death
    (the connection closed, or `died`: the VM held at its death)."""
    deadline = time.monotonic() + duration
    closed = asyncio.ensure_future(conn.wait_closed())
    ends = {closed} if died is None else {closed, died}
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "duration"
            done, _ = await asyncio.wait(ends, timeout=min(POLL, remaining))
            if done:
                return "vm_death"
            if held(session):
                return "stop"
    finally:
        closed.cancel()


def answer(pattern: str, trees: Trees, calls: int, duration_ms: float, name: Any, thread_name: Any, *,
           stopped_by: str, dropped: int, mode: str, mode_reason: str, timed: bool, timing: str,
           folded: str | None, folded_by: str | None, session: Any) -> TraceResult:
    busiest = trees.busiest()
    note = ""
    if stopped_by == "stop" and session.stop is not None:
        note = f"the program stopped: {session.stop.headline()}"
    elif stopped_by == "vm_death":
        note = "the program ended during the trace"
    path = None
    if folded:
        by = folded_by or ("time" if timed else "calls")
        if by == "time" and not timed:
            raise DebuggerError("folded_by=time needs the times of an in-JVM trace; this one ran by round trip "
                                f"({mode_reason})", "use folded_by=calls")
        path = folded_format.write(folded, list(folded_format.lines(trees, name, thread_name, by)))
    return TraceResult(pattern, calls, round(duration_ms, 1), trees.methods(name, timed),
                       thread_name(busiest) if busiest is not None else None,
                       trees.tree(busiest, name) if busiest is not None else [], stopped_by, dropped,
                       mode=mode, mode_reason=mode_reason, timing=timing, folded=path, note=note)


async def resume_if_asked(session: Any, resume: bool, actor: Actor) -> None:
    if held(session):
        if not resume:
            raise not_running(session)
        await session.resume(None, 0, actor)


IN_JVM_TIMING = ("times measured in the JVM with System.nanoTime (total: with its callees; own: without the "
                 "traced ones); a method averaging under 1 us is timed on 1 call in 16 past its first 256 "
                 "(sampled), every call counted; tiny leaves (no call, no loop, a few ns) are counted, not timed: "
                 "their time is in their callers' own time; the probe's own cost, a few ns a call, is in its "
                 "callers' times")
BORROW_TIMEOUT = 3.0  # seconds a running program has to enter a traced method (to define the probe in)


def held_note(tracer: Any) -> str:
    """What instrumenting cost the program, and the methods a thread was inside when it began."""
    parts = []
    if tracer.held_ms:
        parts.append(f"the program was held for {tracer.held_ms:.0f} ms to instrument")
    pending = tracer.pending
    if tracer.joined_late:
        parts.append("methods a thread was inside at the start were instrumented when it had left them "
                     "(their calls before not counted)")
    if tracer.loops:
        parts.append(f"not traced: {', '.join(tracer.loops[:3])}{' and more' if len(tracer.loops) > 3 else ''} "
                     "(a loop jumps back to the first instruction, where the entry probe would go)")
    if tracer.skipped:
        parts.append(f"{len(tracer.skipped)} matching class(es) without a class file not traced (lambdas, "
                     "generated classes: their calls reach a traced method of their host class)")
    if pending:
        shown = ", ".join(pending[:5]) + (f" and {len(pending) - 5} more" if len(pending) > 5 else "")
        parts.append(f"not counted: {shown} (a thread was inside, its frame runs the code it started with; "
                     "their callees show as roots)")
    return "; ".join(parts)


async def trace_in_jvm(session: Any, vm: Any, patterns: list[str], pattern: str, duration: float, resume: bool,
                       actor: Actor, folded: str | None, folded_by: str | None,
                       max_calls: int | None = None) -> TraceResult | str:
    """The trace run in the JVM, or why not (then the round trip traces). At a stop (resume=true) a stopped
    thread defines the probe; on a running program the first thread to enter a traced method does, and the
    program is held only for the moment of the redefinition."""
    from .borrow import NoThread, borrow_thread  # noqa: PLC0415 (javac and class files only when tracing)
    from .death import DeathWatch  # noqa: PLC0415
    from .in_jvm import Fallback, InJvmTrace  # noqa: PLC0415

    called = time.monotonic()
    tracer = InJvmTrace(session, vm, patterns)
    if max_calls is not None:  # bounds the first calls recorded with their values, never the counting
        tracer.max_recorded = min(tracer.max_recorded, max(0, max_calls))
    running = not held(session)
    borrowed = None
    try:
        if running:
            tracer.check()
            try:
                borrowed = await borrow_thread(session, vm, patterns, BORROW_TIMEOUT)
            except NoThread as exc:
                raise Fallback(str(exc)) from None
            await tracer.prepare(borrowed.thread)
            # Released before the instrumenting: it may be the thread a server accepts connections on; and
            # before the stacks are looked at, as it stands inside a traced method.
            await borrowed.release()
            await tracer.build()
            await tracer.apply(hold=True)
        else:
            await tracer.install()
    except Exception as exc:
        if vm.conn.is_closed:  # the program ended (or the VM went) before the trace began: said, not an error
            return ended_before(session, pattern, time.monotonic() - called, "in-JVM", "", folded)
        if not isinstance(exc, Fallback):  # a bug here must cost the speed-up, never the trace
            logging.getLogger(__name__).exception("in-JVM tracing failed to start")
        if borrowed is not None:
            await borrowed.release()
        if isinstance(exc, Fallback):
            await tracer.restore()
            return str(exc)
        with contextlib.suppress(Exception):
            await tracer.restore()
        return f"internal error while instrumenting: {exc!r}"
    stopped_by = "duration"
    note = ""
    rejoin: asyncio.Task | None = None
    death = DeathWatch(session, vm)
    held_before = tracer.held_ms  # holding the program to instrument, before the window opened
    try:
        try:
            await death.start()
            await resume_if_asked(session, resume, actor)
        except Exception:
            if not vm.conn.is_closed:
                raise
            stopped_by = "vm_death"  # gone while the trace started: answered as when it goes during it
        if tracer.counting_since is None:  # instrumented at a stop: the probes count from the resume
            tracer.counting_since = time.monotonic()
        if stopped_by != "vm_death":
            session.history.add("trace", f"tracing {pattern} in the JVM for {duration:g}s", actor,
                                window="in-JVM")
            rejoin = asyncio.ensure_future(tracer.rejoin())
            rejoin.tracer = tracer  # type: ignore[attr-defined]
            # The probes have counted since the program ran instrumented (what came after, the classes'
            # names, the death watch, is inside the window): the duration is from then to the read.
            remaining = tracer.counting_since + duration - time.monotonic()
            stopped_by = await wait_window(session, vm.conn, max(0.0, remaining), death.died)
        ended = time.monotonic()
        if rejoin is not None:
            await _end(rejoin)
        note = held_note(tracer)  # (before finish: the classes are forgotten once restored)
        if stopped_by != "vm_death":
            await tracer.finish()
        elif death.died.done():  # held as it dies: its counts are read before it goes
            with contextlib.suppress(Exception):
                await tracer.read()
            note = "; ".join(x for x in ("its counts were read as it ended", note) if x)
    finally:
        if rejoin is not None:
            await _end(rejoin)
        await death.release()
        if stopped_by != "vm_death":
            await tracer.restore()
    # The window closes at the read's Suspend; a stop or the VM's death closed it when the wait saw it.
    until = tracer.counting_until or ended
    if stopped_by != "duration":
        until = min(until, ended)
    result = answer(pattern, tracer.trees, tracer.calls, (until - tracer.counting_since) * 1000, tracer.name,
                    tracer.thread_name, stopped_by=stopped_by, dropped=0, mode="in-JVM", mode_reason="", timed=True,
                    timing=IN_JVM_TIMING, folded=folded, folded_by=folded_by, session=session)
    result.first_calls = tracer.first_calls
    result.held_ms = round(tracer.held_ms, 1)
    spent(result, tracer.counting_since - called, time.monotonic() - until, held_before, tracer.read_held_ms)
    result.note = "; ".join(x for x in (result.note, note) if x)
    return result


def ended_before(session: Any, pattern: str, waited_s: float, mode: str, mode_reason: str,
                 folded: str | None) -> TraceResult:
    """The answer when the program ended (its VM gone) before the trace's window opened: nothing counted."""
    result = answer(pattern, Trees(), 0, 0.0, str, str, stopped_by="vm_death", dropped=0, mode=mode,
                    mode_reason=mode_reason, timed=False, timing="", folded=folded, folded_by="calls",
                    session=session)  # (nothing counted: an empty folded file, whatever it was to be weighed by)
    result.note = "the program ended before the trace began: nothing was counted"
    spent(result, waited_s, 0.0)
    return result


def spent(result: TraceResult, setup_s: float, read_s: float, held_ms: float | None = None,
          read_held_ms: float | None = None) -> None:
    """What the call spent around its counting window (`duration` is the window; the call takes longer)."""
    result.setup_ms = round(max(0.0, setup_s) * 1000, 1)
    result.read_ms = round(max(0.0, read_s) * 1000, 1)
    result.setup_held_ms = round(held_ms, 1) if held_ms else None
    result.read_held_ms = round(read_held_ms, 1) if read_held_ms else None


async def _end(task: asyncio.Task) -> None:
    """Stop the late instrumenting: between two looks (a look holds the program, it is never cut short)."""
    if task.done():
        with contextlib.suppress(BaseException):
            task.result()
        return
    task.tracer.stop_rejoin()  # type: ignore[attr-defined]
    with contextlib.suppress(BaseException):
        await task


class Traces:
    """The session's traces: one at a time; the round trip's requests are cleared after its answer."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self._tracing = False
        self._trace_cleanup: asyncio.Future[None] | None = None

    async def _untrace(self, tracer: Tracer, undo: Any) -> None:
        try:
            await tracer.uninstall()
        finally:
            undo()
            self._tracing = False
            self._trace_cleanup = None

    async def trace(self, vm: Any, pattern: str, duration: float, max_calls: int, actor: Actor,
                    resume: bool = False, folded: str | None = None, folded_by: str | None = None) -> TraceResult:
        called = time.monotonic()  # (the round trip's set-up includes the in-JVM attempt before it)
        if self._tracing:
            raise InvalidArgument("a trace is already running", "wait for it to finish")
        patterns = [x.strip() for x in pattern.split(",") if x.strip()]
        if not patterns:
            raise InvalidArgument("empty trace pattern", "give classes to trace, e.g. com.acme.*")
        if held(self.session) and not resume:
            raise not_running(self.session)
        if self._trace_cleanup is not None:
            await asyncio.wait({self._trace_cleanup}, timeout=30)  # the last trace's requests are cleared
        self._tracing = True
        try:
            traced = await trace_in_jvm(self.session, vm, patterns, pattern, duration, resume, actor, folded,
                                        folded_by, max_calls)
        finally:
            self._tracing = False
        if isinstance(traced, TraceResult):
            self.session.history.add("trace", f"trace of {pattern} in the JVM: {traced.calls} calls", actor)
            return traced
        tracer = Tracer(vm, patterns, max(1, max_calls))
        self._tracing = True
        undo = tap_events(self.session, tracer)
        try:
            try:
                await tracer.install()
            except (DebuggerError, JdwpTransportError):
                if not vm.conn.is_closed:
                    raise
                return ended_before(self.session, pattern, time.monotonic() - called, "round trip", traced, folded)
            await resume_if_asked(self.session, resume, actor)
            started = time.monotonic()
            self.session.history.add("trace", f"tracing {pattern} for {duration:g}s", actor, window="round trip")
            tracer.deadline = started + duration
            stopped_by = await wait_window(self.session, vm.conn, duration)
            tracer.closed = True  # the clock stops here: events still in the pipe are not counted
            elapsed = min(time.monotonic(), tracer.deadline) - started
        finally:
            # Clearing the requests waits behind the events still in the connection (a second or more when
            # a hot method floods it): the answer does not; the tap swallows them until the Clears are done.
            self._trace_cleanup = asyncio.ensure_future(self._untrace(tracer, undo))
        await tracer.settle()
        result = answer(pattern, tracer.trees, tracer.calls, elapsed * 1000, tracer.name, tracer.thread_name,
                        stopped_by=stopped_by, dropped=tracer.dropped, mode="round trip",
                        mode_reason=traced,
                        timed=False, timing=ROUND_TRIP_TIMING, folded=folded, folded_by=folded_by,
                        session=self.session)
        spent(result, started - called, time.monotonic() - (started + elapsed))
        self.session.history.add("trace", f"trace of {pattern}: {result.calls} calls", actor)
        return result
