"""In-JVM conditions and logpoints over JDWP: define the probe, redefine the class, answer the probe's events.

The breakpoint tracker asks ``InJvm.bind`` when a conditional breakpoint or logpoint binds to a class; on
success the breakpoint's only JDWP requests are on its probe (``hit``/``error``, or ``handover`` for a
logpoint), and the tracker hands their events to ``InJvm.on_event``. Otherwise ``bind`` returns the reason and
the breakpoint takes the round-trip path. ``release`` restores the original class bytes (or re-instruments
with the breakpoints that remain) when a breakpoint is removed, disabled, or the session detaches; while a
thread may be inside a method that would change, the probe goes inert instead and ``settle`` restores the
class later (see safety.py: a redefinition never leaves a frame on obsolete code).

When is it safe to redefine? A frame that is running a method when the method is redefined keeps running the
old code, and the JVM drops every breakpoint in a redefined class: so a class is instrumented only when no
thread can be inside the method, which is known at class preparation (nothing of the class has run) or when
every thread is suspended and none has a frame in it. Otherwise the breakpoint stays on the round trip and
says why.

One piece: `InJvm` is one protocol with the target (define the probe, redefine, answer the probe's events,
restore), and every step reads and updates the same per-class records under the same ordering rules; the
pure parts (planning the bytes, compiling, the probe class) are already the modules beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ...jdwp import (
    ArrayReference,
    ArrayType,
    ClassObjectReference,
    ClassType,
    EventKind,
    EventRequest,
    InvokeOptions,
    JdwpError,
    Method,
    Mod,
    ObjectReference,
    ReferenceType,
    StackFrame,
    StringReference,
    SuspendPolicy,
    Tag,
    ThreadReference,
    TypeTag,
    VirtualMachine,
)
from ...jdwp.commands import SET_BYTES
from ...jdwp.wire import Location, Value
from ..errors import DebuggerError, EvaluationError
from ..model import Actor, StopKind
from ..render import log_where
from . import swap
from .byte_array import byte_array
from .counted_apart import APART, counted_apart
from .death_hold import DeathHold
from .frames_now import ClassFrames
from .hit_number import number_slot, read_number
from .inserted import inserted_calls
from .leftovers import restore_leftovers
from .line_calls import after_line_calls
from .logring import LogRings
from .method_probes import (
    KINDS,
    method_refusal,
    method_spec,
    probe_stop,
    still_exact,
)
from .move_ahead import Trial, trial_key, try_instrument
from .naming import probe_name, session_token
from .owner import Breakpoint, BreakpointTracker
from .plan import Instrumentation, NotCompilable, ProbeSpec, TypeNotLoaded, instrument
from .pops import Pops, session_holds
from .reach import calls_may_reach, probe_places
from .resolve import JdwpResolver
from .safety import changed_methods, thread_inside
from .shared_line import one_event, shared_reason, sharing
from .skip import skip_once, waiting

log = logging.getLogger(__name__)

LOADED_BEFORE = "the class was loaded before the breakpoint was set"
# A condition naming a type not loaded when its class was (bound as the class loaded): retried at a round-trip hit
# once the type has loaded (maybe_upgrade), at most once per TYPE_CHECK_EVERY seconds a breakpoint.
AWAITS_TYPE = "moves into the JVM at a hit once it has loaded"
TYPE_CHECK_EVERY = 0.5
CALL_TIMEOUT = 10.0  # seconds a call into the target (defining a probe) may take before the round trip is used
MAX_UPGRADES = 3  # attempts per breakpoint to move a round-trip breakpoint into the JVM at a later moment

# The thread a class-prepare event suspended, while the tracker binds breakpoints for that event.
EVENT_THREAD: contextvars.ContextVar[int | None] = contextvars.ContextVar("tracepilot_event_thread", default=None)



def disabled_by_env() -> bool:
    """--no-instrument sets TRACEPILOT_NO_INSTRUMENT=1 for the process (the CLI and the MCP server)."""
    return os.environ.get("TRACEPILOT_NO_INSTRUMENT", "").lower() in ("1", "true", "yes")


@dataclass
class ClassRecord:
    """One instrumented class: its original bytes and the breakpoints compiled into it."""

    type_id: int
    tag: int
    name: str  # internal name
    loader: int
    original: bytes
    specs: dict[str, ProbeSpec] = field(default_factory=dict)  # breakpoint id -> spec
    # Breakpoints gone while a thread was inside their method: their probe calls stay in the bytes, made
    # inert (FORCE, no request on hit()), until the class can be redefined without an obsolete frame.
    retired: dict[str, ProbeSpec] = field(default_factory=dict)
    probe_types: dict[str, int] = field(default_factory=dict)  # probe class (internal name) -> type id
    current: Instrumentation | None = None
    resolver: JdwpResolver | None = None  # class shapes seen from its loader, kept across compilations
    compiled: dict = field(default_factory=dict)  # compiled probes by (spec, name, method), see plan.instrument
    original_array: int | None = None  # the original bytes in the target, for a later session (leftovers.py)
    original_held: bool = False  # original_array uploaded ahead of a move: kept from collection until marked

    @property
    def data(self) -> bytes:
        """The class's bytes in the JVM now."""
        return self.current.data if self.current is not None else self.original

    def shapes(self, vm: Any) -> JdwpResolver:
        if self.resolver is None:
            self.resolver = JdwpResolver(vm, self.loader)
        return self.resolver


@dataclass
class ProbeRequest:
    bp_id: str
    role: str  # "hit", "error", "handover" or "upgrade"
    probe_type: int  # an upgrade: the breakpoint's class
    record: ClassRecord | None
    line: int = 0  # upgrades: the line of the breakpoint
    # method breakpoints: the method (name + descriptor) the probe was placed in
    method: str = ""
    at: str = "line"  # the spec's place, "line" or a method breakpoint's "entry" / "exit"
    number_slot: int | None = None  # under a hit rule: the local of check() holding the hit's number (hit_number.py)


def _rule(bp: Breakpoint) -> tuple[str, int] | None:
    return (bp.hit_rule.mode, bp.hit_rule.n) if bp.hit_rule is not None else None


class _Event:
    """The user's frame standing in for the probe's event when building the stop."""

    KIND = EventKind.BREAKPOINT

    def __init__(self, thread: int, location: Location, request_id: int) -> None:
        self.thread, self.location, self.request_id = thread, location, request_id


