"""Execution control: waiting for a stop, resume, pause, step and run_to (each stop delivered once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from ...jdwp import (
    EventKind,
    EventRequest,
    JdwpError,
    Mod,
    StepDepth,
    StepSize,
    SuspendPolicy,
    ThreadGroupReference,
    ThreadReference,
    VirtualMachine,
)
from ..errors import InvalidArgument, NotStopped
from ..inspect.threads import is_system
from ..instrument.hidden import top_location
from ..instrument.naming import EXCLUDE_PATTERN as PROBE_EXCLUDE
from ..model import (
    Actor,
    CodeLocation,
    SessionState,
    StopKind,
    StopReason,
    WaitResult,
)
from ..states import session_move
from ..threads import Release, stop_label
from .base import SessionBase, StepState
from .blocked import blocked_by_suspended
from .deadlines import EXPIRED
from .step_origin import step_start

log = logging.getLogger(__name__)


class Execution(SessionBase):
    # -- waiting -------------------------------------------------------------------------------------

    def _notify_waiters(self) -> None:
        if not self._waiters:  # (asked twice a stop: the second time nobody waits any more)
            return
        for waiter in list(self._waiters):
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def wait_for_stop(self, timeout: float, *, new_only: bool = False) -> WaitResult:
        """The next stop not delivered yet (each stop is delivered to exactly one waiting call); when none
        comes, the current stop (unless `new_only`: resume or step of one thread wants a new one), or
        "still running" after `timeout` seconds. On a dead VM with a remembered target it reconnects, as
        every other call does, and says so."""
        return await self._wait_for_stop(timeout, new_only)

    async def _wait_for_stop(self, timeout: float, new_only: bool) -> WaitResult:
        started = time.monotonic()
        deadline = started + max(timeout, 0.0)
        pauses = self.pauses
        if self.state is SessionState.EXITED and self.target and self.launched is None and timeout > 0:
            # The VM died: try the remembered target once, as every other call does (and say so if it answers).
            # A zero timeout only asks for the state: it does not reconnect.
            with contextlib.suppress(Exception):
                await self.ensure_connected(min(timeout, 2.0))
        while True:
            if not self._stopping:
                pending = self.threads.undelivered()
                if pending:
                    return await self._deliver(pending[0], started)
                if self.state is SessionState.STOPPED and self.stop is not None and not new_only and self._all_held():
                    return self._result(True, started, self.stop)  # already stopped, and nothing else can stop
                if self.pauses != pauses and self.state is SessionState.STOPPED and self.stop is not None:
                    who = self.paused_by.value if self.paused_by is not None else "someone"
                    return self._result(True, started, self.stop, f"the {who} paused the program while this call waited")
            if self.state in (SessionState.EXITED, SessionState.DISCONNECTED):
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._waiters.add(waiter)
            # Answered by a stop, or at its deadline by the session's one timer (deadlines.py: no timer, Timeout
            # or wait_for made and cancelled on every stop)
            self._deadlines.add(waiter, remaining)
            try:
                if await waiter is EXPIRED:
                    break
            finally:
                self._deadlines.discard(waiter)
                self._waiters.discard(waiter)
        if self.state is SessionState.EXITED:
            return self._result(False, started, self.stop, "the VM terminated")
        if self.state is SessionState.DISCONNECTED:
            return self._result(False, started, None, "not attached: call attach or launch")
        if self.state is SessionState.STOPPED and self.stop is not None and not new_only:
            return self._result(True, started, self.stop, f"no other thread stopped within {timeout:g}s; "
                                "still stopped here (the other threads keep running)")
        if timeout > 0:
            message = f"still running after {timeout:g}s"
            if self.state is SessionState.STOPPED and self.stop is not None:
                message += f" (no new stop; still stopped: {self.stop.headline()})"
            return self._result(False, started, None, message)
        return self._result(False, started, None, "running")

    def _all_held(self) -> bool:
        """Is every thread suspended by the debugger (so no new stop can come until something is resumed)?"""
        book = self.threads
        return book.vm_holds > 0 and not any(r.credit or r.call for r in book.records.values())

    def _result(self, stopped: bool, started: float, stop: StopReason | None, message: str = "") -> WaitResult:
        if stopped and stop is not None:  # whichever way a call answers with a stop, it is answered now
            record = self.threads.records.get(stop.thread_id or 0)
            if record is not None and record.stop is stop:
                record.delivered = True
        note, self._reconnect_note = self._reconnect_note, None
        if note:
            message = f"{note}; {message}" if message else note
        return WaitResult(stopped, self.state, stop, int((time.monotonic() - started) * 1000), message,
                          pending=self.threads.undelivered_count(other_than=stop),
                          reconnected=note)

    async def _deliver(self, record: Any, started: float) -> WaitResult:
        """Hand one stop to the waiting call: it becomes delivered and the current stop."""
        record.delivered = True
        stop = record.stop
        if stop is not self.stop or self._hooked.get(id(stop)) is not stop:  # (else current already: no coroutine)
            await self._select(stop)
        return self._result(True, started, stop)

    async def _select(self, reason: StopReason | None) -> None:
        """Make `reason` the current stop (watchers and changed values are computed for it once)."""
        hooked = reason is not None and self._hooked.get(id(reason)) is reason
        if reason is self.stop and (reason is None or hooked):
            return
        if reason is not self.stop:  # (_after_release may have made it current already: the hook still runs)
            self.stop = reason
            self.stop_generation += 1
        if reason is None:
            return
        self._set_state(SessionState.STOPPED, "select a stop")
        if self._hooked.get(id(reason)) is reason:
            return
        if len(self._hooked) >= 10_000:
            self._hooked.clear()
        self._hooked[id(reason)] = reason
        self._stopping = True
        try:
            if reason.kind not in (StopKind.VM_START, StopKind.VM_DEATH):  # nothing has run yet: no values
                await self.inspector.on_stop()
        except NotImplementedError:
            pass
        except Exception as exc:  # watchers failing must not lose the stop
            log.warning("on_stop hook failed: %s", exc)
        finally:
            self._stopping = False
            self._notify_waiters()  # a call that began waiting meanwhile looks at the stops again
            reads = getattr(self.inspector, "stop_reads", None)  # (a session without an inspector: none)
            if reads is not None:
                reads.handed_over()  # the stop's reads start after the woken calls ran

    def _set_state(self, new: SessionState, why: str) -> None:
        self.state = session_move(self.state, new, why)

    def _after_release(self) -> None:
        """After threads were resumed: the current stop is the newest remaining one, or none (RUNNING)."""
        remaining = self.threads.stops()
        if self.stop is not None and any(r.stop is self.stop for r in remaining):
            return
        delivered = [r for r in remaining if r.delivered]
        choice = (delivered or remaining or [None])[-1 if delivered else 0]
        self.stop_generation += 1
        if choice is None:
            self.stop = None
            if self.state is SessionState.STOPPED:
                self._set_state(SessionState.RUNNING, "last stop released")
        else:
            self.stop = choice.stop

    # -- execution -----------------------------------------------------------------------------------

    async def resume(self, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        """Resume all threads, or one. All: every delivered stop and pause is released; a stop that no call
        has returned yet stays suspended and is returned at once: no stop is released before it was answered
        (issue 25, point 8). One thread: only its suspensions are released (the others stay as they are) and
        the call waits for a *new* stop; an agent's resume of a thread whose stop no call returned yet gets
        that stop instead, the thread still suspended. A person's front end (REPL, TUI, DAP) shows each stop
        as it arrives, so for a person the current stop, and the stop of a thread they resume, count as
        answered; an agent learns of stops only from the answers of its calls."""
        conn = self.conn
        if self._vm is None or conn is None or conn.is_closed:  # (no coroutine on every resume when connected)
            await self.ensure_connected()
        if self.breakpoints.freed_lines:  # (a line's last breakpoint back into the JVM: shared_lines.py)
            await self.breakpoints.lines_freed()
        if actor is Actor.PERSON:
            self._shown_to_person(self.stop)
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            record = self.threads.records.get(tid)
            if actor is Actor.PERSON and record is not None:
                self._shown_to_person(record.stop)
            if record is not None and record.stop is not None and not record.delivered and not record.call:
                started = time.monotonic()
                result = await self._deliver(record, started)
                result.message = (f"thread {record.name or tid} stopped before this call resumed it: here is that "
                                  "stop (the thread is still suspended; resume it again to let it run)")
                return result
            if self._step is not None and self._step.thread_id == tid:
                await self._cancel_step()  # resuming the stepping thread: run, don't stop at the step's end
            release = self.threads.release_thread(tid)
            await self._send_release(release)
            self.history.add("resume", f"resumed thread {await self.vm.thread_name(tid)}", actor, thread=tid)
            self._after_release()
            result = await self.wait_for_stop(timeout, new_only=True)
            if not result.stopped and self.conn is not None and not self.conn.is_closed:
                blocked = await blocked_by_suspended(self.vm, tid)
                if blocked:  # it can never run this way: say why and what to do, not just "still running"
                    result.note = blocked
                    if timeout > 0:
                        result.message = f"{blocked} (still blocked after {timeout:g}s)"
            return result
        if self._step is not None:
            await self._cancel_step()  # a step still under way ("still running") ends with a resume
        if self.state is SessionState.STOPPED or self.threads.vm_holds or self.threads.suspended():
            # (The Resume is written as soon as it is known: the bookkeeping after it, and the setting up of the
            # wait, run while the JVM runs to the next stop, not before. Measured: ~0.05 ms of 0.8 ms per stop.)
            await self._release_all()
            self.history.add("resume", "resumed", actor)
            return await self.wait_for_stop(timeout, new_only=True)
        return await self.wait_for_stop(timeout, new_only=True)

    def _shown_to_person(self, stop: StopReason | None) -> None:
        """A stop a person's front end has shown (the current one, one in the threads view) is answered."""
        record = self.threads.records.get(stop.thread_id or 0) if stop is not None else None
        if record is not None and record.stop is stop:
            record.delivered = True

    async def _cancel_step(self) -> None:
        step, self._step = self._step, None
        await self._clear_step_request(step)
        await self._clear_exit_request(step)

    async def _release_all(self) -> None:
        # Stops no call has returned yet stay (the next answer is one of them), the current one too: a stop
        # that arrived while no call waited became current without being answered (issue 25, point 8).
        if self.breakpoints.in_jvm.has_retired() and self._all_held():
            await self.breakpoints.in_jvm.settle()  # nothing runs: the moment to restore classes whose probes went inert
        keep = {r.id for r in self.threads.undelivered()}
        release = self.threads.release_all(keep)
        await self._send_release(release)
        self._after_release()

    async def _send_release(self, release: Release) -> None:
        """Send what `release` lifts, and write it now (the JVM runs on while the caller's bookkeeping runs)."""
        conn = self.conn
        if conn is None or conn.is_closed or not release:
            return
        reads = self.inspector.stop_reads
        if not reads.done:
            try:
                await reads.settled()  # a stop's locals are read before its thread runs on
            except asyncio.CancelledError:
                # The book has let these suspensions go already: a caller cancelled here (a call given up) must
                # still send them, or the threads stay suspended with no one holding them (a resume cancelled
                # just after a stop, while its locals were read: seen beside a guest debugger's pops).
                if self.conn is conn and not conn.is_closed:
                    later = asyncio.ensure_future(self._send_release(release))
                    self._handlers.add(later)
                    later.add_done_callback(self._handlers.discard)
                raise
        if conn.is_closed or self.conn is not conn:
            return
        # In order: credited threads are suspended again before the VM-wide resumes (see threads.py).
        # Their replies are not awaited: the JVM runs a connection's commands in order, so whatever this session
        # sends next is handled after them, and a failed resume was only ever logged. Waiting for them put one
        # more event-loop turn between the Breakpoint event's arrival and its handling (issue 32, resume -> stop).
        conn.write_unanswered([(ThreadReference.Suspend, (t,)) for t in release.thread_suspends]
                              + [(ThreadReference.Resume, (t,)) for t in release.thread_resumes]
                              + [(VirtualMachine.Resume, ())] * release.vm_resumes)

    async def pause(self, thread: str | int | None, actor: Actor) -> WaitResult:
        """Pause all threads (or one). A thread already suspended answers with its stop; a thread inside a
        call that did not return is suspended where the call is."""
        started = time.monotonic()
        vm = await self.ensure_connected()
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            record = self.threads.get(tid)
            if record.stop is not None and not record.call:
                record.delivered = True
                await self._select(record.stop)
                return self._result(True, started, record.stop, f"thread {record.name or tid} is already stopped")
            await vm.send(ThreadReference.Suspend, tid)
            self.threads.pause_thread(tid)
            vm_wide = False
        else:
            all_ids = (await vm.send(VirtualMachine.AllThreads)).threads
            everything_held = all_ids and all(self.threads.expected_count(t) > 0 and not self.threads.get(t).call
                                              for t in all_ids)
            if everything_held and self.stop is not None:
                return self._result(True, started, self.stop, "every thread is already suspended")
            await vm.send(VirtualMachine.Suspend)
            self.threads.pause_all()
            tid = 0
            vm_wide = True
        summaries = await self._where_threads_are()
        if not tid:
            free = [s for s in summaries if self.threads.get(s[0]).stop is None]
            tid = next((t for t, name, loc in free if name == "main" and loc), 0) or next(
                (t for t, _n, loc in free if loc), 0) or next((t for t, _n, loc in summaries if loc), 0) or next(
                (t for t, name, _l in summaries if name == "main"), 0) or next((t for t, _n, _l in summaries), 0)
        location = next((loc for t, _n, loc in summaries if t == tid), None)
        if tid and location is None:
            with contextlib.suppress(JdwpError):
                top = await top_location(vm, tid)  # (not an in-JVM probe's frame; readable on obsolete code)
                location = await self.code_location(top) if top is not None else None
        where = "; ".join(f"{name} at {loc}" for _t, name, loc in summaries if loc)
        self.history.add("pause", "paused" + (f": {where[:2000]}" if where else ""), actor)
        tid = tid or next(iter((await vm.send(VirtualMachine.AllThreads)).threads), 0)
        # (A thread with no Java frame yet, e.g. main right after VM start, still carries the pause.)
        reason = StopReason(StopKind.PAUSE, thread_id=tid or None, thread_name=await vm.thread_name(tid) if tid else None,
                            location=location)
        record = self.threads.get(tid)
        new_stop = record.stop is None or record.call
        if new_stop:
            self.threads.add_stop(tid, reason, vm_wide, "pause")
        record.delivered = True
        await self._select(record.stop)
        if new_stop:  # (after the selection: a watcher reads the state and the stop with the record)
            self.history.add("stop", reason.headline(), Actor.TARGET, stop=reason.to_dict())
        self.pauses, self.paused_by = self.pauses + 1, actor
        self._notify_waiters()
        return self._result(True, started, record.stop)

    async def _where_threads_are(self) -> list[tuple[int, str, CodeLocation | None]]:
        """Each non-system thread's name and top location (for pause reports)."""
        vm = self.require_vm()
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        out: list[tuple[int, str, CodeLocation | None]] = []

        async def one(tid: int) -> tuple[int, str, CodeLocation | None] | None:
            try:
                name = await vm.thread_name(tid)
                group = (await vm.send(ThreadReference.ThreadGroup, tid)).group
                group_name = (await vm.send(ThreadGroupReference.Name, group)).group_name if group else None
                if is_system(name, group_name):
                    return None
                top = await top_location(vm, tid)  # (not an in-JVM probe's frame; readable on obsolete code)
                loc = await self.code_location(top) if top is not None else None
                return tid, name, loc
            except JdwpError as exc:
                log.debug("no location for thread %s: %s", tid, exc)
                return None

        for item in await asyncio.gather(*(one(t) for t in threads)):
            if item is not None:
                out.append(item)
        return out

    async def code_location(self, location: Any) -> CodeLocation:
        vm = self.require_vm()
        loc = vm.known_code_location(location) or await vm.code_location(location)
        loc.source_path = self._source_path(loc.class_name, loc.source_file)
        return loc

    def known_code_location(self, location: Any) -> CodeLocation | None:
        """code_location when its tables are cached (a place's second stop on), else None: no coroutine."""
        loc = self.require_vm().known_code_location(location)
        if loc is not None:
            loc.source_path = self._source_path(loc.class_name, loc.source_file)
        return loc

    def _source_path(self, class_name: str, source_file: str | None) -> str | None:
        # Searching the source path stats (and globs) directories: remember answers for a second, so a
        # stop in a hot loop costs no file system calls while a file created meanwhile is still found.
        key = (class_name, source_file, tuple(self.sources.extra))
        now = time.monotonic()
        hit = self._source_cache.get(key)
        if hit is not None and now - hit[1] < 1.0:
            return hit[0]
        path = self.sources.find(class_name, source_file)
        if len(self._source_cache) > 512:
            self._source_cache.clear()
        self._source_cache[key] = (str(path) if path else None, now)
        return self._source_cache[key][0]

    async def step(self, kind: str, thread: str | int | None, count: int, timeout: float, actor: Actor) -> WaitResult:
        """Step one thread. From a suspend-all stop the other threads run while it steps and are all
        suspended again when the step ends (as jdb and IntelliJ do: a step that waits for another thread, or a
        program that exits meanwhile, never hangs); stops of other threads not delivered yet stay suspended.
        From a suspend-thread stop only this thread moves; the others keep doing what they did."""
        await self.ensure_connected()
        self.require_stopped()
        kinds = {"over": (StepDepth.OVER, StepSize.LINE), "next": (StepDepth.OVER, StepSize.LINE),
                 "into": (StepDepth.INTO, StepSize.LINE), "in": (StepDepth.INTO, StepSize.LINE),
                 "out": (StepDepth.OUT, StepSize.LINE), "up": (StepDepth.OUT, StepSize.LINE),
                 "stepi": (StepDepth.INTO, StepSize.MIN), "instruction": (StepDepth.INTO, StepSize.MIN)}
        if kind not in kinds:
            raise InvalidArgument(f"unknown step kind '{kind}'", "use over, into or out")
        if count < 1:
            raise InvalidArgument(f"step count {count} must be at least 1")
        tid = await self.resolve_thread(thread)
        record = self.threads.get(tid)
        await self.breakpoints.lines_freed()
        if record.call:
            raise NotStopped(f"thread {record.name or tid} is inside a call to {record.call}",
                             "pause it first, or wait for the call to return")
        if self.threads.expected_count(tid) == 0:
            raise NotStopped(f"thread {record.name or tid} is running", "pause it, or step a stopped thread")
        start = await self._obsolete_start(tid)
        depth, size = kinds[kind]
        if record.stop is not None:
            record.delivered = True  # stepping from a stop answers it: whoever steps knows where the thread is
        if self._step is not None:
            await self._clear_step_request(self._step)
            await self._clear_exit_request(self._step)
        vm_wide = record.stop_vm_wide if record.stop is not None else self.threads.vm_holds > 0
        self._step = StepState(tid, depth, size, count, kind=kind, vm_wide=vm_wide, start_line=start[0],
                               start_method=start[1])
        if record.stop is not None and record.stop.kind is StopKind.METHOD_EXIT:
            self._step.seen_exit = await self._frame0_method(tid)
        if size is StepSize.LINE:
            paused = record.stop is None or record.stop.kind is StopKind.PAUSE
            height, self._step.filters = await step_start(self.require_vm(), tid, self.step_filters, paused)
            self._step.leave_to = height or 0
        await self._request_step(self._step, StepDepth.OUT if self._step.leave_to else None)
        await self._request_return_values(self._step)
        self.history.add("step", f"step {kind}" + (f" x{count}" if count > 1 else ""), actor, thread=tid,
                         all_threads=vm_wide)  # a step from a suspend-all stop lets every thread run
        if vm_wide:
            await self._release_all()
        else:
            await self._send_release(self.threads.release_thread(tid))
            self._after_release()
        return answered_first(await self.wait_for_stop(timeout, new_only=True), tid, record.name)

    async def _frame0_method(self, thread: int) -> tuple[int, int] | None:
        with contextlib.suppress(JdwpError):
            frames = (await self.require_vm().send(ThreadReference.Frames, thread, 0, 1)).frames
            return (frames[0].location.class_id, frames[0].location.method_id) if frames else None
        return None
    async def _obsolete_start(self, thread_id: int) -> tuple[int | None, int | None]:
        """(line, method id) where a step starts when the thread's top frame runs obsolete code whose old
        version is known (Vm.remember_running); only asked after a hot swap left such frames."""
        vm = self.require_vm()
        if not vm.replaced_any:
            return None, None
        with contextlib.suppress(JdwpError, IndexError):
            top = (await vm.send(ThreadReference.Frames, thread_id, 0, 1)).frames[0].location
            known = await vm.readable_location(thread_id, 0, top)
            method = await vm.line_table(known.class_id, known.method_id)
            if method.obsolete and method.lines:
                return method.line_at(known.index), known.method_id
        return None, None

    async def _request_step(self, step: StepState, depth: StepDepth | None = None) -> None:
        vm = self.require_vm()
        await self._clear_step_request(step)
        mods = [Mod.Step(step.thread_id, step.size, depth if depth is not None else step.depth)]
        filters = self.step_filters if step.filters is None else step.filters
        mods += [Mod.ClassExclude(p) for p in (*filters, PROBE_EXCLUDE)]
        mods.append(Mod.Count(1))
        policy = SuspendPolicy.ALL if step.vm_wide else SuspendPolicy.EVENT_THREAD
        reply = await vm.send(EventRequest.Set, EventKind.SINGLE_STEP, policy, mods)
        step.request_id = reply.request_id

    async def _request_return_values(self, step: StepState) -> None:
        """Method exits of the stepping thread with their return values (no suspension): the last one
        before the step ends is what a step out / over a call returned (IntelliJ's "returned 659")."""
        vm = self.require_vm()
        if step.size is not StepSize.LINE:  # (JDWP 1.6+, every JVM this debugger attaches to, has the event)
            return
        # Never the in-JVM probes' methods: a step over a line with a probe reports the program's calls only.
        filters = self.step_filters if step.filters is None else step.filters
        mods = [Mod.ThreadOnly(step.thread_id)] + [Mod.ClassExclude(p) for p in (*filters, PROBE_EXCLUDE)]
        with contextlib.suppress(JdwpError):
            reply = await vm.send(EventRequest.Set, EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, mods)
            step.exit_request_id = reply.request_id

    async def _clear_exit_request(self, step: StepState | None) -> None:
        if step and step.exit_request_id and self.conn and not self.conn.is_closed:
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.METHOD_EXIT_WITH_RETURN_VALUE, step.exit_request_id)
            step.exit_request_id = 0

    async def _clear_step_request(self, step: StepState | None) -> None:
        if step and step.request_id and self.conn and not self.conn.is_closed:
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.SINGLE_STEP, step.request_id)
            step.request_id = 0
        if step and step.probes_request and self.conn and not self.conn.is_closed:  # (events.py)
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.BREAKPOINT, step.probes_request)
            step.probes_request = 0

    async def run_to(self, location: str, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        """Resume all threads until `location` (a temporary breakpoint; deferred like breakpoint_set when its
        class is not loaded yet). The stop says "run to LOCATION"."""
        await self.ensure_connected()
        info = await self.breakpoints.set_line(location, temporary=True, thread=thread, actor=actor, internal=True)
        if not info.verified and not waits_for_class(info.message):
            await self.breakpoints.remove(info.id, actor=actor, quiet=True)
            raise InvalidArgument(f"cannot run to {location}: {info.message or 'no code there'}",
                                  "pick a line with code")
        self._run_to_target = location
        result = await self.resume(None, timeout, actor)
        if not result.stopped:
            result.message = (result.message + "; " if result.message else "") + f"run to {location} is still armed"
        return result




def waits_for_class(message: str | None) -> bool:
    """Is an unverified breakpoint only waiting for its class to load (so run_to may defer like breakpoint_set)?"""
    text = (message or "").lower()
    return "not loaded" in text or "pending" in text and "no code" not in text


def answered_first(result: WaitResult, stepped: int, name: str | None) -> WaitResult:
    """A step answered by another thread's stop that was waiting (each stop goes to one waiting call, oldest
    first) says so: the step itself goes on, and its stop comes next."""
    stop = result.stop
    if result.stopped and stop is not None and stop.thread_id not in (None, stepped) \
            and stop.kind is not StopKind.VM_DEATH:
        who = stop.thread_name or stop.thread_id
        result.note = (f"this answers thread {who}'s stop that was waiting ({stop_label(stop)}), not the step: "
                       f"the step of {name or stepped} goes on and its stop comes next (resume or wait_for_stop)")
    return result
