"""Event dispatch: composite event packets handled as one unit; stop events stay suspended, monitoring
events resume at once (seed 001)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from ...jdwp import (
    EventKind,
    EventRequest,
    JdwpConnection,
    JdwpError,
    Mod,
    StepDepth,
    StepSize,
    SuspendPolicy,
    Tag,
    ThreadReference,
    VirtualMachine,
    VMDisconnected,
)
from ..errors import DebuggerError, NotConnected
from ..model import (
    Actor,
    SessionState,
    StopKind,
    StopReason,
)
from .base import STOP_EVENT_KINDS, SessionBase, StepState

log = logging.getLogger(__name__)


class Events(SessionBase):
    # -- events --------------------------------------------------------------------------------------

    async def _event_loop(self, conn: JdwpConnection) -> None:
        """Events are handled as they arrive (see on_event in _connect); this task notices the end."""
        try:
            await conn.wait_closed()
        finally:
            if not self._detaching and self.conn is conn:
                await self._on_vm_gone(conn)

    async def _handle_composite(self, composite: Any) -> None:
        try:
            await self._process_composite(composite)
        except (VMDisconnected, NotConnected, asyncio.CancelledError):
            pass  # the VM went away while we handled its last events
        except Exception as exc:  # never let one bad event wedge the target
            log.exception("event handling failed")
            self.history.add("error", f"internal error while handling an event: {exc}", Actor.TARGET)
            with contextlib.suppress(Exception):
                await self._resume_for_policy(composite)

    async def _process_composite(self, composite: Any) -> None:
        # A thread popped by a person, parked again where the pop left it: not an event of the session's.
        pops = self.breakpoints.in_jvm.pops
        if pops.holding:
            composite = await pops.take_held(self.require_vm(), composite)
            if composite is None:
                return
        reads = self.inspector.stop_reads
        if not reads.done:
            await reads.settled()  # the last stop's locals are read before anything else runs
        stops: list[tuple[StopReason, bool]] = []
        vm = self.require_vm()
        policy = composite.suspend_policy
        events = composite.events
        # (the first event's thread, nearly always: no generator on every stop)
        event_thread = (getattr(events[0], "thread", None) if events else None) or next(
            (t for e in events if (t := getattr(e, "thread", None))), None)
        # Count the suspension this packet made before anything else runs (a resume must find it).
        if policy != SuspendPolicy.NONE:
            self.threads.event_suspended(event_thread, vm_wide=policy == SuspendPolicy.ALL)
        for event in self._in_made_order(events) if len(events) > 1 else events:
            kind = type(event).KIND
            if kind == EventKind.VM_START:
                self.history.add("vm_start", "VM started", Actor.TARGET, thread=event.thread)
                if policy != SuspendPolicy.NONE and self._said_running:
                    # Attach looked while the JVM (suspend=y) was still initialising and answered "running";
                    # its VMStart came after that answer. The program runs on, as we said it does: a later
                    # `cont` must not answer with the VM's start (nothing of the program had run).
                    self.history.add("vm_start_late", "the JVM was held at its start (suspend=y) after attach "
                                     "had answered 'running': it runs on", Actor.TARGET)
                elif policy != SuspendPolicy.NONE:
                    stops.append((StopReason(StopKind.VM_START, thread_id=event.thread,
                                             thread_name=await vm.thread_name(event.thread)), False))
            elif kind == EventKind.VM_DEATH:
                self.history.add("vm_death", "the VM is terminating", Actor.TARGET)
            elif kind == EventKind.CLASS_PREPARE:
                vm.class_prepared(event.type_id, event.ref_type_tag, event.signature, event.status)
                await self.breakpoints.on_class_prepare(event)
            elif kind == EventKind.CLASS_UNLOAD:
                vm.class_unloaded(event.signature)
            elif kind == EventKind.THREAD_START:
                name = await vm.thread_name(event.thread)
                self.threads.thread_started(event.thread, name)
                self.history.add("thread_start", f"thread {name} started", Actor.TARGET, thread=event.thread,
                                 system=await self.inspector.thread_is_system(event.thread, name))
            elif kind == EventKind.THREAD_DEATH:
                self.history.add("thread_death", f"thread {await vm.thread_name(event.thread)} ended", Actor.TARGET,
                                 thread=event.thread)
                self.threads.thread_ended(event.thread)
                vm.thread_died(event.thread)
            elif self._step is not None and event.request_id == self._step.exit_request_id and self._step.exit_request_id:
                if self._step.seen_exit == (event.location.class_id, event.location.method_id):
                    self._step.seen_exit, self._step.returned = None, None  # (see StepState.seen_exit)
                # No suspension: only remembered (a void method returns nothing; an in-JVM probe is not the
                # program's: its calls sit inside the line, the program never made them).
                elif event.value.tag != Tag.VOID and not self.breakpoints.in_jvm.is_probe(event.location.class_id):
                    self._step.returned = (event.location, event.value)
            elif self._step is not None and self._step.probes_request and event.request_id == self._step.probes_request:
                # Past the in-JVM probe calls the line starts with: the step's stop (_run_line_probes_first).
                self._step.probes_request = 0  # (a Count(1) request: spent)
                stop = StopReason(StopKind.STEP, thread_id=event.thread, thread_name=await vm.thread_name(event.thread),
                                  location=await self.code_location(event.location))
                stops.append((stop, False))
                self.inspector.stop_reads.note(stop, event.location)
            elif kind in STOP_EVENT_KINDS:
                if self.threads.get(event.thread).call:
                    self.history.add("suppressed", f"{type(event).__name__} during an evaluation was not stopped at",
                                     Actor.TARGET, thread=event.thread, request=event.request_id)
                    continue
                if kind == EventKind.SINGLE_STEP:
                    decision = await self._on_step(event)
                else:
                    decision = await self.breakpoints.on_event(event)
                if decision is not None:
                    stops.append(decision)
                    self.inspector.stop_reads.note(decision[0], getattr(event, "location", None))
        if not stops:
            await self._resume_for_policy(composite)
            return
        # One stop per composite: a breakpoint beats a step at the same place; others are listed in `also`, the
        # oldest breakpoint first (the JVM lists a composite's events in an order of its own, which moves when
        # requests are made again: the answer must not).
        if len(stops) > 1:
            stops.sort(key=lambda s: (s[0].kind is StopKind.STEP, s[0].breakpoint_id is None,
                                      _made(s[0].breakpoint_id)))
        reason, needs_vm_suspend = stops[0]
        if len(stops) == 1 and reason.kind is StopKind.STEP and await self._run_line_probes_first():
            await self._resume_for_policy(composite)
            return
        if len(stops) > 1:
            reason.also = [s.breakpoint_id for s, _ in stops[1:]
                           if s.breakpoint_id and s.breakpoint_id != reason.breakpoint_id]
        if self._run_to_target and any(s.kind is StopKind.BREAKPOINT and s.breakpoint_id is None for s, _ in stops):
            reason.run_to = self._run_to_target  # run_to's own temporary breakpoint is one of them
            self._run_to_target = None
        step = self._step
        if step and step.thread_id == reason.thread_id:
            if reason.kind is StopKind.STEP:
                await self._attach_return_value(step, reason)
            await self._clear_step_request(step)
            await self._clear_exit_request(step)
            self._step = None
        # Lines in-JVM logpoints logged before the stop go into the history before it, and before a waiting
        # call can see the stop in the thread book (it answers with them). Read while the event's suspension
        # still counts as being handled: a resume that runs during these round trips must not release it,
        # or the stop would be recorded on a running thread (no await from event_kept to add_stop).
        await self.breakpoints.flush_logs()
        vm_wide = policy == SuspendPolicy.ALL
        if needs_vm_suspend and reason.thread_id and not vm_wide:
            # A suspend-all breakpoint whose condition/log is checked here arrives suspending only its thread.
            # Suspend the rest, then take the event's own suspension back: the thread is suspended exactly
            # once, as an invocation (evaluate) requires. (Not when another event of the same composite
            # suspended all threads already: that suspension is the stop's; one more VM-wide one, with the
            # thread's taken back, left every other thread held once too often, and its last thread hung at
            # the program's exit in DestroyJavaVM, which starts with the VM's suspend-all count.)
            await vm.send(VirtualMachine.Suspend)
            await vm.send(ThreadReference.Resume, reason.thread_id)
            self.threads.convert_to_vm_wide(reason.thread_id)
            vm_wide = True
        elif policy != SuspendPolicy.NONE:
            self.threads.event_kept(event_thread, vm_wide=vm_wide)
        await self._become_stopped(reason, vm_wide)

    def _in_made_order(self, events: list[Any]) -> list[Any]:
        """A composite's breakpoint events in the order their breakpoints were made: the JVM lists them in an
        order of its own, which moves when requests are made again (a redefinition binds a class's
        breakpoints anew), and the lines they log must come in one order whatever the mode."""
        owners = self.breakpoints.by_request
        slots = [i for i, e in enumerate(events) if type(e).KIND == EventKind.BREAKPOINT and e.request_id in owners]
        if len(slots) < 2:
            return events
        ordered = sorted((events[i] for i in slots), key=lambda e: _made(owners[e.request_id].info.id))
        events = list(events)
        for i, event in zip(slots, ordered, strict=True):
            events[i] = event
        return events

    async def _run_line_probes_first(self) -> bool:
        """The step ends where the line starts with in-JVM probe calls (line_calls.py). By round trip the line's
        breakpoints fire with the step's event (logged, counted, captured, or the breakpoint's stop instead);
        here the thread runs those calls first and the step stops right after them, unless a probe stops it.
        True when it runs them (the step's stop comes with the request made here)."""
        step = self._step
        if step is None or step.ended_at is None:
            return False
        ended, step.ended_at = step.ended_at, None
        in_jvm = self.breakpoints.in_jvm
        if not in_jvm.classes:
            return False
        end = await in_jvm.after_line_probes(ended)
        if end is None:
            return False
        mods = [Mod.LocationOnly(ended._replace(index=end)), Mod.ThreadOnly(step.thread_id), Mod.Count(1)]
        policy = SuspendPolicy.ALL if step.vm_wide else SuspendPolicy.EVENT_THREAD
        try:
            step.probes_request = (await self.require_vm().send(EventRequest.Set, EventKind.BREAKPOINT, policy,
                                                                 mods)).request_id
        except JdwpError:
            return False
        await self._clear_exit_request(step)  # what the step returned is known: the probes' calls are not the program's
        return True

    async def _attach_return_value(self, step: StepState, reason: StopReason) -> None:
        if step.returned is None:
            return
        location, value = step.returned
        with contextlib.suppress(JdwpError, DebuggerError):
            method = await self.require_vm().method(location.class_id, location.method_id)
            reason.returned_from = method.name
            reason.return_value = await self.inspector.view(value, None, method.name)  # a secret-looking name: redacted

    async def _resume_for_policy(self, composite: Any) -> None:
        conn = self.conn
        if conn is None or conn.is_closed:
            return
        thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
        if composite.suspend_policy == SuspendPolicy.ALL:
            self.threads.event_resumed(None, vm_wide=True)
            conn.send_unanswered(VirtualMachine.Resume)
        elif composite.suspend_policy == SuspendPolicy.EVENT_THREAD and thread:
            self.threads.event_resumed(thread, vm_wide=False)
            conn.send_unanswered(ThreadReference.Resume, thread)
        conn.flush()  # the target waits for this: don't hold it until the end of the loop turn

    async def _on_step(self, event: Any) -> tuple[StopReason, bool] | None:
        step = self._step
        if step is None or event.request_id != step.request_id:
            return None  # a stale step request: ignore it (its thread is resumed by policy)
        vm = self.require_vm()
        if step.leave_to:
            # Stepping out of native or filtered code to the program's frame first (step_origin.py): out again
            # until there, then the step asked for starts from that frame (a step out ends there).
            height = (await vm.send(ThreadReference.FrameCount, event.thread)).frame_count
            if height > step.leave_to:
                await self._request_step(step, StepDepth.OUT)
                return None
            step.leave_to = 0
            if step.depth is not StepDepth.OUT:
                step.returned = None  # (what the JDK code stepped out of returned is not this step's answer)
                await self._request_step(step)
                return None
        location = event.location
        if not location.method_id:  # on obsolete code: the method version it runs, when known
            with contextlib.suppress(JdwpError):
                height = (await vm.send(ThreadReference.FrameCount, event.thread)).frame_count - 1
                location = vm.known_version(event.thread, height, location)
        method = await vm.line_table(location.class_id, location.method_id)
        if (method.obsolete and method.lines and step.start_method == location.method_id
                and step.size is StepSize.LINE and step.depth is not StepDepth.OUT and step.instructions < 10_000
                and method.line_at(location.index) == step.start_line):
            # The JVM has no line table for obsolete code and steps it by instruction: on to the next line
            # of the old version's table, as a line step would.
            step.instructions += 1
            await self._request_step(step)
            return None
        class_name = (await vm.type(location.class_id)).name
        skip = (method.is_synthetic and not method.is_lambda_body) or method.is_bridge or method.is_static_initializer
        # Lambda proxies (Feat$$Lambda$1/0x….test) have no line info: go on into the lambda body, as the JDK does.
        proxy = "$$Lambda" in class_name or (not method.lines and not method.is_native and not method.obsolete
                                              and step.depth is StepDepth.INTO)
        if (skip or proxy) and step.skips < 20:
            # IDE behaviour: don't stop in accessors, bridges, lambda proxies or class initialisers.
            step.skips += 1
            await self._request_step(step, StepDepth.OUT if method.is_static_initializer else step.depth)
            return None
        step.remaining -= 1
        if step.remaining > 0:
            if method.obsolete:  # the next line step starts here
                step.start_line, step.start_method = method.line_at(location.index), location.method_id
            await self._request_step(step)
            return None
        step.ended_at = location
        return StopReason(StopKind.STEP, thread_id=event.thread, thread_name=await vm.thread_name(event.thread),
                          location=await self.code_location(location)), False

    async def _become_stopped(self, reason: StopReason, vm_wide: bool) -> None:
        """A thread is suspended by a stop of its own. It is recorded once in the history now, becomes the
        current stop if there is none, and waits in the set until a waiting call takes it."""
        tid = reason.thread_id or 0
        reason.all_threads = vm_wide
        record = self.threads.add_stop(tid, reason, vm_wide, reason.kind.lower())  # (a StrEnum: its value)
        if reason.kind is StopKind.VM_START and not self._waiters:
            # The attach or launch that started the session answers for it (its status says "VM start"),
            # even when the event comes just after that answer: the next resume runs the program. (A call
            # already waiting takes it as its answer, so nothing waits on a program held at its start.)
            record.delivered = True
        if self.stop is None or self.state is not SessionState.STOPPED:
            await self._select(reason)  # (before the history record: watchers read the state with it)
        # (Recorded before the waiting call is woken: a front end following the history has the stop when the
        # call returns. Deferring it saved ~0.02 ms of resume -> stop and broke that. Its text and plain form are
        # made when first read instead: history.StopRecord.)
        self.history.add_stop(reason)
        self._notify_waiters()


def _made(bp_id: str | None) -> int:
    """The order breakpoints were made in (bp-3 before bp-12)."""
    number = (bp_id or "").rpartition("-")[2]
    return int(number) if number.isdigit() else 0