class InJvm:
    def __init__(self, tracker: BreakpointTracker) -> None:
        self.tracker = tracker
        self.enabled = not disabled_by_env()
        self.classes: dict[int, ClassRecord] = {}
        self.traced: set[int] = set()  # classes an in-JVM trace instruments now (core/trace/in_jvm.py): left alone
        self.hotswapped: set[int] = set()
        # Classes read for a move not made yet: their original bytes, kept for the next attempt (_record).
        self._fresh: dict[int, ClassRecord] = {}
        self._trials: dict[str, Trial] = {}  # breakpoint id -> its move's trial at its last round-trip hit
        self._moving: set[str] = set()  # breakpoints asked to move into the JVM, or moving, now
        self._upgrades: dict[str, int] = {}  # breakpoint id -> attempts to move it into the JVM
        # Breakpoints whose condition names a type not loaded yet -> the internal names it may stand for, and
        # when a hit last looked for them (maybe_upgrade).
        self._awaited_types: dict[str, tuple[tuple[str, ...], float]] = {}
        self.requests: dict[int, ProbeRequest] = {}
        self.leaving = False  # the session detaches: restore every class, whatever it restarts
        self._serial = 0
        self.token = session_token()  # this session's probe names: no earlier session's (issue 26.5)
        self._rebinding = False
        self.call_timeout = CALL_TIMEOUT
        self._skip_lock = asyncio.Lock()
        # PopFrames at probe stops and at a person's or guest's pop, then the thread parked (pops.py)
        self.pops = Pops(lambda thread: session_holds(self.session.threads, thread))
        self.pending_swaps: dict[int, Any] = {}  # hot swaps under way (swap.py)
        self.swapped_in: set[int] = set()  # hot-swapped classes that kept their probes
        self.logs = LogRings(self)  # logpoint probes' lines, read into the history
        self.at_death = DeathHold(self)  # the dying VM held until the probes' counts are read (death_hold.py)
        # Several breakpoints on one line take the round trip together (shared_line.py). Off only where each
        # probe may act on its own: a test of what compiled expressions answer, many at one line.
        self.one_event_a_line = True

    @property
    def session(self) -> Any:
        return self.tracker.session

    # -- deciding ------------------------------------------------------------------------------------

    def wanted(self, bp: Breakpoint) -> bool:
        """Would this breakpoint gain from running in the JVM (a line or method breakpoint with a condition or
        log)?"""
        return (bp.info.kind == "line" or bp.info.kind in KINDS) and not bp.internal \
            and bool(bp.info.condition or bp.info.log or bp.info.capture is not None)

    def refusal(self, bp: Breakpoint) -> str | None:
        if not self.enabled:
            return "in-JVM mode is off (--no-instrument)"
        if getattr(self.session, "read_only", False):
            return "a read-only session never changes the target's classes"
        if getattr(self.session, "redact", False):
            return "under --redact, the debugger evaluates (and redacts) expressions itself"
        caps = self.session.require_vm().capabilities
        if not caps.get("can_redefine_classes"):
            return "this JVM cannot redefine classes"
        if not caps.get("can_pop_frames"):
            return "this JVM cannot pop frames"
        return None

    def owns(self, request_id: int) -> bool:
        return request_id in self.requests or self.pops.owns(request_id)

    async def inside_probe(self, thread: int) -> bool:
        """Is the thread running a probe's condition or log template that calls the program's methods? By
        round trip the debugger makes those calls and nothing stops in them; so nothing stops in them here.
        (Only asked when some in-JVM expression has a call: a stack read per event costs.)"""
        probes = {t for r in self.classes.values() if any("(" in (s.condition or "") + (s.log or "")
                                                         for s in r.specs.values())
                  for t in r.probe_types.values()}
        if not probes:
            return False
        try:
            frames = (await self.session.require_vm().send(ThreadReference.Frames, thread, 0, -1)).frames
        except JdwpError:
            return False
        return any(f.location.class_id in probes for f in frames)

    async def after_line_probes(self, location: Location) -> int | None:
        """Where the in-JVM probe calls end that the line at `location` starts with (line_calls.py), or None:
        a step that ends there runs them first, as by round trip the line's breakpoints fire with the step."""
        record = self.classes.get(location.class_id)
        if record is None or record.current is None:
            return None
        names = {p.probe.class_name for p in record.current.probes if p.spec.at != "exit"}
        method = next((m for m in await self.session.require_vm().methods(location.class_id)
                       if m.id == location.method_id), None)
        if method is None or not names:
            return None
        return after_line_calls(record.current.data, method.name + method.signature, location.index, names)

    @property
    def rebinding(self) -> bool:
        """Is a redefinition binding its class's round-trip breakpoints again now?"""
        return self._rebinding

    def is_probe(self, type_id: int) -> bool:
        """Is this one of the probe classes the debugger defined (never the program's own code)?"""
        return any(type_id in record.probe_types.values() for record in self.classes.values())

    # -- binding ---------------------------------------------------------------------------------------

    async def bind(self, bp: Breakpoint, info: Any, line: int) -> str | None:
        """Instrument `line` of class `info` for `bp`; None when done, else why not (the round trip is used)."""
        try:
            reason = await self._bind(bp, info, line)
        except Exception as exc:  # a bug here must cost the speed-up, never the breakpoint
            log.exception("in-JVM binding of %s failed", bp.info.id)
            reason = f"internal error while instrumenting: {exc!r}"
        log.debug("%s at %s:%d: %s", bp.info.id, info.name, line, reason or "in-JVM")
        return reason

    async def bind_method(self, bp: Breakpoint, info: Any, methods: list[Any]) -> str | None:
        """Instrument the methods of class `info` for method breakpoint `bp` (method_probes.py); as bind()."""
        try:
            reason = method_refusal(bp, methods) or await self._bind(bp, info, 0, methods=methods)
        except Exception as exc:  # as bind(): never break the breakpoint
            log.exception("in-JVM binding of %s failed", bp.info.id)
            reason = f"internal error while instrumenting: {exc!r}"
        log.debug("%s in %s: %s", bp.info.id, info.name, reason or "in-JVM")
        return reason

    async def _bind(self, bp: Breakpoint, info: Any, line: int, thread: int | None = None,
                    methods: list[Any] | None = None) -> str | None:
        in_probe = self.tracker.captures.in_probe
        registered = bp.info.id in in_probe.ids
        reason = await self._bind_probe(bp, info, line, thread, methods)
        if reason is not None and not registered and bp.info.id in in_probe.ids:
            # Its take was prepared for a probe that was not put in: its hits stay the round trip's, with the
            # debugger's own rate limit (a registered point's limit is read from the JVM and written back at
            # every hit: awaits between a hit's check and its count, where two threads took one capture too many).
            in_probe.forget(bp.info.id)
        return reason

    async def _bind_probe(self, bp: Breakpoint, info: Any, line: int, thread: int | None,
                          methods: list[Any] | None) -> str | None:
        reason = self.refusal(bp)
        if reason is not None:
            return reason
        others = sharing(self.tracker.by_id, bp, info.name, line) if methods is None and self.one_event_a_line \
            else []
        if one_event([bp, *others]):  # (they fire as one event: shared_line.py)
            return shared_reason(others)
        if methods is None and counted_apart(bp, info.id):
            return APART
        if info.id in self.hotswapped:
            return "the class was redefined by hot swap since"
        if info.id in self.traced:  # (its redefinition would take the trace's probes out: counted calls lost)
            return "a trace instruments the class in the JVM now (the breakpoint moves in once the trace ends)"
        if self._rebinding:
            return bp.info.mode[len("round trip ("):-1] if bp.info.mode and bp.info.mode.startswith("round") \
                else "the class was being re-instrumented"
        vm = self.session.require_vm()
        at_prepare = thread is None and EVENT_THREAD.get() is not None
        thread = thread or EVENT_THREAD.get()
        if info.id not in self.classes and info.id not in self._fresh \
                and not (await vm.send(ReferenceType.ClassLoader, info.id)).class_loader:
            return "the class belongs to the boot class loader"  # (said now: no move is ever tried)
        if thread is None:
            stop = getattr(self.session, "stop", None)
            if stop is None or stop.kind is StopKind.PAUSE or not stop.thread_id:
                return (f"{LOADED_BEFORE} and no thread is stopped at an event (in-JVM mode starts when the class "
                        "loads after the breakpoint, when set at a stop, or once the method returns)")
            thread = stop.thread_id
        try:
            if hasattr(self.session, "require_not_in_call"):  # a call that did not return holds the thread
                self.session.require_not_in_call(thread)
            record = await self._record(info, thread)
            if isinstance(record, str):
                return record
            counting = None if at_prepare else self._counting_in(info.id, bp)
            if counting is not None:
                return (f"{counting.info.id} counts its hits in the JVM in this class (a Count filter, whose "
                        "progress JDWP cannot read): redefining the class would restart that count")
            spec = self._spec(bp, record, line, methods)
            # Every thread's frames, read once. No thread in the class: no thread can be inside a changed method.
            # Else a trial at the round-trip hit may have said which methods change: refused now, before
            # instrumenting anything (a refused move used to hold every thread 140-290 ms on Jetty).
            now = None if at_prepare else await ClassFrames.read(vm, record.type_id)
            decided = now is None or not now.touched()
            trial = self._trials.pop(bp.info.id, None)
            if not decided and trial is not None and trial.key == trial_key(record, spec):
                reason = self._thread_refusal(bp, record, spec, now, trial.changed)
                if reason is not None:
                    if bp.info.capture is not None:
                        await self.tracker.captures.in_probe.refused_before_prepare(bp, info.id)
                    return reason
                decided = True
            if bp.info.capture is not None:  # taken in the JVM by the probe, or (None) with the thread held
                spec = replace(spec, take=await self.tracker.captures.in_probe.prepare(bp, thread, info.id),
                               take_names=tuple(bp.info.capture.expressions))
            specs = {**record.specs, bp.info.id: spec}
            try:
                result = await instrument(record.original, list(specs.values()), record.shapes(vm), record.compiled)
            except TypeNotLoaded as exc:
                self._awaited_types[bp.info.id] = (exc.candidates, 0.0)  # (the first hit looks)
                return f"not compilable: {exc}; {AWAITS_TYPE}"
            except NotCompilable as exc:
                return f"not compilable: {exc}"
            if not decided:
                changed = changed_methods(record.data, result.data)
                reason = self._thread_refusal(bp, record, spec, now, None if changed is None else frozenset(changed))
                if reason is not None:
                    return reason
            for placed in result.probes:
                if placed.probe.class_name not in record.probe_types:
                    record.probe_types[placed.probe.class_name] = await self._define(thread, record.loader,
                                                                                     placed.probe.class_name,
                                                                                     placed.probe.data)
                    await self.mark_probe(record, record.probe_types[placed.probe.class_name])
            try:
                await vm.send(VirtualMachine.RedefineClasses, [(record.type_id, result.data)])
            except JdwpError as exc:
                return f"the JVM refused the instrumented class: {exc}"
            record.specs, record.current = specs, result
            if bp.info.capture is not None:
                self.tracker.captures.in_probe.bound(bp, spec.take)
            record.retired.clear()  # their inert calls went with the old bytes
            self.classes[record.type_id] = record
            self._fresh.pop(record.type_id, None)
            await self._request_probe_events(bp, record, spec)
            vm.forget(record.type_id)
            await self._mark_inserted(record)
            await self._rebind_others(record.type_id, bp)
            return None
        except (JdwpError, DebuggerError) as exc:
            log.debug("in-JVM binding failed", exc_info=True)
            return f"could not prepare the probe: {exc}"

    async def _record(self, info: Any, thread: int) -> ClassRecord | str:
        """The class's record: instrumented already, or fresh with its original bytes (read through its
        loader once, and kept for the next attempt: a refused move reads nothing again)."""
        record = self.classes.get(info.id) or self._fresh.get(info.id)
        if record is not None:
            return record
        vm = self.session.require_vm()
        loader = (await vm.send(ReferenceType.ClassLoader, info.id)).class_loader
        if not loader:
            return "the class belongs to the boot class loader"
        internal = info.signature[1:-1]
        original = await self._class_bytes(thread, loader, internal)
        if original is None:
            return f"the class file {internal}.class was not found through its class loader"
        record = self._fresh[info.id] = ClassRecord(info.id, info.tag, internal, loader, original)
        return record

    def _spec(self, bp: Breakpoint, record: ClassRecord, line: int, methods: list[Any] | None) -> ProbeSpec:
        return ProbeSpec(line, bp.info.condition, bp.info.log, self._probe_name(record.name), _rule(bp)) \
            if methods is None else method_spec(bp, methods, self._probe_name(record.name), _rule(bp))

    def _thread_refusal(self, bp: Breakpoint, record: ClassRecord, spec: ProbeSpec, now: ClassFrames,
                        changed: frozenset[str] | None) -> str | None:
        """Why the class may not be redefined now, with `changed` its methods the instrumentation changes (None:
        all), from every thread's frames `now`."""
        if not now.inside(None if changed is None else set(changed)):
            return None
        # (Never a stopped thread's frame: on the old code it would read without its locals' names.)
        held = self._held_at_stops()
        if not self._may_leave_old_frames(bp, record) or held and now.inside(
                None if changed is None else set(changed), only=held):
            return f"{LOADED_BEFORE} and a thread is inside the method now (its frame would keep running the old code)"
        if calls_may_reach(now, record.data, probe_places(record.data, spec.line, spec.at, spec.methods)):
            return (f"{LOADED_BEFORE} and a call running now could still reach the line on the original "
                    "code, where no capture would take its hit")
        return None

    async def _try_ahead(self, bp: Breakpoint, class_id: int, line: int, thread: int) -> None:
        """At a round-trip hit of a breakpoint that will move (one thread held): read the class's bytes and try
        its instrumentation now, so that the move (every thread held) can refuse without doing it again."""
        if self.refusal(bp) is not None:
            return
        vm = self.session.require_vm()
        info = await vm.type(class_id)
        if info.id in self.hotswapped or info.id in self.traced:
            return
        if hasattr(self.session, "require_not_in_call"):  # (raises: a call that did not return holds it)
            self.session.require_not_in_call(thread)
        methods = [m for m in await vm.methods(info.id) if (info.id, m.id) in bp.method_ids] \
            if bp.info.kind in KINDS else None
        if methods is not None and method_refusal(bp, methods):
            return
        record = await self._record(info, thread)
        if isinstance(record, str):
            return
        spec = self._spec(bp, record, line, methods)
        names = None
        if bp.info.capture is not None:
            names = tuple(bp.info.capture.expressions)
            await self.tracker.captures.in_probe.why_not(bp, info.id)  # (its module, asked now, not at the move)
        trial = await try_instrument(record, spec, record.shapes(vm), names)
        if trial is not None:
            self._trials[bp.info.id] = trial
        if record.original_array is None:  # (what mark_probe keeps for a later session, uploaded now)
            record.original_array, record.original_held = await self._new_bytes(record.original), True

    async def update(self, bp: Breakpoint) -> bool:
        """A changed condition or log of an in-JVM breakpoint: when the probe keeps its signature, redefine
        only the probe class (the user's method, running or not, is untouched); False: uninstall + install."""
        if not self.wanted(bp):
            bp.info.mode = None  # a plain breakpoint now (no condition, log or capture): no mode to tell
        records = [r for r in self.classes.values() if bp.info.id in r.specs]
        if not records or not self.wanted(bp) or self.refusal(bp) or not bp.info.enabled or not bp.info.armed:
            return False
        vm = self.session.require_vm()
        if await thread_inside(vm, records[0].type_id, set()):  # (set(): is any thread running at all?)
            return False  # never redefine under running threads (one may be inside the probe's check)
        redefinitions: list[tuple[int, bytes]] = []
        updated: list[tuple[ClassRecord, dict[str, ProbeSpec], Instrumentation]] = []
        for record in records:
            old = record.specs[bp.info.id]
            if (old.log is None) != (bp.info.log is None):
                return False  # a logpoint's probe has other fields and superclass: not a redefinition
            if old.at != "line" and not still_exact(bp, old):
                return False
            # A thread stopped here waits in the old probe's SKIP: the new check must read it whatever its
            # condition answers (a pure one is otherwise tested first, see probe.build_probe).
            spec = replace(old, condition=bp.info.condition, log=bp.info.log, hit_rule=_rule(bp),
                           gate_first=await self._waiting(record, old))
            specs = {**record.specs, bp.info.id: spec}
            try:
                result = await instrument(record.original, list(specs.values()), record.shapes(vm), record.compiled)
            except NotCompilable:
                return False
            if record.current is None or result.data != record.current.data:
                return False  # the inserted calls changed (other captures): the method must be redefined
            for placed in result.probes:
                if placed.spec == spec:
                    redefinitions.append((record.probe_types[placed.probe.class_name], placed.probe.data))
            updated.append((record, specs, result))
        try:
            await vm.send(VirtualMachine.RedefineClasses, redefinitions)
        except JdwpError as exc:
            log.debug("redefining the probe of %s failed: %s", bp.info.id, exc)
            return False
        # The JVM dropped the breakpoints in the redefined probes: new requests for the new binding.
        conn = self.session.conn
        for request_id in [r for r, p in self.requests.items() if p.bp_id == bp.info.id]:
            self.requests.pop(request_id, None)
            self.tracker.by_request.pop(request_id, None)
            kind = bp.requests.pop(request_id, None)
            if kind is not None and conn is not None:
                with contextlib.suppress(JdwpError):
                    await conn.send(EventRequest.Clear, kind, request_id)
        for record, specs, result in updated:
            record.specs, record.current = specs, result
            for type_id, _ in redefinitions:
                vm.forget(type_id)
            await self._request_probe_events(bp, record, specs[bp.info.id])
        bp.info.mode = "in-JVM"
        return True

    async def _waiting(self, record: ClassRecord, spec: ProbeSpec) -> bool:
        vm = self.session.require_vm()
        for placed in record.current.probes if record.current else []:
            if placed.spec == spec and await waiting(vm, record.probe_types[placed.probe.class_name]):
                return True
        return False

    def _probe_name(self, internal: str) -> str:
        self._serial += 1
        return probe_name(internal, self.token, self._serial)

    async def request_probe_events(self, bp: Breakpoint, record: ClassRecord, spec: ProbeSpec,
                                   only: set[int] | None = None) -> None:
        await self._request_probe_events(bp, record, spec, only)

    async def _request_probe_events(self, bp: Breakpoint, record: ClassRecord, spec: ProbeSpec,
                                    only: set[int] | None = None) -> None:
        """The breakpoint's requests on its probes (`only`: on these probe classes only)."""
        vm = self.session.require_vm()
        assert record.current is not None
        # A logpoint's error(): a template that throws is a log line "[log error: ...]", as on the round trip.
        roles = ("handover", "error") if spec.log is not None else ("hit", "error")
        for placed in record.current.probes:
            if placed.spec != spec:
                continue
            type_id = record.probe_types[placed.probe.class_name]
            if only is not None and type_id not in only:
                continue
            methods = {m.name: m for m in await vm.methods(type_id)}
            if bp.hit_rule is not None:  # the probe counts on from the breakpoint's count (update may reset it)
                field_id = next(f.id for f in await vm.fields(type_id) if f.name == "HITS")
                await vm.send(ClassType.SetValues, type_id, [(field_id, Value.int(bp.info.hits))])
                with contextlib.suppress(JdwpError):  # (then read as before: when asked, at a detach)
                    await self.at_death.hold(vm, self.refresh_hits, order=1)  # its unheard-of hits, read at exit
            for role in roles:
                loc = Location(TypeTag.CLASS, type_id, methods[role].id, 0)
                mods: list[Any] = [Mod.LocationOnly(loc)]
                if bp.thread_id:
                    mods.append(Mod.ThreadOnly(bp.thread_id))
                # The probe's events hold their thread only: a stop suspends all threads at its parking
                # breakpoint (pops.py), so no probe event in flight ever holds a thread that is being parked.
                reply = await vm.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD, mods)
                bp.requests[reply.request_id] = EventKind.BREAKPOINT
                self.tracker.by_request[reply.request_id] = bp
                self.requests[reply.request_id] = ProbeRequest(
                    bp.info.id, role, type_id, record, method=placed.method,
                    number_slot=number_slot(placed.probe.captures) if spec.hit_rule is not None else None)
            if spec.log is not None:
                on_method = spec.at in KINDS.values()  # lines say which method (and, at an exit, which return)
                self.logs.add(bp, type_id, record.name, spec.line, placed.method if on_method else "",
                              (placed.sites or []) if spec.at == "exit" else None, placed_in=placed.method)

    async def _rebind_others(self, type_id: int, mine: Breakpoint | None) -> None:
        """The JVM dropped every JDWP breakpoint in the redefined class and code indices moved: bind the
        class's other (round-trip) line and method breakpoints in it again, in this class only."""
        vm = self.session.require_vm()
        conn = self.session.conn
        info = await vm.type(type_id)
        self._rebinding = True
        try:
            for other in list(self.tracker.by_id.values()):
                if other is mine or type_id not in other.bound_types or self._is_in_jvm(other) or (
                        other.info.capture is not None and other.info.capture.done):
                    continue
                if other.info.kind not in ("line", "method_entry"):
                    continue
                done = other.jvm_counts and other.fired and other.hit_rule is not None and other.hit_rule.mode == "eq"
                for request_id, mods in list(other.request_mods.items()):
                    if not any(isinstance(m, Mod.LocationOnly) and m.loc.class_id == type_id for m in mods):
                        continue
                    kind = other.requests.pop(request_id, None)
                    other.request_mods.pop(request_id, None)
                    self.tracker.by_request.pop(request_id, None)
                    if kind is not None and conn is not None and not conn.is_closed:
                        with contextlib.suppress(JdwpError):
                            await conn.send(EventRequest.Clear, kind, request_id)
                other.bound = {key for key in other.bound if key[0] != type_id}
                other.bound_types.discard(type_id)
                other.method_ids = {key for key in other.method_ids if key[0] != type_id}
                if done:  # "==N" fired: its request expired, it never stops again (bound again, it would)
                    continue
                # Bound again where its locations in this class were: a line in several classes (a one-line
                # anonymous class's) lists them in the order the classes loaded, as the round trip binds them.
                before = other.info.locations
                at = next((n for n, loc in enumerate(before) if loc.class_name == info.name), len(before))
                kept = [loc for loc in before if loc.class_name != info.name]
                other.info.locations = kept[:at]
                if other.info.kind == "line":
                    await self.tracker.bind_line(other, info)
                else:
                    await self.tracker.bind_method(other, info)
                other.info.locations += kept[at:]
        finally:
            self._rebinding = False

    def _may_leave_old_frames(self, bp: Breakpoint, record: ClassRecord) -> bool:
        """A capture point is the first probe of a class no other breakpoint is in: a call already running keeps
        the original code to its end, whose hits are not captured (a capture point takes some hits, not all),
        and nothing else in the class can be missed. (Under load some thread is always inside the method.) Never
        at a stop: the stopped thread's frames would turn obsolete under the person or agent reading them (a
        step then stands in `<obsolete>` code, where the round trip shows the line and its variables)."""
        stop = getattr(self.session, "stop", None)
        if stop is not None and stop.kind is not StopKind.VM_START:
            return False
        return bp.info.capture is not None and not record.specs and not any(
            other is not bp and record.type_id in other.bound_types for other in self.tracker.by_id.values())

    def _held_at_stops(self) -> set[int]:
        """The threads a user looks at: stopped (at an event, a step's end) or paused."""
        book = getattr(self.session, "threads", None)
        if book is None:
            return set()
        return {r.id for r in book.records.values() if not r.finished and (r.stop is not None or r.paused)}

    def _counting_in(self, type_id: int, mine: Breakpoint) -> Breakpoint | None:
        """A breakpoint in the class whose hit count a JVM Count filter holds, still counting: a
        redefinition drops its request, and binding it again would count from zero."""
        for other in self.tracker.by_id.values():
            if other is mine or type_id not in other.bound_types or not other.jvm_counts or not other.requests \
                    or self._is_in_jvm(other):  # (a capture point's probe counts: a redefinition keeps its count)
                continue
            if not other.fired:  # ("==N": its Count filter is done once it fired)
                return other
        return None

    def _is_in_jvm(self, bp: Breakpoint) -> bool:
        """Bound by its probe now. (Not a pending upgrade or an old binding's bridge: such a breakpoint's
        round-trip requests die with a redefinition like any other's.)"""
        return any(r.bp_id == bp.info.id and r.role in ("hit", "error", "handover") for r in self.requests.values())

    # -- talking to the target -----------------------------------------------------------------------

    async def _invoke(self, thread: int, obj: int | None, clazz: int, method: int, args: list[Value]) -> Value:
        """One call in the target, with a deadline: a call that waits (for a class loader's lock another,
        suspended thread holds, say) leaves its thread "inside a call" in the thread book, which puts the
        thread back at its stop when the call returns; the probe falls back to the round trip, saying why."""
        invoking = getattr(self.session, "invoking", None)
        what = "defining the in-JVM probe"
        options = int(InvokeOptions.SINGLE_THREADED)
        if obj is None:
            command, call_args = ClassType.InvokeMethod, (clazz, thread, method, args, options)
        else:
            command, call_args = ObjectReference.InvokeMethod, (obj, thread, clazz, method, args, options)
        try:
            if invoking is None:
                reply = await asyncio.wait_for(self.session.require_vm().send(command, *call_args),
                                               self.call_timeout)
            else:
                async with invoking(thread, what) as call:
                    reply = await call.send(command, *call_args, timeout=self.call_timeout, what=what)
        except TimeoutError:
            raise DebuggerError(f"a call into the target did not return within {self.call_timeout:g}s (it may "
                                "wait for a lock a suspended thread holds); the thread stays inside the call "
                                "until it returns") from None
        if reply.exception.value:
            raise DebuggerError(f"the target threw {await self._describe_throwable(reply.exception.value)}")
        return reply.return_value

    async def _method(self, class_name: str, name: str, signature: str) -> tuple[int, int]:
        vm = self.session.require_vm()
        types = await vm.classes_by_name(class_name)
        if not types:
            raise DebuggerError(f"{class_name} is not loaded")
        for m in await vm.methods(types[0].id):
            if m.name == name and m.signature == signature:
                return types[0].id, m.id
        raise DebuggerError(f"{class_name}.{name}{signature} not found")

    async def _class_bytes(self, thread: int, loader: int, internal: str) -> bytes | None:
        """The class file as its loader finds it (getResourceAsStream, called in the target)."""
        vm = self.session.require_vm()
        name = (await vm.send(VirtualMachine.CreateString, f"{internal}.class")).string_object
        await vm.send(ObjectReference.DisableCollection, name)
        try:
            cl_type, get_resource = await self._method("java.lang.ClassLoader", "getResourceAsStream",
                                                       "(Ljava/lang/String;)Ljava/io/InputStream;")
            stream = await self._invoke(thread, loader, cl_type, get_resource, [Value.object(name, Tag.STRING)])
        finally:
            with contextlib.suppress(JdwpError):
                await vm.send(ObjectReference.EnableCollection, name)
        if not stream.value:
            return None
        is_type, read_all = await self._method("java.io.InputStream", "readAllBytes", "()[B")
        _, close = await self._method("java.io.InputStream", "close", "()V")
        array = await self._invoke(thread, stream.value, is_type, read_all, [])
        with contextlib.suppress(DebuggerError, JdwpError):
            await self._invoke(thread, stream.value, is_type, close, [])
        length = (await vm.send(ArrayReference.Length, array.value)).array_length
        return await byte_array(vm.conn, array.value, length)

    async def _define(self, thread: int, loader: int, name: str, data: bytes) -> int:
        """ClassLoader.defineClass(name, bytes, 0, len) in the breakpoint class's loader: the probe shares its
        runtime package, so it may use the class's package-private members."""
        vm = self.session.require_vm()
        array = await self._new_bytes(data)
        text = (await vm.send(VirtualMachine.CreateString, name.replace("/", "."))).string_object
        await vm.send(ObjectReference.DisableCollection, text)
        try:
            cl_type, define = await self._method("java.lang.ClassLoader", "defineClass",
                                                 "(Ljava/lang/String;[BII)Ljava/lang/Class;")
            cls = await self._invoke(thread, loader, cl_type, define, [
                Value.object(text, Tag.STRING), Value.object(array, Tag.ARRAY), Value.int(0), Value.int(len(data))])
            # A defined class is not linked yet (JDWP cannot list its methods): Class.forName(name, true,
            # loader) links and initializes it, here and now rather than at the first hit.
            class_type, for_name = await self._method("java.lang.Class", "forName",
                                                      "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
            await self._invoke(thread, None, class_type, for_name, [
                Value.object(text, Tag.STRING), Value.boolean(True), Value.object(loader, Tag.CLASS_LOADER)])
            reflected = await vm.send(ClassObjectReference.ReflectedType, cls.value)
        finally:
            for obj in (array, text):
                with contextlib.suppress(JdwpError):
                    await vm.send(ObjectReference.EnableCollection, obj)
        return reflected.type_id

    async def _new_bytes(self, data: bytes) -> int:
        """A byte[] in the target holding `data`, kept from collection (the caller enables it again)."""
        vm = self.session.require_vm()
        byte_array_type = (await vm.send(VirtualMachine.ClassesBySignature, "[B")).classes[0].type_id
        array = (await vm.send(ArrayType.NewInstance, byte_array_type, len(data))).new_array.value
        await vm.send(ObjectReference.DisableCollection, array)
        await vm.send(SET_BYTES, array, 0, data)  # (as one string of bytes: much faster than a Value each)
        return array

    async def mark_probe(self, record: ClassRecord, probe_type: int) -> None:
        """What a later session needs to restore the class should this one die (leftovers.py): the class's
        name and original bytes (uploaded once per class; every probe of the class points to them)."""
        vm = self.session.require_vm()
        fields = {f.name: f.id for f in await vm.fields(probe_type)}
        if "ORIGINAL" not in fields:
            return
        created = []
        try:
            if record.original_array is None:
                record.original_array = await self._new_bytes(record.original)
                created.append(record.original_array)
            elif record.original_held:  # (uploaded at the round-trip hit: _try_ahead)
                record.original_held = False
                created.append(record.original_array)
            text = (await vm.send(VirtualMachine.CreateString, record.name)).string_object
            await vm.send(ObjectReference.DisableCollection, text)
            created.append(text)
            await vm.send(ClassType.SetValues, probe_type, [
                (fields["TARGET"], Value.object(text, Tag.STRING)),
                (fields["ORIGINAL"], Value.object(record.original_array, Tag.ARRAY)),
                (fields["STAMP"], Value.long(time.time_ns()))])
        finally:
            for obj in created:  # reachable from the probe's static fields now
                with contextlib.suppress(JdwpError):
                    await vm.send(ObjectReference.EnableCollection, obj)

    async def _describe_throwable(self, obj: int) -> str:
        vm = self.session.require_vm()
        try:
            ref = await vm.send(ObjectReference.ReferenceType, obj)
            info = await vm.type(ref.type_id, ref.ref_type_tag)
            message = None
            for f in await vm.all_fields(ref.type_id):
                if f.name == "detailMessage":
                    value = (await vm.send(ObjectReference.GetValues, obj, [f.id])).values[0]
                    if value.value:
                        message = (await vm.send(StringReference.Value, value.value)).string_value
                    break
            return info.name + (f": {message}" if message else "")
        except JdwpError as exc:
            return f"an exception ({exc})"

    # -- events ----------------------------------------------------------------------------------------

    async def on_event(self, bp: Breakpoint, event: Any) -> tuple[Any, bool] | None:
        if self.pops.owns(event.request_id):
            return await self._parked(event)
        request = self.requests[event.request_id]
        if request.role == "upgrade":
            await self._upgrade_event(bp, event, request)
            return None
        session = self.session
        vm = session.require_vm()
        if request.role == "handover":  # a batch of log lines (or the shutdown hook's): read while it waits
            frames = (await vm.send(ThreadReference.Frames, event.thread, 0, 2)).frames
            batch = await self._value_in_slot0(event.thread, frames[0].frame_id)
            # handover <- run: the JVM is exiting. Hold it until the lines are in the history.
            exiting = len(frames) == 2 and (await vm.method(frames[1].location.class_id,
                                                            frames[1].location.method_id)).name == "run"
            await self.logs.handover(request.probe_type, batch, wait=exiting)
            return None
        # hit/error <- check <- the user's method
        frames = (await vm.send(ThreadReference.Frames, event.thread, 0, 3)).frames
        if bp.info.capture is not None:  # the hits its probe took in the JVM before this one count first
            await self.tracker.captures.in_probe.drain_quietly()
            if bp.info.capture.done:  # ...and may have made it done: a hit in flight, uncounted as by round trip
                return None
        message = None
        if request.role == "error":
            thrown = await self._value_in_slot0(event.thread, frames[0].frame_id)
            what = await self._describe_throwable(thrown) if thrown else "an exception"
            if bp.info.log and not bp.info.condition:
                await self.logs.drain(bp.info.id)  # the lines logged before this one come first
                bp.info.hits += 1  # a hit all the same, as on the round trip
                # The line as the round trip writes it (which part threw, how): format it over JDWP in the
                # user's frame, the probe's frames popped (the re-run call is skipped, as after a stop).

                async def log_line() -> None:
                    await self._skip_once(request.probe_type, event.thread)
                    try:
                        text = await session.inspector.format_log(bp.info.log, event.thread, {})
                    except DebuggerError as exc:
                        text = f"{bp.info.log} [log error: {exc or what}]"
                    where, details = await session.inspector.log_details(
                        bp.info, _Event(event.thread, frames[2].location, event.request_id), {})
                    session.history.add("log", text + where, Actor.TARGET, breakpoint=bp.info.id,
                                        thread=event.thread, **details)

                await self._pop_and_park(event.thread, frames[1].frame_id, log_line, suspend_all=False, bp=bp)
                return None
            message = f"condition error, stopped: threw {what}"  # as the round trip words it
        # As by round trip: a condition that fails counts as a true one, hit rule included: the probe
        # counted it and calls error() only when the rule lets it through (probe.build_probe). This hit's own
        # number, for its stop: other threads' hits may count on before it is decided (as by round trip).
        number = await self._number(bp, request, event.thread, frames[1].frame_id)
        bp.fired = True
        await self.tracker.arm_dependants(bp)
        user = frames[2]
        spec = request.record.specs.get(bp.info.id) if request.record else None
        stands_for: Any = _Event(event.thread, user.location, event.request_id)
        if spec is not None and spec.at in KINDS.values():  # where the round trip's method entry/exit stops
            stands_for = await probe_stop(vm, spec.at, event.thread, frames[1], user.location, event.request_id,
                                          request.method)
        if bp.info.capture is not None:  # a capture point: read below the probe's frames, which stay (no stop)
            extra = {"$return": stands_for.value} if getattr(stands_for, "value", None) is not None else {}
            if message is not None and not bp.info.condition:  # (no condition threw: the probe's own call did)
                message = f"the in-JVM probe threw {message.removeprefix('condition error, stopped: threw ')}: " \
                    "taken with the thread held"
            elif message is not None:  # the round trip's words for it, from the program's frame below the probe's
                message = await self._condition_error(bp, event.thread, message, extra, frame=2)
            await self.tracker.captures.on_hit(bp, event.thread, skip=2, via="in-JVM", extra=extra, note=message,
                                               hit=number)
            return None

        async def stop() -> tuple[Any, bool]:
            nonlocal message
            await self._skip_once(request.probe_type, event.thread)
            extra = {"$return": stands_for.value} if getattr(stands_for, "value", None) is not None else {}
            if message is not None:
                message = await self._condition_error(bp, event.thread, message, extra)
            if message is not None and bp.info.log:  # a logpoint whose condition failed logs, then stops
                await self.logs.drain()  # after the lines the probes logged before this hit
                await self._log_at_stop(bp, event.thread, extra)
            reason = await self.tracker.stop_reason(bp, stands_for, extra)
            if reason.hit_count is not None:
                reason.hit_count = number
            session.inspector.keep_stop_values(reason, extra)  # `evaluate $return` at this stop
            reason.message = message
            if bp.info.temporary:
                with contextlib.suppress(DebuggerError):
                    await self.tracker.remove(bp.info.id, actor=Actor.TARGET, quiet=bp.internal)
            return reason, False  # (the parking breakpoint suspends all threads when the breakpoint does)

        # Pop the probe's frames: the thread stands at the user's line again, frame 0 is the user's method; it
        # stops there on its parking breakpoint (pops.py), whose event is the stop.
        await self._pop_and_park(event.thread, frames[1].frame_id, stop, bp.info.suspend == "all", bp)
        return None

    async def _pop_and_park(self, thread: int, frame_id: int, decide: Any, suspend_all: bool, bp: Breakpoint) -> None:
        vm = self.session.require_vm()
        request_id = await self.pops.pop_and_park(vm, thread, frame_id, suspend_all, decide)
        self.tracker.by_request[request_id] = bp

    async def _parked(self, event: Any) -> tuple[Any, bool] | None:
        """A thread popped at a probe stop reached its parking breakpoint: the stop decided at the probe, unless
        its breakpoint was removed or disabled meanwhile (nothing else holds the thread then, and a later
        resume would not know of it: it runs on, its call at the line skipped once, as after a stop)."""
        bp = self.tracker.by_request.pop(event.request_id, None)
        answer = await self.pops.parked(self.session.require_vm(), event.request_id)
        gone = self.tracker.by_id.get(bp.info.id) is not bp if bp is not None else True
        if bp is None or (gone and not bp.info.temporary) or not bp.info.enabled:  # (a temporary one: by its stop)
            return None
        return answer

    async def _value_in_slot0(self, thread: int, frame_id: int) -> int:
        vm = self.session.require_vm()
        values = (await vm.send(StackFrame.GetValues, thread, frame_id, [(0, ord("L"))])).values
        return values[0].value or 0

    async def _condition_error(self, bp: Breakpoint, thread: int, message: str, extra: dict[str, Any], *,
                               frame: int = 0) -> str:
        """The condition threw in the JVM: the round trip's words for it (where in the expression), from the
        same evaluation in the user's frame (`frame`); the JVM's own when that one does not throw."""
        try:
            await self.session.inspector.evaluate_condition(bp.info.condition, thread, extra, frame=frame)
        except (EvaluationError, DebuggerError) as exc:
            return f"condition error, stopped: {exc}"
        return message

    async def _log_at_stop(self, bp: Breakpoint, thread: int, extra: dict[str, Any]) -> None:
        """The line a logpoint logs at a stop, formatted by round trip in the user's frame."""
        session = self.session
        try:
            text = await session.inspector.format_log(bp.info.log, thread, extra)
        except DebuggerError as exc:
            text = f"{bp.info.log} [log error: {exc}]"
        name = await session.require_vm().thread_name(thread)
        await self.logs.drain()  # the lines in-JVM logpoints logged before this one come first
        where = log_where(bp.info.locations[0], name) if bp.info.locations else ("", {})
        session.history.add("log", text + where[0], Actor.TARGET, breakpoint=bp.info.id, thread=thread, **where[1])

    async def refresh_hits(self, only: str | None = None) -> None:
        """Hits a probe counted without telling the debugger (a hit rule let them pass by): read them, so
        breakpoint_list counts what the round trip counts (`only`: of that breakpoint). Also at the VM's death,
        before a detach and before a breakpoint changes: the probe's count goes with its class."""
        conn = self.session.conn
        if conn is None or conn.is_closed:
            return
        seen: set[int] = set()
        for request in list(self.requests.values()):
            bp = self.tracker.by_id.get(request.bp_id)
            if bp is None or bp.hit_rule is None or request.role not in ("hit", "handover") \
                    or request.probe_type in seen or only not in (None, bp.info.id):
                continue
            # A capture point counts as the round trip does: a done one no more (its probe counts on until it goes),
            # one with a hit count alone (a JVM Count filter by round trip) only the hits it lets by: its captures
            # carry their hit numbers (the probe's own count goes on).
            if bp.jvm_counts or (bp.info.capture is not None and bp.info.capture.done):
                continue
            seen.add(request.probe_type)
            with contextlib.suppress(JdwpError, StopIteration):
                bp.info.hits = await self._hits(request.probe_type)

    async def _number(self, bp: Breakpoint, request: ProbeRequest, thread: int, check_frame: int) -> int:
        """Count a hit the probe handed over and return its number: the probe's own (counted in the JVM under a
        hit rule, read from check's frame), else the next of the debugger's count."""
        if not bp.hit_rule:
            bp.info.hits += 1
            return bp.info.hits
        vm = self.session.require_vm()
        number = await read_number(vm, thread, check_frame, request.number_slot) \
            if request.number_slot is not None else None
        if number is None:  # (not kept: the probe's count now, as before)
            number = await self._hits(request.probe_type)
        bp.info.hits = max(bp.info.hits, number)  # (the count goes on: never back to an earlier hit's)
        return number

    async def _hits(self, probe_type: int) -> int:
        """The probe's count of condition-true hits (a hit rule is decided in the JVM)."""
        vm = self.session.require_vm()
        field_id = next(f.id for f in await vm.fields(probe_type) if f.name == "HITS")
        return (await vm.send(ReferenceType.GetValues, probe_type, [field_id])).values[0].value

    async def _skip_once(self, probe_type: int, thread: int) -> None:
        # One at a time: the events of threads stopped together are handled concurrently, and two that
        # read the same free slot would both write it (the first thread would then evaluate twice).
        async with self._skip_lock:
            await skip_once(self.session.require_vm(), probe_type, thread)

    # -- releasing -------------------------------------------------------------------------------------

    async def release(self, bp: Breakpoint) -> None:
        """`bp` is uninstalled: read what its logpoint probes logged, take its probe out of its classes
        (original bytes when it was the last).

        Never under a running frame: when a thread might be inside a method the redefinition would change
        (the stopped thread of a temporary breakpoint removed at its own stop, a thread running through the
        line), the probe is made inert instead (its requests cleared, FORCE on, so its call only reaches an
        empty hit()) and the class is redefined later, when no thread is inside (`settle`, or at detach)."""
        self._trials.pop(bp.info.id, None)
        self._awaited_types.pop(bp.info.id, None)
        conn = self.session.conn
        self._moving.discard(bp.info.id)  # (its upgrade request goes below)
        await self.logs.close(bp.info.id)
        for request_id in [r for r, p in self.requests.items() if p.bp_id == bp.info.id]:
            if self.requests.pop(request_id).role == "upgrade":  # not among the breakpoint's own requests
                self.tracker.by_request.pop(request_id, None)
                if conn is not None and not conn.is_closed:
                    with contextlib.suppress(JdwpError):
                        await conn.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
        for record in list(self.classes.values()):
            if bp.info.id not in record.specs:
                continue
            spec = record.specs.pop(bp.info.id)
            if conn is None or conn.is_closed:
                continue
            vm = self.session.require_vm()
            if not self.leaving and self._counting_in(record.type_id, bp) is not None:
                # Redefining would restart another breakpoint's Count filter: the probe goes inert, its call
                # stays in the code answering nobody, until the class is next instrumented or it is safe.
                await self._retire(record, bp.info.id, spec)
                continue
            data, result = await self._without_retired(record)
            if await thread_inside(vm, record.type_id, changed_methods(record.data, data)):
                await self._retire(record, bp.info.id, spec)
                continue
            await self._redefine(record, data, result, bp)

    def has_retired(self) -> bool:
        """Does some class still carry inert probes (settle has work)?"""
        return any(r.retired for r in self.classes.values())

    async def settle(self, *, force: bool = False) -> None:
        """Redefine the classes that still carry inert probes, where no thread is inside a changed method now
        (every thread is suspended: the session calls this before it resumes them all). `force`: at detach,
        whatever runs (a frame left on the old code then only calls an inert probe)."""
        conn = self.session.conn
        if conn is None or conn.is_closed:
            return
        vm = self.session.require_vm()
        for record in [r for r in self.classes.values() if r.retired]:
            try:
                data, result = await self._without_retired(record)
                if not force and (self._counting_in(record.type_id, None) is not None or await thread_inside(
                        vm, record.type_id, changed_methods(record.data, data))):
                    continue  # (a redefinition would restart another breakpoint's Count filter, or run under a frame)
                await self._redefine(record, data, result, None)
            except (JdwpError, DebuggerError) as exc:
                log.debug("restoring %s failed: %s", record.name, exc)

    async def _without_retired(self, record: ClassRecord) -> tuple[bytes, Instrumentation | None]:
        """The class's bytes with only its live breakpoints' probes (the original bytes when none is left)."""
        if record.specs:
            vm = self.session.require_vm()
            with contextlib.suppress(NotCompilable):
                result = await instrument(record.original, list(record.specs.values()), record.shapes(vm),
                                          record.compiled)
                return result.data, result
        return record.original, None

    async def _retire(self, record: ClassRecord, bp_id: str, spec: ProbeSpec) -> None:
        record.retired[bp_id] = spec
        if record.current is None:
            return
        vm = self.session.require_vm()
        for placed in record.current.probes:
            if placed.spec != spec:
                continue
            type_id = record.probe_types[placed.probe.class_name]
            fields = {f.name: f for f in await vm.fields(type_id)}
            with contextlib.suppress(JdwpError):
                # FORCE before ANY (set in this order): a call reads FORCE only once it has seen ANY raised.
                await vm.send(ClassType.SetValues, type_id, [(fields["FORCE"].id, Value.boolean(True)),
                                                             (fields["ANY"].id, Value.boolean(True))])

    async def _redefine(self, record: ClassRecord, data: bytes, result: Instrumentation | None,
                        released: Breakpoint | None) -> None:
        vm = self.session.require_vm()
        try:
            await vm.send(VirtualMachine.RedefineClasses, [(record.type_id, data)])
        except JdwpError as exc:
            log.warning("restoring %s failed: %s", record.name, exc)
            return
        record.current = result
        record.retired.clear()
        if result is None:
            self.classes.pop(record.type_id, None)
        vm.forget(record.type_id)
        await self._mark_inserted(record)
        await self._rebind_others(record.type_id, released)

    async def _mark_inserted(self, record: ClassRecord) -> None:
        """Tell the readers where the probe calls are in the class now (see inserted.py)."""
        vm = self.session.require_vm()
        for key in [k for k in vm.inserted if k[0] == record.type_id]:
            del vm.inserted[key]
        if record.current is None:
            return
        # (Every call in the bytes is a placed probe's, unless retired probes' inert calls stayed in them.)
        ranges = inserted_calls(record.current.data, set(record.probe_types),
                                None if record.retired else {placed.method for placed in record.current.probes})
        for method in await vm.methods(record.type_id):
            if method.name + method.signature in ranges:
                vm.inserted[(record.type_id, method.id)] = ranges[method.name + method.signature]

    # -- upgrading a round-trip breakpoint ------------------------------------------------------------

    async def maybe_upgrade(self, bp: Breakpoint, event: Any) -> None:
        """A round-trip hit of a breakpoint that waits only for a safe moment (set after its class loaded):
        stop once, every thread suspended, where the method returns to its caller, and instrument there."""
        mode = bp.info.mode or ""
        waits_for_type = mode.endswith(f"{AWAITS_TYPE})")
        if not (mode.startswith(f"round trip ({LOADED_BEFORE}") or waits_for_type) or not self.enabled \
                or not self.wanted(bp):  # (no condition, log or capture any more: nothing to move)
            return
        if self._upgrades.get(bp.info.id, 0) >= MAX_UPGRADES or self.upgrade_pending(bp):
            return
        if waits_for_type and not await self._awaited_type_loaded(bp):
            return
        self._moving.add(bp.info.id)  # (hits of other threads handled meanwhile ask for no second move)
        try:
            await self._ask_upgrade(bp, event)
        finally:
            if not any(p.bp_id == bp.info.id and p.role == "upgrade" for p in self.requests.values()):
                self._moving.discard(bp.info.id)

    async def _awaited_type_loaded(self, bp: Breakpoint) -> bool:
        """Has a type the breakpoint's condition names loaded since it could not be compiled? (Looked for at
        most every TYPE_CHECK_EVERY seconds: a name that is no class at all is looked for forever.)"""
        candidates, checked = self._awaited_types.get(bp.info.id, ((), 0.0))
        now = time.monotonic()
        if not candidates or now - checked < TYPE_CHECK_EVERY:
            return False
        self._awaited_types[bp.info.id] = (candidates, now)
        vm = self.session.require_vm()
        for candidate in candidates:
            with contextlib.suppress(JdwpError):
                if await vm.classes_by_name(candidate.replace("/", ".")):
                    del self._awaited_types[bp.info.id]
                    return True
        return False

    async def _ask_upgrade(self, bp: Breakpoint, event: Any) -> None:
        vm = self.session.require_vm()
        try:
            frames = (await vm.send(ThreadReference.Frames, event.thread, 0, 2)).frames
            if len(frames) < 2:
                return
            caller = frames[1].location
            code = (await vm.send(Method.Bytecodes, caller.class_id, caller.method_id)).bytecodes
            if caller.index >= len(code) or code[caller.index] not in range(0xB6, 0xBB):
                return  # not stopped in an ordinary call (reflection, a native frame...)
            after = caller.index + (5 if code[caller.index] in (0xB9, 0xBA) else 3)
            loc = Location(caller.type_tag, caller.class_id, caller.method_id, after)
            reply = await vm.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.ALL,
                                  [Mod.LocationOnly(loc), Mod.ThreadOnly(event.thread), Mod.Count(1)])
        except JdwpError:
            return
        self._upgrades[bp.info.id] = self._upgrades.get(bp.info.id, 0) + 1
        self.tracker.by_request[reply.request_id] = bp
        line = await self._line_of(event.location)
        self.requests[reply.request_id] = ProbeRequest(bp.info.id, "upgrade", event.location.class_id, None,
                                                       line=line)
        if bp.info.capture is not None:  # what its probe will call, defined while only this thread is held
            await self.tracker.captures.in_probe.define_ahead(bp, event.thread)
        self._trials.pop(bp.info.id, None)
        try:  # (and which methods its instrumentation changes: move_ahead.py)
            await self._try_ahead(bp, event.location.class_id, line, event.thread)
        except (JdwpError, DebuggerError) as exc:
            log.debug("trying %s's instrumentation ahead: %s", bp.info.id, exc)
        except Exception:  # a bug here must cost the head start, never the breakpoint (the move does it all)
            log.exception("trying %s's instrumentation ahead failed", bp.info.id)

    def upgrade_pending(self, bp: Breakpoint) -> bool:
        """Is the breakpoint waiting to move into the JVM, or moving now?"""
        return bp.info.id in self._moving or any(p.bp_id == bp.info.id and p.role == "upgrade"
                                                 for p in self.requests.values())

    async def _line_of(self, location: Location) -> int:
        method = await self.session.require_vm().line_table(location.class_id, location.method_id)
        return method.line_at(location.index)

    async def _upgrade_event(self, bp: Breakpoint, event: Any, request: ProbeRequest) -> None:
        """Back in the caller with every thread suspended: instrument now, if no thread is inside the method."""
        vm = self.session.require_vm()
        self.requests.pop(event.request_id, None)
        self.tracker.by_request.pop(event.request_id, None)
        with contextlib.suppress(JdwpError):
            await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, event.request_id)
        if self.tracker.by_id.get(bp.info.id) is not bp or not bp.info.enabled or bp.info.mode == "in-JVM" \
                or not self.wanted(bp):
            self._moving.discard(bp.info.id)
            return  # (gone, moved already, or nothing to move any more)
        info = await vm.type(request.probe_type)
        methods = [m for m in await vm.methods(info.id) if (info.id, m.id) in bp.method_ids] \
            if bp.info.kind in KINDS else None
        self._moving.add(bp.info.id)  # (from the request until it says in-JVM or why not)
        try:
            await self._move(bp, info, request, event, methods)
        finally:
            self._moving.discard(bp.info.id)

    async def _move(self, bp: Breakpoint, info: Any, request: ProbeRequest, event: Any, methods: Any) -> None:
        vm = self.session.require_vm()
        reason = await self.bind_at(bp, info, request.line, event.thread, methods)
        if reason is not None:
            bp.info.mode = f"round trip ({reason})"
            return
        # In the JVM now: the round-trip requests in this class died with the redefinition (a method exit's
        # request on the class did not: it goes too).
        for request_id, mods in list(bp.request_mods.items()):
            if any(isinstance(m, Mod.LocationOnly) and m.loc.class_id == info.id
                   or isinstance(m, Mod.ClassOnly) and m.clazz == info.id for m in mods):
                kind = bp.requests.get(request_id, EventKind.BREAKPOINT)
                bp.requests.pop(request_id, None)
                bp.request_mods.pop(request_id, None)
                self.tracker.by_request.pop(request_id, None)
                with contextlib.suppress(JdwpError):
                    await vm.send(EventRequest.Clear, kind, request_id)
        bp.info.mode = "in-JVM"
        self.session.history.add("breakpoint_changed", f"{bp.info.id} now runs in the JVM (in-JVM)", Actor.TARGET,
                                 breakpoint=bp.info.id)

    async def bind_at(self, bp: Breakpoint, info: Any, line: int, thread: int,
                      methods: list[Any] | None = None) -> str | None:
        try:
            return (method_refusal(bp, methods) if methods is not None else None) or \
                await self._bind(bp, info, line, thread, methods)
        except Exception as exc:  # as bind(): never break the breakpoint
            log.exception("in-JVM upgrade of %s failed", bp.info.id)
            return f"internal error while instrumenting: {exc!r}"

    async def hot_swap_bytes(self, type_id: int, data: bytes) -> list[tuple[str, int, bytes]] | None:
        """Hot swap is about to redefine the class with `data`: the redefinitions that keep its probes (the
        class instrumented anew, and probes whose code changed), or None to swap `data` as given."""
        if not self.enabled:
            return None
        try:
            return await swap.prepare(self, type_id, data)
        except Exception:  # never cost the hot swap: the breakpoints fall back instead
            log.exception("re-instrumenting the hot-swapped class failed")
            return None

    async def hot_swapped(self, type_id: int, redefined: bool) -> None:
        """After the hot swap's redefinition (`redefined`: the JVM took it)."""
        if not redefined:
            swap.discard(self, type_id)
            return
        try:
            kept = await swap.finish(self, type_id)
        except Exception:
            log.exception("finishing the re-instrumentation of a hot-swapped class failed")
            kept = False
        if kept:
            self.swapped_in.add(type_id)
            record = self.classes.get(type_id)
            if record is not None:
                await self._mark_inserted(record)  # the probe calls sit elsewhere in the new bytes

    def class_redefined(self, type_id: int) -> bool:
        """A class was redefined by hot swap. True when its probes came along (hot_swap_bytes): its in-JVM
        breakpoints stay as they are. Otherwise the probe calls went with the old bytes, and the original
        bytes we kept are no longer the class's: its breakpoints fall back to the round trip (never
        restore over it)."""
        self._fresh.pop(type_id, None)  # (bytes read before the swap: not the class's any more)
        if type_id in self.swapped_in:
            self.swapped_in.discard(type_id)
            return True
        if self.classes.pop(type_id, None) is not None:
            self.hotswapped.add(type_id)
            with contextlib.suppress(DebuggerError):
                inserted = self.session.require_vm().inserted
                for key in [k for k in inserted if k[0] == type_id]:
                    del inserted[key]
        return False

    def runs_in_jvm(self, bp: Breakpoint, type_id: int) -> bool:
        record = self.classes.get(type_id)
        return record is not None and bp.info.id in record.specs

    async def restore_leftovers(self, actor: Actor) -> None:
        """At attach: classes an earlier, dead session left instrumented get their original bytes back."""
        if getattr(self.session, "read_only", False):
            return  # a read-only session never changes the target's classes (it leaves them as found)
        try:
            restored = await restore_leftovers(self.session.require_vm())
        except Exception:  # never cost the attach
            log.exception("looking for classes an earlier session left instrumented failed")
            return
        if restored:
            self.session.history.add(
                "restored", f"restored {len(restored)} class(es) an earlier debugger session left instrumented: "
                f"{', '.join(sorted(restored))}", actor, classes=restored)

    def forget_vm(self) -> None:
        self.at_death.forget_vm()
        self.pending_swaps.clear()
        self.swapped_in.clear()
        self.logs.forget()
        self.pops.forget()
        self.classes.clear()
        self._fresh.clear()
        self._trials.clear()
        self.requests.clear()
        self.hotswapped.clear()
        self._upgrades.clear()
        self._awaited_types.clear()
