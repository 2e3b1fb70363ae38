"""In-JVM tracing over JDWP: the matching classes get probe calls (inject.py) into a hub class (probe.py)
defined in their loader; at the end the debugger holds the program, switches the hub off, reads every
thread's call tree from its arrays and the first calls the hub recorded (recording.py: references it kept,
whose texts are read now, as `inspect` shows them), and gives the classes their original bytes back. A killed debugger leaves marker probes that
the next session's leftovers.py restores the classes from.

It needs a thread stopped at an event (calls into the target define the probe): a trace started at a stop
with resume=true. Everything else, and anything refused on the way, falls back to the round trip, and the
answer says why.

A method already running when the classes are redefined keeps running its old code in that frame: that
call is not counted, its callees are (roots of the tree), as on the round trip where its entry was never
seen; its next calls are (but in a method holding a breakpoint, left uninstrumented so the breakpoint
still fires in the running frame).
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ...jdwp import (
    ArrayReference,
    ClassType,
    JdwpError,
    ObjectReference,
    ReferenceType,
    StringReference,
    Tag,
    ThreadReference,
    VirtualMachine,
)
from ...jdwp.wire import Value
from ..capture.model import CaptureLimits
from ..errors import DebuggerError
from ..inspect.handles import HandleTable
from ..inspect.values import Values
from ..instrument.naming import is_probe_class, session_token
from ..model import RecordedCall, StopKind
from .inject import NotTraceable, instrument
from .probe import RECORDED_CALLS, NoJavac, compile_probes
from .tree import Key, Node, Stat, Trees

log = logging.getLogger(__name__)

SUFFIX = "__TracepilotProbe"


class Fallback(Exception):
    """Why the round trip traces instead."""


@dataclass
class Traced:
    type_id: int
    internal: str
    original: bytes
    methods: list = field(default_factory=list)  # inject.TracedMethod


def matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


class InJvmTrace:
    def __init__(self, session: Any, vm: Any, patterns: list[str]) -> None:
        self.session = session
        self.vm = vm
        self.patterns = patterns
        self.hub_type = 0
        self.state_fields: dict[str, int] = {}
        self.hub_fields: dict[str, int] = {}
        self.classes: list[Traced] = []
        self.markers: list[int] = []
        self.names: dict[Key, str] = {}
        self.untimed: set[Key] = set()  # tiny leaves, counted only (inject.is_tiny_leaf)
        self.methods: dict[int, tuple[int, int]] = {}  # probe's method number -> (class id, method id)
        self.first_calls: list[RecordedCall] = []
        self.max_recorded = RECORDED_CALLS  # first calls recorded per method (max_calls lowers it; never counting)
        self.thread_names: dict[int, str] = {}
        self.trees = Trees()
        self.calls = 0

    # -- setting up ----------------------------------------------------------------------------------

    async def install(self) -> None:
        """Instrument the matching classes; raises Fallback with the reason when it cannot."""
        in_jvm = getattr(getattr(self.session, "breakpoints", None), "in_jvm", None)
        if in_jvm is None or not in_jvm.enabled:
            raise Fallback("in-JVM mode is off (--no-instrument)")
        if getattr(self.session, "read_only", False):
            raise Fallback("a read-only session never changes the target's classes")
        if not self.vm.capabilities.get("can_redefine_classes"):
            raise Fallback("this JVM cannot redefine classes")
        stop = self.session.stop
        if stop is None or not stop.thread_id:
            raise Fallback("no thread is stopped at an event to define the probe with (stop at a breakpoint, "
                           "then trace with resume=true)")
        if stop.kind is StopKind.PAUSE:
            raise Fallback("a pause suspends no thread at an event to define the probe with (stop at a breakpoint, "
                           "then trace with resume=true)")
        thread = stop.thread_id
        found = [t for t in await self.vm.all_classes(refresh=True)
                 if t.signature.startswith("L") and matches(t.name, self.patterns) and not is_probe_class(t.signature)]
        if not found:
            raise Fallback("no loaded class matches the pattern")
        owned = set(in_jvm.classes)
        if any(t.id in owned for t in found):
            raise Fallback("a condition or logpoint is compiled into a matching class")
        loaders = {(await self.vm.send(ReferenceType.ClassLoader, t.id)).class_loader for t in found}
        if len(loaders) != 1 or 0 in loaders:
            raise Fallback("the matching classes are not all in one (non-boot) class loader")
        loader = loaders.pop()
        try:
            for t in found:
                internal = t.signature[1:-1]
                original = await in_jvm._class_bytes(thread, loader, internal)
                if original is None:
                    raise Fallback(f"the class file of {t.name} was not found through its loader")
                self.classes.append(Traced(t.id, internal, original))
            package = self.classes[0].internal.rpartition("/")[0]
            token = session_token()
            hub = f"Trace_{token}{SUFFIX}"
            markers = [f"Trace_{token}_{i}{SUFFIX}" for i in range(len(self.classes))]
            prefix = f"{package}/" if package else ""
            instrumented: list[tuple[int, bytes]] = []
            index = 0
            running = await self._running()
            for traced in self.classes:
                data, traced.methods = instrument(traced.original, prefix + hub, index,
                                                  frozenset(running.get(traced.type_id, ())))
                index += len(traced.methods)
                instrumented.append((traced.type_id, data))
            java_home = await self._java_home(thread)
            compiled = await asyncio.to_thread(compile_probes, package, hub, markers, java_home)
            self.hub_type = await in_jvm._define(thread, loader, prefix + hub, compiled[prefix + hub])
            for name in sorted(compiled):
                if name.startswith(prefix + hub + "$"):
                    await in_jvm._define(thread, loader, name, compiled[name])
            for traced, marker in zip(self.classes, markers, strict=True):
                marker_type = await in_jvm._define(thread, loader, prefix + marker, compiled[prefix + marker])
                await self._mark(in_jvm, marker_type, traced)
                self.markers.append(marker_type)
            self.hub_fields = {f.name: f.id for f in await self.vm.fields(self.hub_type)}
            if self.max_recorded != RECORDED_CALLS:
                await self.vm.send(ClassType.SetValues, self.hub_type,
                                   [(self.hub_fields["MAX_CALLS"], Value.int(self.max_recorded))])
            await self.vm.send(VirtualMachine.RedefineClasses, instrumented)
        except (NotTraceable, NoJavac) as exc:
            raise Fallback(str(exc)) from None
        except (JdwpError, DebuggerError) as exc:
            raise Fallback(f"could not instrument: {exc}") from None
        for traced in self.classes:
            self.vm.forget(traced.type_id)
            await in_jvm._rebind_others(traced.type_id, None)  # the JVM dropped their breakpoints
        await self._names()

    async def _running(self) -> dict[int, set[tuple[str, str]]]:
        """Per traced class, the methods some thread is inside now (the program is held: stacks are still)."""
        wanted = {t.type_id for t in self.classes}
        running: dict[int, set[tuple[str, str]]] = {}
        for thread in (await self.vm.send(VirtualMachine.AllThreads)).threads:
            try:
                frames = (await self.vm.send(ThreadReference.Frames, thread, 0, -1)).frames
            except JdwpError:
                continue
            for frame in frames:
                loc = frame.location
                if loc.class_id in wanted:
                    method = await self.vm.method(loc.class_id, loc.method_id)
                    running.setdefault(loc.class_id, set()).add((method.name, method.signature))
        # Only a running method with a breakpoint in it stays as it is (a frame left on replaced code never
        # stops there); the others are traced from their next call (a loop's callee on the stack now: chunk
        # called a million times would otherwise never be counted).
        held = {(loc.class_name, loc.method) for bp in self.session.breakpoints.list(include_internal=True)
                for loc in bp.locations}
        names = {t.type_id: t.internal.replace("/", ".") for t in self.classes}
        return {c: {m for m in methods if (names[c], m[0]) in held} for c, methods in running.items()}

    async def _java_home(self, thread: int) -> str | None:
        """java.home of the target, for the javac next to it (same JDK: the probe's class version fits)."""
        try:
            text = (await self.vm.send(VirtualMachine.CreateString, "java.home")).string_object
            system = (await self.vm.classes_by_name("java.lang.System"))[0].id
            get = next(m.id for m in await self.vm.methods(system)
                       if m.name == "getProperty" and m.signature == "(Ljava/lang/String;)Ljava/lang/String;")
            in_jvm = self.session.breakpoints.in_jvm
            value = await in_jvm._invoke(thread, None, system, get, [Value.object(text, Tag.STRING)])
            return (await self.vm.send(StringReference.Value, value.value)).string_value if value.value else None
        except Exception:
            return None

    async def _mark(self, in_jvm: Any, marker_type: int, traced: Traced) -> None:
        fields = {f.name: f.id for f in await self.vm.fields(marker_type)}
        array = await in_jvm._new_bytes(traced.original)
        text = (await self.vm.send(VirtualMachine.CreateString, traced.internal)).string_object
        try:
            await self.vm.send(ClassType.SetValues, marker_type, [
                (fields["TARGET"], Value.object(text, Tag.STRING)),
                (fields["ORIGINAL"], Value.object(array, Tag.ARRAY)),
                (fields["STAMP"], Value.long(time.time_ns()))])
        finally:
            with contextlib.suppress(JdwpError):
                await self.vm.send(ObjectReference.EnableCollection, array)

    async def _names(self) -> None:
        for traced in self.classes:
            info = await self.vm.type(traced.type_id)
            by_sig = {(m.name, m.signature): m for m in await self.vm.methods(traced.type_id)}
            for m in traced.methods:
                method = by_sig.get((m.name, m.descriptor))
                shown = method.display() if method is not None else m.name
                self.names[(0, m.index)] = f"{info.name}.{shown}"
                if method is not None:
                    self.methods[m.index] = (traced.type_id, method.id)
                if not m.timed:
                    self.untimed.add((0, m.index))

    # -- finishing -----------------------------------------------------------------------------------

    async def finish(self) -> None:
        """Switch the probe off, read the trees, restore the classes (always, even when reading fails)."""
        try:
            if self.hub_type:
                # Read with the program held: no thread grows its arrays while they are read (OFF is a plain
                # field, which a running compiled loop may not look at again).
                await self.vm.send(VirtualMachine.Suspend)
                try:
                    await self.vm.send(ClassType.SetValues, self.hub_type,
                                       [(self.hub_fields["OFF"], Value.boolean(True))])
                    await self._read()
                finally:
                    await self.vm.send(VirtualMachine.Resume)
        finally:
            await self.restore()

    async def restore(self) -> None:
        if not self.classes:
            return
        try:
            await self.vm.send(VirtualMachine.RedefineClasses, [(t.type_id, t.original) for t in self.classes])
        except Exception as exc:
            log.warning("could not restore the traced classes: %s", exc)
            return
        in_jvm = self.session.breakpoints.in_jvm
        for traced in self.classes:
            self.vm.forget(traced.type_id)
            with contextlib.suppress(Exception):
                await in_jvm._rebind_others(traced.type_id, None)
        for marker in self.markers:  # restored: nothing for a later session to do
            with contextlib.suppress(Exception):
                fields = {f.name: f.id for f in await self.vm.fields(marker)}
                await self.vm.send(ClassType.SetValues, marker, [(fields["TARGET"], Value.object(0, Tag.STRING))])
        self.classes = []

    async def _read(self) -> None:
        vm = self.vm
        count, states = (await vm.send(ReferenceType.GetValues, self.hub_type,
                                       [self.hub_fields["COUNT"], self.hub_fields["STATES"]])).values
        if not count.value or not states.value:
            return
        objects = (await vm.send(ArrayReference.GetValues, states.value, 0, count.value)).values
        for obj in objects:
            if not obj.value:
                continue
            await self._read_state(obj.value)
        try:
            await self._read_records()
        except (JdwpError, DebuggerError) as exc:  # the counts stand without the first calls' values
            log.warning("could not read the recorded calls: %s", exc)

    async def _read_state(self, state: int) -> None:
        vm = self.vm
        if not self.state_fields:
            state_type = (await vm.send(ObjectReference.ReferenceType, state)).type_id
            self.state_fields = {f.name: f.id for f in await vm.fields(state_type)}
        names = ["thread", "size", "method", "parent", "calls", "total", "thrown", "timed"]
        values = (await vm.send(ObjectReference.GetValues, state, [self.state_fields[n] for n in names])).values
        got = dict(zip(names, values, strict=True))
        size = got["size"].value
        arrays = {}
        for name in ("method", "parent", "calls", "total", "thrown", "timed"):
            arrays[name] = [v.value for v in (await vm.send(ArrayReference.GetValues, got[name].value, 0, size)).values]
        thread = got["thread"].value
        with contextlib.suppress(Exception):
            self.thread_names[thread] = await vm.thread_name(thread)
        self._build(thread, size, arrays)

    def _build(self, thread: int, size: int, a: dict[str, list[int]]) -> None:
        nodes = [Node() for _ in range(size)]
        keys: list[Key] = [(0, m) for m in a["method"]]
        calls = 0
        for i in range(1, size):
            node = nodes[i]
            node.calls, timed = a["calls"][i], a["timed"][i]
            # A sampled node's time stands for all its calls (probe.py: fast methods are timed 1 in SAMPLE).
            node.total = round(a["total"][i] * node.calls / timed) if timed else 0
            nodes[a["parent"][i]].children[keys[i]] = node
            calls += node.calls
        if not calls:
            return
        self.trees.roots[thread] = nodes[0]
        self.trees.per_thread[thread] = calls
        self.calls += calls
        for i in range(1, size):
            key = keys[i]
            stat = self.trees.stats.setdefault(key, Stat())
            node = nodes[i]
            stat.calls += node.calls
            stat.thrown += a["thrown"][i]
            stat.own += node.total - sum(c.total for c in node.children.values())
            stat.timed += a["timed"][i]
            stat.untimed = key in self.untimed
            stat.sampled = stat.sampled or (a["timed"][i] < node.calls and not stat.untimed)
            if not self._recursive(i, a["parent"], keys):
                stat.total += node.total  # the outermost call of a recursion holds the inner ones' time

    @staticmethod
    def _recursive(i: int, parent: list[int], keys: list[Key]) -> bool:
        p = parent[i]
        while p:
            if keys[p] == keys[i]:
                return True
            p = parent[p]
        return False

    async def _read_records(self) -> None:
        """The first calls with their values: the hub kept references (boxes for primitives); their texts
        are read now, over JDWP, as `inspect` shows them (limits and redaction as for captures)."""
        vm, fields = self.vm, self.hub_fields
        count, records = (await vm.send(ReferenceType.GetValues, self.hub_type,
                                        [fields["RECORD_COUNT"], fields["RECORDS"]])).values
        if not count.value or not records.value:
            return
        values = self._values()
        items = (await vm.send(ArrayReference.GetValues, records.value, 0, count.value)).values
        got = await asyncio.gather(*(self._record(values, item.value) for item in items if item.value))
        self.first_calls.extend(c for c in got if c is not None)

    async def _record(self, values: Values, record: int) -> RecordedCall | None:
        vm, limits = self.vm, CaptureLimits()
        index, thread, args, returned, ended = (await vm.send(ArrayReference.GetValues, record, 0, 5)).values
        m = int((await values.view(index)).text)
        names = await self._arg_names(m)
        texts = []
        length = (await vm.send(ArrayReference.Length, args.value)).array_length if args.value else 0
        if length:  # (GetValues of no element of an empty array: INVALID_INDEX)
            got = (await vm.send(ArrayReference.GetValues, args.value, 0, length)).values
            names += [f"arg{k}" for k in range(len(names), length)]
            views = await asyncio.gather(*(values.view(v, None, 0, names[k]) for k, v in enumerate(got)))
            texts = [f"{names[k]}={_cut(view.text, limits.chars)}" for k, view in enumerate(views)]
        how = (await values.view(ended)).text.strip('"') if ended.value else "running"
        shown = _cut((await values.view(returned)).text, limits.chars) if how == "returned" and returned.value \
            else None
        return RecordedCall(self.name((0, m)), self.thread_name(thread.value), texts, shown, how)

    def _values(self) -> Values:
        inspector = getattr(self.session, "inspector", None)
        handles = inspector.handles if inspector is not None else HandleTable()
        return Values(self.vm, handles, bool(getattr(self.session, "redact", False)),
                      getattr(self.session, "secrets", None))

    async def _arg_names(self, m: int) -> list[str]:
        where = self.methods.get(m)
        if where is None:
            return []
        with contextlib.suppress(Exception):
            method = await self.vm.variables(*where)
            return [v.name for v in sorted((v for v in method.variables if v.is_argument), key=lambda v: v.slot)
                    if v.name != "this"]
        return []

    def name(self, key: Key) -> str:
        return self.names.get(key, f"<method {key[1]}>")

    def thread_name(self, thread: int) -> str:
        return self.thread_names.get(thread, f"thread-{thread}")


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + "..."
