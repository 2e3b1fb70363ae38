"""In-JVM conditions and logpoints over JDWP: define the probe, redefine the class, answer the probe's events.

The breakpoint tracker asks ``InJvm.bind`` when a conditional breakpoint or logpoint binds to a class; on
success the breakpoint's only JDWP requests are on its probe (``hit``/``error``, or ``handover`` for a
logpoint), and the tracker hands their events to ``InJvm.on_event``. Otherwise ``bind`` returns the reason and
the breakpoint takes the round-trip path. ``release`` restores the original class bytes (or re-instruments
with the breakpoints that remain) when a breakpoint is removed, disabled, or the session detaches.

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
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

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
from ...jdwp.wire import Location, Value
from ..errors import DebuggerError, EvaluationError
from ..inspect.values import NESTED_STRING, quote_string
from ..model import Actor, StopKind
from ..render import log_where
from .plan import Instrumentation, NotCompilable, ProbeSpec, instrument
from .probe import SEPARATOR, STRING_CLOSE, STRING_OPEN
from .resolve import JdwpResolver

if TYPE_CHECKING:
    from ..breakpoints import Breakpoint, BreakpointTracker

log = logging.getLogger(__name__)

LOADED_BEFORE = "the class was loaded before the breakpoint was set"
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
    probe_types: dict[str, int] = field(default_factory=dict)  # probe class (internal name) -> type id
    current: Instrumentation | None = None
    resolver: JdwpResolver | None = None  # class shapes seen from its loader, kept across compilations
    compiled: dict = field(default_factory=dict)  # compiled probes by (spec, name, method), see plan.instrument

    def shapes(self, vm: Any) -> JdwpResolver:
        if self.resolver is None:
            self.resolver = JdwpResolver(vm, self.loader)
        return self.resolver


@dataclass
class ProbeRequest:
    bp_id: str
    role: str  # "hit", "error", "handover", "bridge" or "upgrade"
    probe_type: int  # an upgrade: the breakpoint's class
    record: ClassRecord | None
    line: int = 0  # bridges: the line and method (name + descriptor) the probe was placed in
    method: str = ""


_STRING_PART = re.compile(f"{STRING_OPEN}(.*?){STRING_CLOSE}", re.DOTALL)


def _as_logged(match: re.Match[str]) -> str:
    """A String part of a log line as the round trip shows it: escaped, long ones cut (inspector.format_log)."""
    quoted = quote_string(match.group(1), NESTED_STRING)
    return quoted[1:-1] if quoted.endswith('"') else quoted


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
        self.hotswapped: set[int] = set()
        self._upgrades: dict[str, int] = {}  # breakpoint id -> attempts to move it into the JVM  # classes redefined by hot swap: their bytes are no longer ours to know
        self.requests: dict[int, ProbeRequest] = {}
        self.leaving = False  # the session detaches: restore every class, whatever it restarts
        self._serial = 0
        self._rebinding = False

    @property
    def session(self) -> Any:
        return self.tracker.session

    # -- deciding ------------------------------------------------------------------------------------

    def wanted(self, bp: Breakpoint) -> bool:
        """Would this breakpoint gain from running in the JVM (a line breakpoint with a condition or log)?"""
        return bp.info.kind == "line" and not bp.internal and bool(bp.info.condition or bp.info.log)

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
        return request_id in self.requests

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

    async def _bind(self, bp: Breakpoint, info: Any, line: int, thread: int | None = None) -> str | None:
        reason = self.refusal(bp)
        if reason is not None:
            return reason
        if info.id in self.hotswapped:
            return "the class was redefined by hot swap since"
        if self._rebinding:
            return bp.info.mode[len("round trip ("):-1] if bp.info.mode and bp.info.mode.startswith("round") \
                else "the class was being re-instrumented"
        vm = self.session.require_vm()
        at_prepare = thread is None and EVENT_THREAD.get() is not None
        thread = thread or EVENT_THREAD.get()
        if thread is None:
            stop = getattr(self.session, "stop", None)
            if stop is None or stop.kind is StopKind.PAUSE or not stop.thread_id:
                return (f"{LOADED_BEFORE} and no thread is stopped at an event (in-JVM mode starts when the class "
                        "loads after the breakpoint, when set at a stop, or once the method returns)")
            thread = stop.thread_id
        try:
            record = self.classes.get(info.id)
            if record is None:
                loader = (await vm.send(ReferenceType.ClassLoader, info.id)).class_loader
                if not loader:
                    return "the class belongs to the boot class loader"
                internal = info.signature[1:-1]
                original = await self._class_bytes(thread, loader, internal)
                if original is None:
                    return f"the class file {internal}.class was not found through its class loader"
                record = ClassRecord(info.id, info.tag, internal, loader, original)
            counting = None if at_prepare else self._counting_in(info.id, bp)
            if counting is not None:
                return (f"{counting.info.id} counts its hits in the JVM in this class (a Count filter, whose "
                        "progress JDWP cannot read): redefining the class would restart that count")
            if not at_prepare and await self._running_in(record, line):
                return f"{LOADED_BEFORE} and a thread is inside the method now (its frame would keep running the old code)"
            spec = ProbeSpec(line, bp.info.condition, bp.info.log, self._probe_name(record.name), _rule(bp))
            specs = {**record.specs, bp.info.id: spec}
            try:
                result = await instrument(record.original, list(specs.values()), record.shapes(vm), record.compiled)
            except NotCompilable as exc:
                return f"not compilable: {exc}"
            for placed in result.probes:
                if placed.probe.class_name not in record.probe_types:
                    record.probe_types[placed.probe.class_name] = await self._define(thread, record.loader,
                                                                                     placed.probe.class_name,
                                                                                     placed.probe.data)
            try:
                await vm.send(VirtualMachine.RedefineClasses, [(record.type_id, result.data)])
            except JdwpError as exc:
                return f"the JVM refused the instrumented class: {exc}"
            record.specs, record.current = specs, result
            self.classes[record.type_id] = record
            await self._request_probe_events(bp, record, spec)
            vm.forget(record.type_id)
            await self._rebind_others(record.type_id, bp)
            return None
        except (JdwpError, DebuggerError) as exc:
            log.debug("in-JVM binding failed", exc_info=True)
            return f"could not prepare the probe: {exc}"

    async def update(self, bp: Breakpoint) -> bool:
        """A changed condition or log of an in-JVM breakpoint: when the probe keeps its signature, redefine
        only the probe class (the user's method, running or not, is untouched); False: uninstall + install."""
        records = [r for r in self.classes.values() if bp.info.id in r.specs]
        if not records or not self.wanted(bp) or self.refusal(bp) or not bp.info.enabled or not bp.info.armed:
            return False
        vm = self.session.require_vm()
        redefinitions: list[tuple[int, bytes]] = []
        updated: list[tuple[ClassRecord, dict[str, ProbeSpec], Instrumentation]] = []
        for record in records:
            old = record.specs[bp.info.id]
            if (old.log is None) != (bp.info.log is None):
                return False  # a logpoint's probe has other fields and superclass: not a redefinition
            spec = ProbeSpec(old.line, bp.info.condition, bp.info.log, old.probe_name, _rule(bp))
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
        for request_id in [r for r, p in self.requests.items() if p.bp_id == bp.info.id and p.role != "bridge"]:
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

    def _probe_name(self, internal: str) -> str:
        self._serial += 1
        package, _, simple = internal.rpartition("/")
        name = f"TracepilotProbe{self._serial}_{simple.replace('$', '_')}"
        return f"{package}/{name}" if package else name

    async def _request_probe_events(self, bp: Breakpoint, record: ClassRecord, spec: ProbeSpec) -> None:
        vm = self.session.require_vm()
        assert record.current is not None
        roles = ("handover",) if spec.log is not None else ("hit", "error")
        if spec.log is not None and spec.condition:
            roles = ("handover", "error")
        for placed in record.current.probes:
            if placed.spec != spec:
                continue
            type_id = record.probe_types[placed.probe.class_name]
            methods = {m.name: m for m in await vm.methods(type_id)}
            if bp.hit_rule is not None:  # the probe counts on from the breakpoint's count (update may reset it)
                field_id = next(f.id for f in await vm.fields(type_id) if f.name == "HITS")
                await vm.send(ClassType.SetValues, type_id, [(field_id, Value.int(bp.info.hits))])
            for role in roles:
                loc = Location(TypeTag.CLASS, type_id, methods[role].id, 0)
                mods: list[Any] = [Mod.LocationOnly(loc)]
                if bp.thread_id:
                    mods.append(Mod.ThreadOnly(bp.thread_id))
                policy = SuspendPolicy.ALL if role == "hit" and bp.info.suspend == "all" else SuspendPolicy.EVENT_THREAD
                reply = await vm.send(EventRequest.Set, EventKind.BREAKPOINT, policy, mods)
                bp.requests[reply.request_id] = EventKind.BREAKPOINT
                self.tracker.by_request[reply.request_id] = bp
                self.requests[reply.request_id] = ProbeRequest(bp.info.id, role, type_id, record)

    async def _rebind_others(self, type_id: int, mine: Breakpoint | None) -> None:
        """The JVM dropped every JDWP breakpoint in the redefined class and code indices moved: bind the
        class's other (round-trip) line and method breakpoints in it again, in this class only."""
        vm = self.session.require_vm()
        conn = self.session.conn
        info = await vm.type(type_id)
        self._rebinding = True
        try:
            for other in list(self.tracker.by_id.values()):
                if other is mine or type_id not in other.bound_types or self._is_in_jvm(other):
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
                other.info.locations = [loc for loc in other.info.locations if loc.class_name != info.name]
                if other.info.kind == "line":
                    await self.tracker.bind_line(other, info)
                else:
                    await self.tracker.bind_method(other, info)
        finally:
            self._rebinding = False

    def _counting_in(self, type_id: int, mine: Breakpoint) -> Breakpoint | None:
        """A breakpoint in the class whose hit count a JVM Count filter holds, still counting: a
        redefinition drops its request, and binding it again would count from zero."""
        for other in self.tracker.by_id.values():
            if other is mine or type_id not in other.bound_types or not other.jvm_counts or not other.requests:
                continue
            rule = other.hit_rule
            if rule is not None and not (other.fired and rule.mode in ("ge", "eq")):
                return other
        return None

    def _is_in_jvm(self, bp: Breakpoint) -> bool:
        """Bound by its probe now. (Not a pending upgrade or an old binding's bridge: such a breakpoint's
        round-trip requests die with a redefinition like any other's.)"""
        return any(r.bp_id == bp.info.id and r.role in ("hit", "error", "handover") for r in self.requests.values())

    async def _running_in(self, record: ClassRecord, line: int) -> bool:
        """Is any thread inside a method that has `line`, or not suspended (so it could enter one)?"""
        vm = self.session.require_vm()
        methods = {m.id for m in await vm.line_tables(record.type_id) if any(n == line for _, n in m.lines or ())}
        for thread in (await vm.send(VirtualMachine.AllThreads)).threads:
            try:
                frames = (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames
            except JdwpError:
                return True  # running (not suspended): it could be anywhere
            if any(f.location.class_id == record.type_id and f.location.method_id in methods for f in frames):
                return True
        return False

    # -- talking to the target -----------------------------------------------------------------------

    async def _invoke(self, thread: int, obj: int | None, clazz: int, method: int, args: list[Value]) -> Value:
        vm = self.session.require_vm()
        invoking = getattr(self.session, "invoking", None)
        context = invoking(thread, "defining the in-JVM probe") if invoking else contextlib.nullcontext()
        async with context:
            if obj is None:
                reply = await vm.send(ClassType.InvokeMethod, clazz, thread, method, args,
                                      int(InvokeOptions.SINGLE_THREADED))
            else:
                reply = await vm.send(ObjectReference.InvokeMethod, obj, thread, clazz, method, args,
                                      int(InvokeOptions.SINGLE_THREADED))
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
        values = (await vm.send(ArrayReference.GetValues, array.value, 0, length)).values
        return bytes(v.value & 0xFF for v in values)

    async def _define(self, thread: int, loader: int, name: str, data: bytes) -> int:
        """ClassLoader.defineClass(name, bytes, 0, len) in the breakpoint class's loader: the probe shares its
        runtime package, so it may use the class's package-private members."""
        vm = self.session.require_vm()
        byte_array_type = (await vm.send(VirtualMachine.ClassesBySignature, "[B")).classes[0].type_id
        array = (await vm.send(ArrayType.NewInstance, byte_array_type, len(data))).new_array.value
        text = (await vm.send(VirtualMachine.CreateString, name.replace("/", "."))).string_object
        for obj in (array, text):
            await vm.send(ObjectReference.DisableCollection, obj)
        try:
            signed = [Value(Tag.BYTE, b - 256 if b > 127 else b) for b in data]
            await vm.send(ArrayReference.SetValues, array, 0, signed)
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
        request = self.requests[event.request_id]
        if request.role == "bridge":
            return await self._bridge_event(bp, event, request)
        if request.role == "upgrade":
            await self._upgrade_event(bp, event, request)
            return None
        session = self.session
        vm = session.require_vm()
        # hit/error <- check <- the user's method; handover may run in the shutdown hook (two frames only).
        frames = (await vm.send(ThreadReference.Frames, event.thread, 0, 1 if request.role == "handover" else 3)).frames
        if request.role == "handover":
            text = await self._string_in_slot0(event.thread, frames[0].frame_id)
            lines = text.split(SEPARATOR)
            bp.info.hits = await self._hits(request.probe_type) if bp.hit_rule else bp.info.hits + len(lines)
            bp.fired = True
            await self.tracker.arm_dependants(bp)
            # Recorded once the thread runs again: the target waits only for the one read of the batch.
            where = log_where(bp.info.locations[0], None) if bp.info.locations else ("", {})  # (lines of any thread)
            asyncio.get_running_loop().call_soon(self._record_lines, bp, lines, event.thread, where)
            return None
        message = None
        if request.role == "error":
            thrown = await self._value_in_slot0(event.thread, frames[0].frame_id)
            what = await self._describe_throwable(thrown) if thrown else "an exception"
            if bp.info.log and not bp.info.condition:
                session.history.add("log", f"{bp.info.log} [log error: {what}]", Actor.TARGET, breakpoint=bp.info.id,
                                    thread=event.thread)
                return None
            message = f"condition error, stopped: threw {what}"  # as the round trip words it
            # As by round trip: a condition that fails counts as a true one, hit rule included (the probe
            # threw before counting, so it is counted here, in the probe too, for the hits after it).
            if bp.hit_rule is not None:
                bp.info.hits = await self._count_hit(request.probe_type)
                if not bp.hit_rule.passes(bp.info.hits):
                    return None
            else:
                bp.info.hits += 1
        else:  # counted in the probe when a hit rule decides there
            bp.info.hits = await self._hits(request.probe_type) if bp.hit_rule else bp.info.hits + 1
        bp.fired = True
        await self.tracker.arm_dependants(bp)
        user = frames[2]
        # Pop the probe's frames: the thread stands at the user's line again, frame 0 is the user's method.
        await vm.send(StackFrame.PopFrames, event.thread, frames[1].frame_id)
        await self._skip_once(request.probe_type, event.thread)
        if message is not None:
            message = await self._condition_error(bp, event.thread, message)
        if message is not None and bp.info.log:  # a logpoint whose condition failed logs, then stops (round trip)
            await self._log_at_stop(bp, event.thread)
        reason = await self.tracker.stop_reason(bp, _Event(event.thread, user.location, event.request_id), {})
        reason.message = message
        if bp.info.temporary:
            with contextlib.suppress(DebuggerError):
                await self.tracker.remove(bp.info.id, actor=Actor.TARGET, quiet=bp.internal)
        needs_vm_suspend = request.role == "error" and bp.info.suspend == "all"
        return reason, needs_vm_suspend

    def _record_lines(self, bp: Breakpoint, lines: list[str], thread: int, where: tuple[str, dict[str, Any]]) -> None:
        """Into the history, at most the logpoint rate (as round-trip logpoints): the target is not slowed
        by a hot in-JVM logpoint, but the history would drown everything else in its lines."""
        add = self.session.history.add
        suffix, details = where
        rate = self.tracker.logpoint_rate
        if rate > 0 and (bp.bucket is None or bp.bucket.rate != rate):
            from ..breakpoints import TokenBucket

            bp.bucket = TokenBucket(rate)
        recorded = 0
        for line in lines:
            if rate > 0 and not bp.bucket.take():  # type: ignore[union-attr]
                continue
            recorded += 1
            if STRING_OPEN in line:
                line = _STRING_PART.sub(_as_logged, line)
            add("log", line + suffix, Actor.TARGET, breakpoint=bp.info.id, thread=thread, **details)
        if recorded == len(lines):
            return
        every = max(bp.sample_every, -(-len(lines) // max(recorded, 1)))
        first = bp.sample_every <= 1
        bp.sample_every = bp.info.sampled = every
        bp.info.message = f"throttled: fired faster than {rate:g} log lines/s; about 1 line in {every} is recorded"
        if first:
            self.session.history.add(
                "breakpoint_throttled",
                f"{bp.info.id} logpoint throttled: more than {rate:g} lines/s would flood the history, so about 1 "
                f"line in {every} is recorded (the JVM formats them all; breakpoint_update {bp.info.id} resets it)",
                Actor.TARGET, breakpoint=bp.info.id, sample_every=every, rate=rate)

    async def _value_in_slot0(self, thread: int, frame_id: int) -> int:
        vm = self.session.require_vm()
        values = (await vm.send(StackFrame.GetValues, thread, frame_id, [(0, ord("L"))])).values
        return values[0].value or 0

    async def _string_in_slot0(self, thread: int, frame_id: int) -> str:
        obj = await self._value_in_slot0(thread, frame_id)
        if not obj:
            return ""
        return (await self.session.require_vm().send(StringReference.Value, obj)).string_value

    async def _condition_error(self, bp: Breakpoint, thread: int, message: str) -> str:
        """The condition threw in the JVM: the round trip's words for it (where in the expression), from the
        same evaluation in the user's frame; the JVM's own when that one does not throw."""
        try:
            await self.session.inspector.evaluate_condition(bp.info.condition, thread, {})
        except (EvaluationError, DebuggerError) as exc:
            return f"condition error, stopped: {exc}"
        return message

    async def _log_at_stop(self, bp: Breakpoint, thread: int) -> None:
        """The line a logpoint logs at a stop, formatted by round trip in the user's frame."""
        session = self.session
        try:
            text = await session.inspector.format_log(bp.info.log, thread, {})
        except DebuggerError as exc:
            text = f"{bp.info.log} [log error: {exc}]"
        where = log_where(bp.info.locations[0], None) if bp.info.locations else ("", {})
        session.history.add("log", text + where[0], Actor.TARGET, breakpoint=bp.info.id, thread=thread, **where[1])

    async def _count_hit(self, probe_type: int) -> int:
        """One more hit in the probe's count (HITS += 1), for a hit the probe could not count itself."""
        vm = self.session.require_vm()
        field_id = next(f.id for f in await vm.fields(probe_type) if f.name == "HITS")
        hits = (await vm.send(ReferenceType.GetValues, probe_type, [field_id])).values[0].value + 1
        await vm.send(ClassType.SetValues, probe_type, [(field_id, Value.int(hits))])
        return hits

    async def refresh_hits(self) -> None:
        """Hits a probe counted without telling the debugger (a hit rule let them pass by): read them, so
        breakpoint_list counts what the round trip counts."""
        conn = self.session.conn
        if conn is None or conn.is_closed:
            return
        seen: set[int] = set()
        for request in list(self.requests.values()):
            bp = self.tracker.by_id.get(request.bp_id)
            if bp is None or bp.hit_rule is None or request.role not in ("hit", "handover") \
                    or request.probe_type in seen:
                continue
            seen.add(request.probe_type)
            with contextlib.suppress(JdwpError, StopIteration):
                bp.info.hits = await self._hits(request.probe_type)

    async def _hits(self, probe_type: int) -> int:
        """The probe's count of condition-true hits (a hit rule is decided in the JVM)."""
        vm = self.session.require_vm()
        field_id = next(f.id for f in await vm.fields(probe_type) if f.name == "HITS")
        return (await vm.send(ReferenceType.GetValues, probe_type, [field_id])).values[0].value

    async def _skip_once(self, probe_type: int, thread: int) -> None:
        """Put the thread in the probe's SKIP slots and raise ANY: the re-run call returns at once."""
        vm = self.session.require_vm()
        fields = {f.name: f for f in await vm.fields(probe_type)}
        skip = (await vm.send(ReferenceType.GetValues, probe_type, [fields["SKIP"].id])).values[0].value
        slots = (await vm.send(ArrayReference.GetValues, skip, 0, 16)).values
        free = next((i for i, v in enumerate(slots) if not v.value), 0)
        await vm.send(ArrayReference.SetValues, skip, free, [Value.object(thread, Tag.THREAD)])
        await vm.send(ClassType.SetValues, probe_type, [(fields["ANY"].id, Value.boolean(True))])

    # -- releasing -------------------------------------------------------------------------------------

    async def release(self, bp: Breakpoint) -> None:
        """`bp` is uninstalled: take its probe out of its classes (original bytes when it was the last).

        A frame running an instrumented method when it is redefined keeps running the instrumented code,
        where no JDWP breakpoint can reach it: its probe is switched to FORCE, and a "bridge" request on the
        probe's hit() lets the debugger decide those hits over JDWP for whatever the breakpoint becomes."""
        conn = self.session.conn
        for request_id in [r for r, p in self.requests.items() if p.bp_id == bp.info.id and p.role != "bridge"]:
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
                # Redefining would restart another breakpoint's Count filter: the probe call stays in the
                # code, answering nobody (its hit() and handover() have no request any more), until the
                # class is next instrumented or the session leaves (restore_leftovers).
                continue
            if await self._frames_in(record.type_id):
                await self._bridge(bp, record, spec)
            data = record.original
            if record.specs:
                try:
                    result = await instrument(record.original, list(record.specs.values()), record.shapes(vm), record.compiled)
                    data, record.current = result.data, result
                except NotCompilable:
                    data = record.original
            if not record.specs or data is record.original:
                self.classes.pop(record.type_id, None)
            try:
                await vm.send(VirtualMachine.RedefineClasses, [(record.type_id, data)])
            except JdwpError as exc:
                log.warning("restoring %s failed: %s", record.name, exc)
                continue
            vm.forget(record.type_id)
            await self._rebind_others(record.type_id, bp)

    async def restore_leftovers(self) -> None:
        """The session leaves: classes whose last probe was released without a redefinition get their
        original bytes back."""
        conn = self.session.conn
        for record in [r for r in self.classes.values() if not r.specs]:
            self.classes.pop(record.type_id, None)
            if conn is None or conn.is_closed:
                continue
            try:
                await self.session.require_vm().send(VirtualMachine.RedefineClasses, [(record.type_id, record.original)])
            except JdwpError as exc:
                log.warning("restoring %s failed: %s", record.name, exc)

    async def _frames_in(self, type_id: int) -> bool:
        """Might a thread have a frame in the class (a running thread might: it is not looked at)?"""
        vm = self.session.require_vm()
        for thread in (await vm.send(VirtualMachine.AllThreads)).threads:
            try:
                frames = (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames
            except JdwpError:
                return True
            if any(f.location.class_id == type_id for f in frames):
                return True
        return False

    async def _bridge(self, bp: Breakpoint, record: ClassRecord, spec: ProbeSpec) -> None:
        vm = self.session.require_vm()
        if record.current is None:
            return
        for placed in record.current.probes:
            if placed.spec != spec or any(p.role == "bridge" and p.probe_type == record.probe_types[
                    placed.probe.class_name] for p in self.requests.values()):
                continue
            type_id = record.probe_types[placed.probe.class_name]
            fields = {f.name: f for f in await vm.fields(type_id)}
            await vm.send(ClassType.SetValues, type_id, [(fields["FORCE"].id, Value.boolean(True))])
            hit = next(m for m in await vm.methods(type_id) if m.name == "hit")
            reply = await vm.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                                  [Mod.LocationOnly(Location(TypeTag.CLASS, type_id, hit.id, 0))])
            # Not in bp.requests: it outlives this binding (the tracker re-installs the breakpoint next).
            self.tracker.by_request[reply.request_id] = bp
            self.requests[reply.request_id] = ProbeRequest(bp.info.id, "bridge", type_id, record, spec.line,
                                                           placed.method)

    async def _bridge_event(self, bp: Breakpoint, event: Any, request: ProbeRequest) -> tuple[Any, bool] | None:
        """A hit from a frame still running replaced code: pop the probe, then decide as the round trip does."""
        session = self.session
        vm = session.require_vm()
        if self.tracker.by_id.get(bp.info.id) is not bp or not bp.info.enabled or not bp.info.armed:
            # Removed or disabled since: the old code's hits mean nothing now. Close the bridge (its probe
            # evaluates its own condition again, with no breakpoint behind hit()) so they cost nothing.
            await self._close_bridge(event.request_id, request)
            return None
        frames = (await vm.send(ThreadReference.Frames, event.thread, 0, 3)).frames
        await vm.send(StackFrame.PopFrames, event.thread, frames[1].frame_id)
        await self._skip_once(request.probe_type, event.thread)
        user = _Event(event.thread, await self._current_location(request, frames[2].location), event.request_id)
        message = None
        if bp.info.condition:
            try:
                ok = await session.inspector.evaluate_condition(bp.info.condition, event.thread, {})
            except (EvaluationError, DebuggerError) as exc:
                ok, message = True, f"condition error, stopped: {exc}"
            if not ok:
                return None
        bp.info.hits += 1
        if bp.hit_rule is not None and not bp.hit_rule.passes(bp.info.hits):
            return None
        bp.fired = True
        await self.tracker.arm_dependants(bp)
        if bp.info.log:
            try:
                text = await session.inspector.format_log(bp.info.log, event.thread, {})
            except DebuggerError as exc:
                text = f"{bp.info.log} [log error: {exc}]"
            session.history.add("log", text, Actor.TARGET, breakpoint=bp.info.id, thread=event.thread)
            if message is None:
                return None
        reason = await self.tracker.stop_reason(bp, user, {})
        reason.message = message
        return reason, bp.info.suspend == "all"

    # -- upgrading a round-trip breakpoint ------------------------------------------------------------

    async def maybe_upgrade(self, bp: Breakpoint, event: Any) -> None:
        """A round-trip hit of a breakpoint that waits only for a safe moment (set after its class loaded):
        stop once, every thread suspended, where the method returns to its caller, and instrument there."""
        if not (bp.info.mode or "").startswith(f"round trip ({LOADED_BEFORE}") or not self.enabled:
            return
        if self._upgrades.get(bp.info.id, 0) >= MAX_UPGRADES or any(
                p.bp_id == bp.info.id and p.role == "upgrade" for p in self.requests.values()):
            return
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
        self.requests[reply.request_id] = ProbeRequest(bp.info.id, "upgrade", event.location.class_id, None,
                                                       line=await self._line_of(event.location))

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
        if self.tracker.by_id.get(bp.info.id) is not bp or not bp.info.enabled:
            return
        info = await vm.type(request.probe_type)
        reason = await self.bind_at(bp, info, request.line, event.thread)
        if reason is not None:
            bp.info.mode = f"round trip ({reason})"
            return
        # In the JVM now: the round-trip requests in this class died with the redefinition.
        for request_id, mods in list(bp.request_mods.items()):
            if any(isinstance(m, Mod.LocationOnly) and m.loc.class_id == info.id for m in mods):
                bp.requests.pop(request_id, None)
                bp.request_mods.pop(request_id, None)
                self.tracker.by_request.pop(request_id, None)
                with contextlib.suppress(JdwpError):
                    await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
        bp.info.mode = "in-JVM"
        self.session.history.add("breakpoint_changed", f"{bp.info.id} now runs in the JVM (in-JVM)", Actor.TARGET,
                                 breakpoint=bp.info.id)

    async def bind_at(self, bp: Breakpoint, info: Any, line: int, thread: int) -> str | None:
        try:
            return await self._bind(bp, info, line, thread)
        except Exception as exc:  # as bind(): never break the breakpoint
            log.exception("in-JVM upgrade of %s failed", bp.info.id)
            return f"internal error while instrumenting: {exc!r}"

    async def _close_bridge(self, request_id: int, request: ProbeRequest) -> None:
        vm = self.session.require_vm()
        self.requests.pop(request_id, None)
        self.tracker.by_request.pop(request_id, None)
        with contextlib.suppress(JdwpError):
            await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
            fields = {f.name: f for f in await vm.fields(request.probe_type)}
            await vm.send(ClassType.SetValues, request.probe_type, [(fields["FORCE"].id, Value.boolean(False))])

    async def _current_location(self, request: ProbeRequest, location: Location) -> Location:
        """The frame runs an obsolete method version (no line table over JDWP): report the same line in the
        method's current version."""
        vm = self.session.require_vm()
        current = {m.id: m for m in await vm.line_tables(location.class_id)}
        if location.method_id in current:
            return location
        for method in current.values():
            if method.name + method.signature != request.method:
                continue
            indices = [index for index, number in method.lines or () if number == request.line]
            if indices:
                return Location(location.type_tag, location.class_id, method.id, min(indices))
        return location

    def class_redefined(self, type_id: int) -> None:
        """Hot swap replaced the class: our probe calls went with the old bytes, and the original bytes we
        kept are no longer the class's. Its breakpoints fall back to the round trip (never restore over it)."""
        if self.classes.pop(type_id, None) is not None:
            self.hotswapped.add(type_id)

    def forget_vm(self) -> None:
        self.classes.clear()
        self.requests.clear()
        self.hotswapped.clear()
        self._upgrades.clear()
