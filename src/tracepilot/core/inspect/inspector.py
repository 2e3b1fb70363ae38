"""The inspector facade: seeing and changing state at a stop — threads, stacks, locals, values, sources, classes,
locks, heap, watchers, marks, tracing and code changes (issue 4).

Code changes (changes.py), conditions and logpoints (conditions.py), watchers and marks (watch_marks.py)
are mixed in; the logic lives in
the small modules beside it in core/inspect/; this class wires them to the session (current
stop, stop generation, history, read-only and redact flags) and keeps per-VM state (handles, caches).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import Any

from ...jdwp import (
    JdwpError,
    Tag,
    Value,
    VirtualMachine,
)
from ..errors import (
    DebuggerError,
    EvaluationError,
    InvalidArgument,
    ReadOnlyViolation,
    TargetError,
    refused,
)
from ..frame_names import name_lambda_classes
from ..instrument.naming import is_probe_class
from ..model import (
    Actor,
    CodeLocation,
    FrameInfo,
    Inspection,
    SessionState,
    Snapshot,
    SourceView,
    ThreadInfo,
    TraceResult,
    ValueView,
    Variable,
)
from ..model_heap import ClassSummary, HeapCount, LockReport, Referrer, Referrers
from ..session_view import SessionView
from ..trace.runner import Traces
from ..vm import Vm
from . import paths
from .changes import CodeChanges
from .class_list import list_classes
from .conditions import Conditions
from .exceptions import exception_details, exception_variable
from .handles import HandleTable
from .heap import instance_counts, referring
from .locks import Locks
from .marks import Marks
from .owners import via
from .sourceview import explain_missing, render_view, resolve_text
from .stack import Frames
from .stop_reads import StopReads
from .threads import Threads
from .threads import is_system as is_system_thread
from .values import Values, is_secret_name
from .watch_marks import WatchesAndMarks
from .watchers import Watchers


@dataclass
class _Parts:
    vm: Vm
    values: Values
    frames: Frames
    threads: Threads
    locks: Locks


class Inspector(CodeChanges, Conditions, WatchesAndMarks):
    def __init__(self, session: SessionView) -> None:
        self.session = session
        self.handles = HandleTable()
        self._marks = Marks(self.handles)
        self.watchers = Watchers()
        self._evaluator: Any = None
        self._parts: _Parts | None = None
        self._last_locals: dict[tuple[int, int, int, int], dict[str, str]] = {}
        self.changed: list[str] = []  # locals and watches changed at the last stop
        self._changed_at: dict[int, tuple[Any, list[str]]] = {}  # thread -> (its stop, locals changed there)
        self._traces = Traces(session)
        self._stop_values: dict[int, tuple[Any, dict[str, Value]]] = {}  # id(stop) -> (stop, $return...)
        self.stop_reads = StopReads()  # a stop's first reads in one burst (issue 32: resume -> stop)

    # -- plumbing ------------------------------------------------------------------------------------

    def _p(self) -> _Parts:
        vm = self.session.require_vm()
        parts = self._parts
        if parts is None or parts.vm is not vm:
            self.handles.conn = vm.conn
            values = Values(vm, self.handles, self.session.redact, self.session.secrets)
            threads = Threads(vm)
            parts = _Parts(vm, values, Frames(vm), threads, Locks(vm, threads, values))
            self._parts = parts
        parts.values.redact = self.session.redact
        parts.values.set_generation(self.session.stop_generation)
        return parts

    async def _ready(self) -> _Parts:
        await self.session.ensure_connected()
        await self.stop_reads.settled()  # a stop's locals still being read: shown and used once read
        return self._p()

    def reset(self) -> None:
        """Clear watchers and object handles (reset / detach); marks survive reset."""
        self.watchers.clear()
        self.handles.release_all()
        self._last_locals.clear()
        self._changed_at.clear()
        self.changed = []

    def forget_vm(self) -> None:
        """The VM is gone (death or detach): drop handles, frame caches, marks' object ids."""
        self.handles.forget()
        self._marks.forget()
        self._parts = None
        self.stop_reads.forget()
        self._last_locals.clear()
        self._changed_at.clear()
        self._evaluator = None  # its plans and type facts hold ids of the VM that is gone
        if self.session.secrets is not None:
            self.session.secrets.forget_objects()  # the learned texts stay secret
        self._stop_values.clear()

    def _secret(self, expression: str) -> str | None:
        """With --redact, an expression naming a secret-looking field or variable shows as redacted."""
        if not self.session.redact:
            return None
        return next((n for n in re.findall(r"[A-Za-z_$][\w$]*", expression) if is_secret_name(n)), None)

    async def view(self, value: Value, static_type: str | None = None, name: str | None = None) -> ValueView:
        """Summarise a JDWP value for display; objects get a stable handle. Under --redact a secret-looking
        `name` (a field's, a method's whose return value this is) shows <redacted>."""
        return await self._p().values.view(value, static_type, 0, name)

    def secret_learner(self) -> Any:
        """What learns secrets from the target's objects (inspect/secret_values.py), for the evaluator."""
        return self._p().values.learner

    async def _thread_frame(self, thread: Any, frame: int) -> tuple[_Parts, int, Any]:
        p = await self._ready()
        tid = await self.session.resolve_thread(thread)
        f = await p.frames.frame(tid, self.session.stop_generation, frame)
        return p, tid, f

    # -- stops ---------------------------------------------------------------------------------------

    async def on_stop(self) -> None:
        """Called after every stop, before waiters are told: evaluate watchers, note changed locals.
        Without a watcher to evaluate, the locals' reads are sent now and their replies taken after the
        stop is handed over (stop_reads.py): whatever shows them or lets the thread run waits for them."""
        if not self.stop_reads.done:
            await self.stop_reads.settled()  # the previous stop's locals first (`changed` compares with them)
        stop = self.session.stop
        self.changed = []
        if stop is None or not stop.thread_id:
            return
        p = self._p()
        tid = stop.thread_id
        watches = self.watchers.all()
        if watches:  # (none: nothing to match, at every stop)
            ids = [i for i in [stop.breakpoint_id, *stop.also] if i]
            watches = [w for w in watches if w.applies(ids)]
        generation = self.session.stop_generation
        if not watches and self.stop_reads.noted_for(stop):
            # The reads hold their place in the write queue now (they answer for the stop as it is, before
            # anything asked once it is known); they are planned, made and written just after the hand-over.
            place = p.vm.conn.hold_place()
            self.stop_reads.follow_after_handover(lambda: self._note_locals_at(p, stop, place, generation), place,
                                                  lambda: self._note_locals(p, stop, None, generation))
            return
        plan = self.stop_reads.plan(p.vm, p.frames, stop)
        burst = None
        if plan is not None:
            burst = self.stop_reads.send(p.vm.conn, plan)
            p.vm.conn.flush()
        await self._note_locals(p, stop, burst, generation)
        seq = self.session.history.last_seq + 1
        for watch in watches:
            try:
                value, static = await self._evaluate_value(watch.expression, tid, 0)
                watch.record(await p.values.view(value, static, 0, self._secret(watch.expression)), None, seq)
            except (DebuggerError, JdwpError) as exc:
                watch.record(None, str(exc), seq)
            if watch.changed:
                self.changed.append(watch.expression)

    async def _note_locals_at(self, p: _Parts, stop: Any, place: Any, generation: int) -> None:
        """_note_locals with the burst's requests made at `place` (held in the write queue at the stop)."""
        try:
            plan = self.stop_reads.plan(p.vm, p.frames, stop)
            burst = self.stop_reads.send(place, plan) if plan is not None else None
        finally:
            place.release()
        await self._note_locals(p, stop, burst, generation)

    async def _note_locals(self, p: _Parts, stop: Any, burst: Any, generation: int) -> None:
        """Read the stop's top frame and its locals (taking what `burst` asked ahead) and note which locals
        changed since this thread's last stop in the same frame."""
        tid = stop.thread_id
        try:
            if burst is not None:
                burst.primed.index()  # (written: this runs while the JVM answers)
                if not burst.last.done():
                    # All of the burst's replies first (the JVM answers in order): one wake-up for all of
                    # them, not one per reply as each arrives. (A failed read fails where it is taken.)
                    try:
                        await burst.last
                    except Exception:  # noqa: BLE001, S110
                        pass
                await p.frames.adopt(burst, generation)
            frames = p.frames
            top = frames.known_frame(tid, generation, 0) or await frames.frame(tid, generation, 0)
            depth = frames.known_count(tid, generation)
            if depth is None:
                depth = await frames.count(tid, generation)
            variables = await self.stop_reads.variables(p.vm, p.frames, p.values, tid, top, burst)
        except (DebuggerError, JdwpError):
            return
        finally:
            if burst is not None:
                burst.close()  # (what it read that nobody took: retrieved)
        key = (tid, top.location.class_id, top.location.method_id, depth)
        now = {v.name: v.value.text for v in variables}
        before = self._last_locals.get(key)
        if before is not None:
            self.changed += [n for n, text in now.items() if n in before and before[n] != text]
        if len(self._last_locals) > 1000:
            self._last_locals.clear()
        self._last_locals[key] = now
        self._changed_at[tid] = (stop, list(self.changed))
        self.stop_reads.noted = (stop, now)

    # -- threads and stacks --------------------------------------------------------------------------

    async def thread_is_system(self, thread_id: int, name: str) -> bool:
        """Is this one of the JVM's own threads, which `threads` leaves out unless asked (inspect/threads.py)?"""
        try:
            return is_system_thread(name, await self._p().threads.group_name(thread_id))
        except (DebuggerError, JdwpError):
            return is_system_thread(name, None)

    async def threads(self, include_system: bool, with_locks: bool = False) -> list[ThreadInfo]:
        """Threads; with_locks adds what each holds and waits for (monitors and j.u.c. locks, named by their
        owners), which means suspending a running VM for the look: asked for, never on a front end's refresh."""
        p = await self._ready()
        stop = self.session.stop
        infos = await p.threads.list(p.values, include_system, stop.thread_id if stop else None,
                                     known=self.session.threads.records)
        if with_locks:
            report = await self.locks()
            by_id = {t.thread_id: t for t in report.threads}
            for info in infos:
                found = by_id.get(info.id)
                if found is not None:
                    info.owned_monitors = list(found.holds)
                    info.waiting_for = found.waits_for
                    if info.location is None:
                        info.location = found.at  # a running thread: where it holds or waits, in program code
        return self.session.explain_threads(infos)

    async def stack(self, thread: Any, start: int, count: int, with_locals: bool) -> list[FrameInfo]:
        p = await self._ready()
        tid = await self.session.resolve_thread(thread)
        self.session.require_not_in_call(tid)  # a thread inside a call the debugger made has no stack to show
        frames = await p.frames.frames(tid, self.session.stop_generation, max(0, start), count)
        infos = list(await asyncio.gather(*(p.frames.frame_info(f) for f in frames)))
        # An in-JVM probe's frames (a thread paused inside one, or a method its condition calls) are the
        # debugger's: not shown. The others keep their numbers, so every frame index means the JVM's frame.
        shown = [i for i, info in enumerate(infos) if not is_probe_class(info.location.class_name)]
        frames, infos = [frames[i] for i in shown], [infos[i] for i in shown]
        name_lambda_classes(infos)
        for info in infos:  # the file on the source path, for front ends that open it (DAP's source.path)
            loc = info.location
            if loc.source_path is None:
                loc.source_path = self.session._source_path(loc.class_name, loc.source_file)  # noqa: SLF001
        if with_locals:  # every frame's requests in one pipelined burst
            all_locals = await asyncio.gather(*(p.frames.variables(tid, f, p.values) for f in frames))
            for info, variables in zip(infos, all_locals, strict=True):
                info.locals = variables
        return infos

    async def locals(self, frame: int, thread: Any) -> list[Variable]:
        p, tid, f = await self._thread_frame(thread, frame)
        variables = await p.frames.variables(tid, f, p.values)
        if frame == 0:
            changed = self._changed_in(tid)
            for v in variables:
                v.changed = v.name in changed
            thrown = (self._values_at_stop(tid) or {}).get("$exception")
            stop = self.session.stop
            if thrown is not None and stop is not None and stop.exception is not None:
                variables.insert(0, await exception_variable(p.values, thrown, stop.exception))
        return variables

    def _changed_in(self, thread_id: int) -> list[str]:
        """Locals of this thread's top frame changed since its previous stop there: compared within the thread,
        never with another thread's values (and only while the stop they were computed at holds it)."""
        stop, names = self._changed_at.get(thread_id, (None, []))
        record = self.session.threads.records.get(thread_id)
        return names if stop is not None and record is not None and record.stop is stop else []

    async def snapshot(self, thread: Any) -> Snapshot:
        session = self.session
        was_stopped = session.state is SessionState.STOPPED
        await self.stop_reads.settled()  # (`changed` is known once the stop's locals are read)
        if was_stopped and session.state is not SessionState.STOPPED:
            session.require_vm()  # the VM vanished meanwhile: say so, as the first request would have
        snap = Snapshot(session.state, session.stop, watches=[w.info() for w in self.watchers.all()],
                        changed=list(self.changed))
        if session.state is not SessionState.STOPPED:
            return snap
        tid = await session.resolve_thread(thread, required=False)
        if not tid:
            return snap
        own = session.threads.get(tid).stop
        if thread not in (None, "") and own is not None and own is not session.stop:
            snap.stop, snap.changed = own, []  # another thread's stop: its own reason, not the current one
        p = self._p()
        snap.thread = await p.threads.info(tid, p.values, session.stop.thread_id if session.stop else None)
        session.explain_threads([snap.thread])
        snap.suspended = (await session.status()).suspended
        with contextlib.suppress(DebuggerError):
            snap.frames = await self.stack(tid, 0, 10, False)
            if snap.frames:
                # Stopped inside the JDK (a pause in Thread.sleep): show the program's frame that called it.
                program = next((f for f in snap.frames if not f.is_library), None)
                focus = program if snap.frames[0].is_library and program is not None else snap.frames[0]
                focus.locals = await self.locals(focus.index, tid)
                loc = focus.location
                snap.source = await self._source_at(loc.class_name, loc.line, loc.source_file, 3, loc)
        return snap

    # -- values --------------------------------------------------------------------------------------

    async def _symbol(self, name: str) -> Value:
        if name.startswith("@"):
            held = self.handles.get(name)
            return Value(held.tag, held.object_id)
        held = self._marks.get(name).held
        return Value(held.tag, held.object_id)

    def mark_value(self, label: str) -> Value:
        """The object of a mark ("order" or "$order"), for the evaluator's `$order`."""
        held = self._marks.get(label).held
        return Value(held.tag, held.object_id)

    def _handles_as_symbols(self, expression: str, extra: dict[str, Value] | None) -> tuple[str, dict[str, Value] | None]:
        """`@12` is not Java: hand handles to the evaluator as `$__h12` bindings."""
        if "@" not in expression:
            return expression, extra
        bound = dict(extra or {})

        def swap(m: re.Match[str]) -> str:
            held = self.handles.get(m.group(0))
            bound[f"__h{held.number}"] = Value(held.tag, held.object_id)
            return f"$__h{held.number}"

        return re.sub(r"(?<![\w\"'])@\d+", swap, expression), bound

    async def object_id_of(self, target: str) -> int:
        """Object id of "@12", "$mark" or an expression evaluated at the current stop."""
        value, _ = await self._target_value(target, 0, None)
        if not value.is_object or value.is_null:
            raise InvalidArgument(f"'{target}' is not an object")
        return value.value

    async def _target_value(self, target: str, frame: int, thread: Any) -> tuple[Value, str | None]:
        text = target.strip()
        if re.fullmatch(r"[@$][\w]+", text):
            return await self._symbol(text), None
        tid = await self.session.resolve_thread(thread)
        return await self._evaluate_value(text, tid, frame)

    async def _scope(self, thread_id: int, frame: int) -> paths.Scope:
        p = self._p()
        f = await p.frames.frame(thread_id, self.session.stop_generation, frame)
        pairs, this = await p.frames.raw_values(thread_id, f)
        return paths.Scope(p.vm, p.values.objects, thread_id, f.frame_id, {s.name: (s, v) for s, v in pairs}, this,
                           f.location.class_id, self._symbol)

    async def _evaluate_value(self, expression: str, thread_id: int, frame: int,
                              extra: dict[str, Value] | None = None) -> tuple[Value, str | None]:
        """Evaluate with the expression evaluator when present; else the path fallback (names, fields, [i])."""
        interpreted = await self._interpreter(expression, thread_id, frame, extra)
        if interpreted is not None:
            return interpreted
        if extra:
            name = expression.strip()
            if name in extra:
                return extra[name], None
        lit = paths.literal(expression)
        if lit is not None:
            return lit, None
        place = await paths.resolve(await self._scope(thread_id, frame), expression)
        return place.value, place.type_name

    @property
    def evaluator(self) -> Any:
        """The session's one Evaluator (its caches make repeated conditions cheap). Imported on first use:
        tree-sitter stays off the start path."""
        if self._evaluator is None:
            from ..evaluator.interpreter import Evaluator  # noqa: PLC0415

            self._evaluator = Evaluator(self.session)
        return self._evaluator

    async def _interpreter(self, expression: str, thread_id: int, frame: int,
                           extra: dict[str, Value] | None) -> tuple[Value, str | None] | None:
        expression, extra = self._handles_as_symbols(expression, extra)
        created: set[int] = set()
        result = await self.evaluator.evaluate(expression, thread_id, frame, extra, created=created)
        if isinstance(result, Value):
            return self._unpinned(result, created), None
        to_jdwp = getattr(result, "to_jdwp", None)
        if to_jdwp is not None and getattr(result, "value", 0) is not None:
            return self._unpinned(to_jdwp(), created), getattr(result, "type", None)
        raise EvaluationError(f"cannot use the evaluator's result {result!r}")

    def _unpinned(self, value: Value, created: set[int]) -> Value:
        """A String the evaluation created is shown once, without a pinning handle (see Values.transient)."""
        if value.tag == Tag.STRING and value.value in created:
            self._p().values.mark_transient(value.value)
        return value

    async def inspect(self, target: str, frame: int, thread: Any, start: int, count: int) -> Inspection:
        p = await self._ready()
        value, static = await self._target_value(target, frame, thread)
        return await p.values.inspect(target, value, static, max(0, start), max(0, count), self._secret(target))

    async def exception_details(self, thread_id: int, exception: Value) -> tuple[str | None, list[Any]]:
        """An exception's message (helpful NPE text included) and cause chain, at its stop (inspect/exceptions.py)."""
        return await exception_details(self.session, thread_id, exception)

    def keep_stop_values(self, reason: Any, values: dict[str, Value]) -> None:
        """The event's own values ($return, $exception, $old, $new) of a stop, for expressions at that stop."""
        if values:
            if len(self._stop_values) >= 64:
                self._stop_values.clear()
            self._stop_values[id(reason)] = (reason, dict(values))

    def _values_at_stop(self, thread_id: int) -> dict[str, Value] | None:
        stop = self.session.stop
        if stop is None or stop.thread_id != thread_id:
            return None
        kept = self._stop_values.get(id(stop))
        return kept[1] if kept is not None and kept[0] is stop else None

    async def evaluate(self, expression: str, frame: int, thread: Any, actor: Actor) -> ValueView:
        p = await self._ready()
        tid = await self.session.resolve_thread(thread, required=False)
        if tid:
            value, static = await self._evaluate_value(expression, tid, frame, self._values_at_stop(tid))
        else:
            value, static = await self._without_thread(p, expression)
        view = await p.values.view(value, static, 0, self._secret(expression))
        self.session.history.add("evaluate", f"{expression} = {view.text}", actor, expression=expression)
        return view

    async def _without_thread(self, p: _Parts, expression: str) -> tuple[Value, str | None]:
        """No stop and no thread named: a static field (or a $mark's field) reads without suspending anything;
        anything else needs a thread to run in."""
        try:
            place = await paths.resolve(paths.static_scope(p.vm, p.values.objects, self._symbol), expression)
        except (DebuggerError, JdwpError):
            raise InvalidArgument(
                "no current thread to evaluate in",
                "without a stop only static fields read (e.g. com.acme.Server.requests); pause, stop somewhere, "
                "or name a thread (threads lists them)") from None
        return place.value, place.type_name

    async def set_value(self, target: str, value: str, frame: int, thread: Any, actor: Actor) -> ValueView:
        if self.session.read_only:
            raise ReadOnlyViolation("set_value")
        p = await self._ready()
        tid = await self.session.resolve_thread(thread)
        scope = await self._scope(tid, frame)
        place = await paths.resolve(scope, target)
        text = value.strip()
        if len(text) >= 2 and text[0] == text[-1] == '"' and "\\" not in text:
            new = Value(Tag.STRING, (await p.vm.send(VirtualMachine.CreateString, text[1:-1])).string_object)
        else:
            new, _ = await self._evaluate_value(text, tid, frame)
        new = paths.coerce(new, place.type_name)
        try:
            await paths.write(scope, place, new)
        except JdwpError as exc:
            raise TargetError(refused(exc, f"setting {target}")) from None
        view = await p.values.view(new, place.type_name)
        self.session.history.add("set_value", f"{target} = {view.text}", actor, target=target)
        return view

    # -- source and classes --------------------------------------------------------------------------

    async def _source_at(self, class_name: str, line: int, source_file: str | None, context: int,
                         current: CodeLocation | None = None) -> SourceView:
        path = self.session.sources.find(class_name, source_file)
        stop = self.session.stop
        return explain_missing(render_view(path, class_name, line, context, self.session.breakpoints.list(),
                                           current or (stop.location if stop else None)), self.session.sources)

    async def source(self, location: str | None, context: int) -> SourceView:
        stop = self.session.stop
        if not location:
            if stop is None or stop.location is None:
                raise InvalidArgument("no current location", "stop somewhere first, or give a location (Foo:42)")
            loc = stop.location
            return await self._source_at(loc.class_name, loc.line, loc.source_file, context)
        loaded: list[str] = []
        if self.session.conn is not None:
            with contextlib.suppress(DebuggerError, JdwpError):
                loaded = [t.name for t in await self._p().vm.all_classes()]
        target = resolve_text(self.session.sources, location, loaded)
        return explain_missing(render_view(target.path, target.class_name, target.line, context,
                                           self.session.breakpoints.list(), stop.location if stop else None,
                                           target.span), self.session.sources)

    async def classes(self, pattern: str, members: bool) -> list[ClassSummary]:
        return await list_classes((await self._ready()).vm, pattern, members)

    # -- locks and heap ------------------------------------------------------------------------------

    async def locks(self) -> LockReport:
        p = await self._ready()
        # Owned monitors can only be asked of suspended threads, and at a stop of one thread the others may
        # run: suspend every thread for the look and resume exactly once (the pair leaves each count as it was).
        await p.vm.send(VirtualMachine.Suspend)
        try:
            return await p.locks.report()
        finally:
            with contextlib.suppress(Exception):
                await p.vm.send(VirtualMachine.Resume)

    async def heap(self, pattern: str) -> list[HeapCount]:
        p = await self._ready()
        return await instance_counts(p.vm, pattern)

    async def referrers(self, target: str, limit: int) -> Referrers:
        p = await self._ready()
        value, _ = await self._target_value(target, 0, None)
        if not value.is_object or value.is_null:
            raise InvalidArgument(f"'{target}' is not an object")
        found = await referring(p.vm, value.value, limit + 1)
        result = Referrers(await p.values.view(value), more=len(found) > limit)
        for ref in found[:limit]:
            result.referrers.append(Referrer(await p.values.view(ref, None, 1), await via(p.values, ref, value.value)))
        return result

    # -- tracing -------------------------------------------------------------------------------------

    async def trace(self, pattern: str, duration: float, max_calls: int, actor: Actor, resume: bool = False,
                    folded: str | None = None, folded_by: str | None = None) -> TraceResult:
        p = await self._ready()
        return await self._traces.trace(p.vm, pattern, duration, max_calls, actor, resume, folded, folded_by)
