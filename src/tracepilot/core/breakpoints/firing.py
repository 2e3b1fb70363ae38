"""Firing: what a breakpoint event does: hit counts, conditions (and their cost), logpoints with their throttle,
sampling, chains (arming dependants) and the stop reason it becomes."""

from __future__ import annotations

import contextlib
from typing import Any

from ...jdwp import (
    EventKind,
    EventRequest,
    JdwpError,
    Mod,
    ObjectReference,
    ReferenceType,
    Value,
)
from ..errors import DebuggerError, EvaluationError
from ..instrument.jvm import EVENT_THREAD
from ..instrument.naming import is_probe_class
from ..model import Actor, CodeLocation, ExceptionInfo, StopKind, StopReason
from ..session_view import SessionView
from . import hot_conditions
from .throttle import MAX_SAMPLING, bucket_at
from .tracker import Breakpoint, TrackerBase


class Firing(TrackerBase):
    # -- events --------------------------------------------------------------------------------------

    async def on_class_prepare(self, event: Any) -> None:
        bp = self._prepare_owner.get(event.request_id)
        if bp is None or bp.info.id not in self.by_id:
            return
        vm = self.session.require_vm()
        info = await vm.type(event.type_id, event.ref_type_tag)
        was_verified = bp.info.verified
        event_thread = EVENT_THREAD.set(event.thread)  # nothing of the class ran yet: it may be instrumented
        try:
            if bp.info.kind == "line":
                await self.bind_line(bp, info)
            elif bp.info.kind in ("method_entry", "method_exit"):
                await self.bind_method(bp, info)
            elif bp.info.kind == "exception":
                await self._bind_exception(bp, info)
            elif bp.info.kind == "watchpoint":
                await self._bind_watchpoint(bp, info)
        except DebuggerError as exc:
            bp.info.message = exc.message
        finally:
            EVENT_THREAD.reset(event_thread)
        if bp.info.verified and not was_verified:
            self.session.history.add("breakpoint_verified", f"{bp.info.id} bound in {info.name}", Actor.TARGET,
                                     breakpoint=bp.info.id)

    async def _caught_in_probe(self, event: Any) -> bool:
        catch = event.catch_location
        if catch.is_null:
            return False
        info = await self.session.require_vm().type(catch.class_id, catch.type_tag)
        return is_probe_class(info.signature)

    async def on_event(self, event: Any) -> tuple[StopReason, bool] | None:
        """Decide what a breakpoint-like event means: a stop (and whether to suspend all), or nothing."""
        bp = self.by_request.get(event.request_id)
        if bp is None:
            return None
        if self.in_jvm.owns(event.request_id):  # the probe's hit/error/handover: decided in the JVM
            return await self.in_jvm.on_event(bp, event)
        capture = bp.info.capture
        if capture is not None and not capture.done and self.captures.in_probe.serves(bp.info.id):
            # A point taken in the JVM elsewhere too (its line in another method or class): the ring may hold the
            # capture that finished it, taken on this thread just before. Read first: a done point counts no
            # more hits, as by round trip, where the point is done before the thread runs on.
            await self.captures.in_probe.drain_quietly()
        if capture is not None and capture.done:
            return None  # a hit in flight when its capture point got done (its requests are going)
        if self.in_jvm.classes and await self.in_jvm.inside_probe(event.thread):
            return None  # hit while a probe's condition calls the program: the round trip never stops there
        # (A capture point moves too: the move holds every thread once, for one redefinition; its captures are
        # then taken in the JVM without holding any, see capture/in_probe.py.)
        if bp.info.mode is not None and bp.info.mode != "in-JVM":
            # Until the move is done (where the hitting call returns: maybe never, in an endless loop) every hit
            # is taken as --no-instrument takes it: none goes by uncaptured or unchecked.
            await self.in_jvm.maybe_upgrade(bp, event)
        kind = type(event).KIND
        if kind == EventKind.EXCEPTION and await self._caught_in_probe(event):
            return None  # thrown while an in-JVM probe evaluated: the round trip never shows those either
        if bp.info.kind == "method_exit" and (event.location.class_id, event.location.method_id) not in bp.method_ids:
            return None
        session = self.session
        # (A logpoint with a hit count counts every hit: it is throttled below, on the lines its rule lets by.)
        if bp.info.log and bp.hit_rule is None and not await self._logpoint_allowed(bp, event):
            await self._count_unlogged(bp, event)
            return None
        extra: dict[str, Value] = {}
        if kind == EventKind.EXCEPTION:
            extra["$exception"] = event.exception
        elif kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
            extra["$return"] = event.value
        elif kind == EventKind.FIELD_MODIFICATION:
            extra["$new"] = event.value_to_be
            old = await self._field_value(event)
            if old is not None:
                extra["$old"] = old
        if kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION) and event.object.value:
            extra["$this"] = event.object  # `this` in a field log or condition: the object read or written
        # Hit counting.
        if bp.jvm_counts and bp.hit_rule is not None:  # "==N": the JVM's Count reported its n-th hit
            bp.info.hits += bp.hit_rule.n
        message = None
        if bp.info.condition:
            await self._measure_condition(bp, event)
            try:
                ok = await session.inspector.evaluate_condition(bp.info.condition, event.thread, extra)
            except NotImplementedError:
                ok, message = True, "conditions are not evaluated yet in this build: stopped unconditionally"
            except (EvaluationError, DebuggerError) as exc:
                ok, message = True, f"condition error, stopped: {exc}"
            if not ok:
                return None
        if not bp.jvm_counts:
            bp.info.hits += bp.sample_every  # a sampled logpoint stands for that many hits
            if bp.sample_every > 1:  # ...which makes the count an estimate, and the breakpoint says so
                bp.info.hits_estimated = True
            if bp.hit_rule is not None and not bp.hit_rule.passes(bp.info.hits):
                return None
        bp.fired = True
        hit = bp.info.hits  # this event's hit number: other threads' hits may count on during the awaits below
        await self.arm_dependants(bp)
        if bp.info.capture is not None:  # a capture point: read while the event holds the thread, never a stop
            await self.captures.on_hit(bp, event.thread, skip=0, via="round trip", extra=extra, note=message,
                                       hit=hit)
            return None
        if bp.info.log and message is None and bp.hit_rule is not None and not self._line_allowed(bp):
            return None
        if bp.info.log:
            try:
                text = await session.inspector.format_log(bp.info.log, event.thread, extra)
            except NotImplementedError:
                text = bp.info.log
            except DebuggerError as exc:
                text = f"{bp.info.log} [log error: {exc}]"
            where, details = await session.inspector.log_details(bp.info, event, extra)
            await self.in_jvm.logs.drain()  # the lines in-JVM logpoints logged before this one come first
            session.history.add("log", text + where, Actor.TARGET, breakpoint=bp.info.id, thread=event.thread,
                                **details)
            if message is None:
                return None
        reason = await self.stop_reason(bp, event, extra)
        if reason.hit_count is not None:
            reason.hit_count = hit
        session.inspector.keep_stop_values(reason, extra)  # `evaluate $return` at this stop
        reason.message = message
        if bp.info.temporary:
            with contextlib.suppress(DebuggerError):
                await self.remove(bp.info.id, actor=Actor.TARGET, quiet=bp.internal)
        needs_vm_suspend = bp.client_filter and bp.info.suspend == "all"
        return reason, needs_vm_suspend

    async def _measure_condition(self, bp: Breakpoint, event: Any) -> None:
        """A condition's evaluation rate (see hot_conditions): warned about once, in the history and on the
        breakpoint; `sample` (breakpoint_update) is the throttle it offers."""
        if bp.sample_every > 1 and not bp.info.log:
            await self._rearm_sample(bp, event)  # a sampled condition's Count modifier expired as it fired
        rate = bp.condition_rate.tick(0 if bp.internal else self.logpoint_rate)
        if rate is None:
            return
        bp.info.message = hot_conditions.message(rate)
        self.session.history.add("condition_hot", hot_conditions.warning(bp.info.id, rate, f" at {bp.info.spec}"),
                                 Actor.TARGET, breakpoint=bp.info.id, rate=round(rate))

    async def _logpoint_allowed(self, bp: Breakpoint, event: Any) -> bool:
        """The logpoint throttle: a token bucket per breakpoint. Beyond the rate, the JVM samples the hits
        (a Count modifier, doubled each time the rate is exceeded again) so the target is not slowed by a
        round trip per hit; the change is recorded in the history and on the breakpoint."""
        if bp.sample_every > 1:
            await self._rearm_sample(bp, event)
        rate = self.logpoint_rate
        if rate <= 0 or bp.internal:
            return True
        bp.bucket = bucket_at(bp.bucket, rate)
        if bp.bucket.take():
            return True
        if bp.sample_every >= MAX_SAMPLING or bp.jvm_counts:
            return False  # already sampled as far as it goes (or counted by the JVM): drop this line
        bp.sample_every = min(bp.sample_every * 2 if bp.sample_every > 1 else 16, MAX_SAMPLING)
        bp.info.sampled = bp.sample_every
        bp.info.message = (f"throttled: fired faster than {rate:g} log lines/s; the JVM now reports 1 hit in "
                           f"{bp.sample_every}, so its hit count is an estimate from here on")
        self.session.history.add(
            "breakpoint_throttled",
            f"{bp.info.id} logpoint throttled: more than {rate:g} lines/s would slow the target, so only 1 hit in "
            f"{bp.sample_every} is logged and its hit count becomes an estimate (breakpoint_update {bp.info.id} "
            f"resets it)",
            Actor.TARGET, breakpoint=bp.info.id, sample_every=bp.sample_every, rate=rate)
        await self._uninstall(bp)
        message, sampled = bp.info.message, bp.info.sampled
        await self._install(bp)
        bp.info.message, bp.info.sampled = message, sampled
        return False

    async def _count_unlogged(self, bp: Breakpoint, event: Any) -> None:
        """A hit the throttle does not log is still a hit: counted (when its condition holds), and once the
        JVM samples, counted for the hits it stands for, which makes the count an estimate that says so."""
        if bp.jvm_counts:
            return
        if bp.info.condition:
            try:
                if not await self.session.inspector.evaluate_condition(bp.info.condition, event.thread, {}):
                    return
            except (NotImplementedError, EvaluationError, DebuggerError):
                pass  # a condition error stops a logged hit; an unlogged one is at least counted
        bp.info.hits += bp.sample_every
        if bp.sample_every > 1:
            bp.info.hits_estimated = True
    def _line_allowed(self, bp: Breakpoint) -> bool:
        """The throttle of a logpoint with a hit count: beyond the rate its lines are dropped (and it says so),
        never sampled: sampling would skip the hits its rule counts."""
        rate = self.logpoint_rate
        if rate <= 0 or bp.internal:
            return True
        bp.bucket = bucket_at(bp.bucket, rate)
        if bp.bucket.take():
            return True
        if not (bp.info.message or "").startswith("throttled"):
            bp.info.message = f"throttled: its hit count lets by more than {rate:g} lines/s; the rest are dropped"
            self.session.history.add(
                "breakpoint_throttled", f"{bp.info.id} logpoint throttled: {bp.info.message[len('throttled: '):]} "
                f"(breakpoint_update {bp.info.id} resets it)", Actor.TARGET, breakpoint=bp.info.id, rate=rate)
        return False

    async def _rearm_sample(self, bp: Breakpoint, event: Any) -> None:
        """A Count modifier expires when it fires: re-create the sampled request with the same filters."""
        kind = bp.requests.pop(event.request_id, None)
        mods = bp.request_mods.pop(event.request_id, None)
        self.by_request.pop(event.request_id, None)
        if kind is None or mods is None:
            return
        mods = [m for m in mods if not isinstance(m, Mod.Count)] + [Mod.Count(bp.sample_every)]
        reply = await self.session.require_vm().send(EventRequest.Set, kind, self._policy(bp), mods)
        bp.requests[reply.request_id] = kind
        bp.request_mods[reply.request_id] = mods
        self.by_request[reply.request_id] = bp

    async def arm_dependants(self, bp: Breakpoint) -> None:
        for other in self.by_id.values():
            if other.info.after == bp.info.id and not other.info.armed:
                other.info.armed = True
                self.session.history.add("breakpoint_armed", f"{other.info.id} armed ({bp.info.id} fired)",
                                         Actor.TARGET, breakpoint=other.info.id)
                await self._install(other)

    async def _field_value(self, event: Any) -> Value | None:
        vm = self.session.require_vm()
        try:
            if event.object.value:
                return (await vm.send(ObjectReference.GetValues, event.object.value, [event.field_id])).values[0]
            return (await vm.send(ReferenceType.GetValues, event.type_id, [event.field_id])).values[0]
        except JdwpError:
            return None

    async def stop_reason(self, bp: Breakpoint, event: Any, extra: dict[str, Value]) -> StopReason:
        session = self.session
        vm = session.require_vm()
        kind = type(event).KIND
        location = session.known_code_location(event.location) or await session.code_location(event.location)
        thread_name = vm.known_thread_name(event.thread) or await vm.thread_name(event.thread)
        reason = StopReason(StopKind.BREAKPOINT, thread_id=event.thread, thread_name=thread_name,
                            location=location, breakpoint_id=None if bp.internal else bp.info.id,
                            hit_count=bp.info.hits)
        if bp.info.kind == "method_entry" and not bp.internal:  # (run_to a method: a stop "run to Foo.bar")
            reason.kind = StopKind.METHOD_ENTRY
        if kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
            reason.kind = StopKind.METHOD_EXIT
            reason.return_value = await _view(session, event.value, location.method)  # passwordOf() returns a secret
        elif kind == EventKind.EXCEPTION:
            reason.kind = StopKind.EXCEPTION
            reason.exception = await self._exception_info(event, location)
        elif kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
            reason.kind = StopKind.WATCHPOINT_ACCESS if kind == EventKind.FIELD_ACCESS else StopKind.WATCHPOINT_MODIFY
            reason.field = bp.info.spec
            current = extra.get("$old") if kind == EventKind.FIELD_MODIFICATION else await self._field_value(event)
            name = bp.info.spec.rpartition(".")[2]  # the field's name decides redaction
            if kind == EventKind.FIELD_MODIFICATION:
                reason.old_value = await _view(session, current, name) if current is not None else None
                reason.new_value = await _view(session, event.value_to_be, name)
            elif current is not None:
                reason.old_value = await _view(session, current, name)
            if event.object.value:
                reason.object = await _view(session, event.object)
        return reason

    async def _exception_info(self, event: Any, thrown_at: CodeLocation) -> ExceptionInfo:
        session = self.session
        vm = session.require_vm()
        ref = await vm.send(ObjectReference.ReferenceType, event.exception.value)
        info = await vm.type(ref.type_id, ref.ref_type_tag)
        message, causes = None, []
        try:
            message, causes = await session.inspector.exception_details(event.thread, event.exception)
        except (JdwpError, DebuggerError):
            pass
        catch = None if event.catch_location.is_null else await session.code_location(event.catch_location)
        view = await _view(session, event.exception)
        return ExceptionInfo(info.name, message, view.handle if view else None, thrown_at, catch, catch is not None,
                             causes)


async def _view(session: SessionView, value: Value, name: str | None = None) -> Any:
    """The value of an event; under --redact a secret-looking `name` (field, method) shows <redacted>."""
    try:
        return await session.inspector.view(value, None, name)
    except NotImplementedError:
        from ..model import ValueView

        return ValueView(type=value.tag.name.lower(), text=str(value.value))


