"""In-JVM tracing over JDWP: the matching classes get probe calls (inject.py) into a hub class (probe.py)
defined in their loader; at the end the debugger holds the program, switches the hub off, reads every
thread's call tree from its arrays and the first calls the hub recorded (recording.py: references it kept,
whose texts are read now, as `inspect` shows them), and gives the classes their original bytes back. A
killed debugger leaves marker probes that the next session's leftovers.py restores the classes from.

It needs a thread stopped at an event (calls into the target define the probe): a trace started at a stop
with resume=true. Everything else, and anything refused on the way, falls back to the round trip, and the
answer says why.

A method already running when the classes are redefined keeps running its old code: its calls are not
counted, its callees are (roots of the tree), as on the round trip where its entry was never seen.
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
from ..instrument.byte_array import byte_array
from ..instrument.naming import is_probe_class, session_token
from ..model import RecordedCall, StopKind
from .inject import NotTraceable, code_methods, instrument
from .probe import RECORDED_CALLS, NoJavac
from .probe_cache import probe_classes
from .rejoin import Rejoin
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
    methods: list = field(default_factory=list)  # inject.TracedMethod: instrumented now
    all_methods: list = field(default_factory=list)  # every method with code (their names, for the answer)
    first_index: int = 0  # the probe's number of its first method
    full: bytes = b""  # every method instrumented
    pending: set = field(default_factory=set)  # (name, descriptor) left out: a thread was inside at the start


def hidden(internal: str) -> bool:
    """A hidden class (a lambda's, JDK 15+: `Host$$Lambda$12/0x...`) or an old VM-anonymous one."""
    return "/0x" in internal or "$$Lambda" in internal


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
        self.hub_internal = ""
        self.held_ms = 0.0  # the running program held for the redefinitions
        # The counting window (time.monotonic()): the probes count from the moment the instrumented program
        # runs (the Resume after the redefinition, or the session's resume at a stop) to the Suspend that reads.
        self.counting_since: float | None = None
        self.counting_until: float | None = None
        self.read_held_ms = 0.0  # the program held while the probes' arrays are read (after the window)
        self.instrumented = False
        self.joined_late = 0
        self._stopping = asyncio.Event()
        self._method_keys: dict[tuple[int, int], tuple[str, str]] = {}
        self.loops: list[str] = []  # methods whose first instruction a loop jumps back to: not traced
        self.skipped: list[str] = []  # matching classes without a class file (lambdas, generated): not traced

    # -- setting up ----------------------------------------------------------------------------------

    async def install(self, thread: int | None = None, *, hold: bool = False) -> None:
        """Instrument the matching classes; raises Fallback with the reason when it cannot. `thread`: one
        stopped at an event for the calls that define the probe (default: the stop's). `hold`: the program
        runs; it is suspended for the moment of the redefinition only (held_ms says how long)."""
        await self.prepare(thread)
        await self.build()
        await self.apply(hold=hold)

    def check(self) -> None:
        """Raise Fallback when this session or JVM never traces in the JVM (before a thread is borrowed)."""
        in_jvm = getattr(getattr(self.session, "breakpoints", None), "in_jvm", None)
        if in_jvm is None or not in_jvm.enabled:
            raise Fallback("in-JVM mode is off (--no-instrument)")
        if getattr(self.session, "read_only", False):
            raise Fallback("a read-only session never changes the target's classes")
        if not self.vm.capabilities.get("can_redefine_classes"):
            raise Fallback("this JVM cannot redefine classes")

    async def prepare(self, thread: int | None = None) -> None:
        """What needs calls in the target: the probe defined, the classes' files read (build() instruments
        them, apply() redefines them)."""
        self.check()
        in_jvm = self.session.breakpoints.in_jvm
        if thread is None:
            stop = self.session.stop
            if stop is None or not stop.thread_id:
                raise Fallback("no thread is stopped at an event to define the probe with (stop at a "
                               "breakpoint, then trace with resume=true)")
            if stop.kind is StopKind.PAUSE:
                raise Fallback("a pause suspends no thread at an event to define the probe with (stop at a "
                               "breakpoint, then trace with resume=true)")
            thread = stop.thread_id
        found = await self.vm.acquire([t for t in await self.vm.all_classes(refresh=True) if t.signature.startswith("L")
                                       and matches(t.name, self.patterns) and not is_probe_class(t.signature)])
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
            # A lambda's or other hidden class has no class file and cannot be redefined: its calls go to a
            # method of its host class, traced there.
            self.skipped = [t.name for t in found if hidden(t.signature[1:-1])]
            found = [t for t in found if not hidden(t.signature[1:-1])]
            if not found:
                raise Fallback(f"no matching class has a class file ({self.skipped[0]} is generated)")
            package = found[0].signature[1:-1].rpartition("/")[0]
            token = session_token()
            hub = f"Trace_{token}{SUFFIX}"
            marker = f"Trace_{token}_0{SUFFIX}"
            prefix = f"{package}/" if package else ""
            self.hub_internal = prefix + hub
            java_home = await self._java_home(thread)
            compiled = await asyncio.to_thread(probe_classes, package, hub, [marker], java_home)
            self.hub_type = await in_jvm._define(thread, loader, prefix + hub, compiled[prefix + hub])
            for name in sorted(compiled):
                if name.startswith(prefix + hub + "$"):
                    await in_jvm._define(thread, loader, name, compiled[name])
            marker_type = await in_jvm._define(thread, loader, prefix + marker, compiled[prefix + marker])
            self.markers.append(marker_type)
            for t, original in zip(found, await self._read_classes(in_jvm, thread, loader, marker_type, found),
                                   strict=True):
                if original is None:
                    self.skipped.append(t.name)
                else:
                    self.classes.append(Traced(t.id, t.signature[1:-1], original))
            if not self.classes:
                raise Fallback(f"the class file of {self.skipped[-1]} was not found through its loader")
            self.hub_fields = {f.name: f.id for f in await self.vm.fields(self.hub_type)}
            if self.max_recorded != RECORDED_CALLS:
                await self.vm.send(ClassType.SetValues, self.hub_type,
                                   [(self.hub_fields["MAX_CALLS"], Value.int(self.max_recorded))])
        except (NotTraceable, NoJavac) as exc:
            raise Fallback(str(exc)) from None
        except (JdwpError, DebuggerError) as exc:
            raise Fallback(f"could not instrument: {exc}") from None

    async def build(self) -> None:
        """Every traced class's bytes with every method instrumented (apply leaves out those a thread is
        inside). No JDWP: done after the thread that defined the probe is released; in a worker thread,
        as the event loop serves other front ends meanwhile."""
        try:
            await asyncio.to_thread(self._build_all)
        except NotTraceable as exc:
            raise Fallback(str(exc)) from None

    def _build_all(self) -> None:
        index = 0
        for traced in self.classes:
            traced.first_index = index
            traced.full, traced.methods = instrument(traced.original, self.hub_internal, index, skipped=self.loops)
            traced.all_methods = list(traced.methods)
            index += code_methods(traced.original)

    async def apply(self, *, hold: bool) -> None:
        """Redefine the classes; a method some thread is inside keeps its code (its frame would run obsolete
        code otherwise) until `rejoin` finds it left. `hold`: suspend the running program around it."""
        began = time.monotonic()
        # (no breakpoint's probe moves into these classes meanwhile: its redefinition would drop the trace's)
        self.session.breakpoints.in_jvm.traced.update(t.type_id for t in self.classes)
        if hold:
            await self.vm.send(VirtualMachine.Suspend)
        try:
            running = await self._running()
            instrumented: list[tuple[int, bytes]] = []
            for traced in self.classes:
                inside = frozenset(running.get(traced.type_id, ()))
                traced.pending = set(inside)
                data = traced.full
                if inside:
                    data, traced.methods = instrument(traced.original, self.hub_internal, traced.first_index, inside,
                                                      skipped=[])
                instrumented.append((traced.type_id, data))
            await self.vm.send(VirtualMachine.RedefineClasses, instrumented)
        except NotTraceable as exc:
            raise Fallback(str(exc)) from None
        except (JdwpError, DebuggerError) as exc:
            raise Fallback(f"could not instrument: {exc}") from None
        finally:
            if hold:
                with contextlib.suppress(Exception):
                    await self.vm.send(VirtualMachine.Resume)
                self.held_ms += (time.monotonic() - began) * 1000
                self.counting_since = time.monotonic()
        self.instrumented = True
        for traced in self.classes:
            await self.redefined(traced)  # the JVM dropped their breakpoints
        await self._names()

    @property
    def pending(self) -> list[str]:
        """Methods left uninstrumented because a thread was inside them (not counted, yet)."""
        return sorted(f"{t.internal.replace('/', '.')}.{name}" for t in self.classes for name, _ in t.pending)

    async def rejoin(self) -> None:
        """While the trace runs: the methods a thread was inside at the start, instrumented when it has left
        them (rejoin.py)."""
        await Rejoin(self).run(self._stopping)

    async def redefined(self, traced: Traced) -> None:
        """After a redefinition of one of the traced classes: caches and the breakpoints the JVM dropped."""
        self.vm.forget(traced.type_id)
        with contextlib.suppress(Exception):
            await self.session.breakpoints.in_jvm._rebind_others(traced.type_id, None)

    def stop_rejoin(self) -> None:
        self._stopping.set()

    async def _running(self) -> dict[int, set[tuple[str, str]]]:
        """Per traced class, the methods some thread is inside now (the program is held: stacks are still)."""
        return self.running_in(await self.frames_now())

    async def frames_now(self) -> dict[int, list]:
        """Every thread's frames (the program is held), each thread's methods resolved for running_in."""
        threads = (await self.vm.send(VirtualMachine.AllThreads)).threads

        async def frames_of(thread: int) -> list:
            try:
                return (await self.vm.send(ThreadReference.Frames, thread, 0, -1)).frames
            except JdwpError:
                return []  # ended meanwhile

        stacks = dict(zip(threads, await asyncio.gather(*(frames_of(t) for t in threads)), strict=True))
        wanted = {t.type_id for t in self.classes}
        for stack in stacks.values():
            for frame in stack:
                loc = frame.location
                if loc.class_id in wanted and loc.method_id:
                    await self.method_key(loc)
        return stacks

    async def method_key(self, loc: Any) -> tuple[str, str]:
        key = (loc.class_id, loc.method_id)
        if key not in self._method_keys:
            method = await self.vm.method(loc.class_id, loc.method_id)
            self._method_keys[key] = (method.name, method.signature)
        return self._method_keys[key]

    def running_in(self, stacks: dict[int, list]) -> dict[int, set[tuple[str, str]]]:
        wanted = {t.type_id for t in self.classes}
        running: dict[int, set[tuple[str, str]]] = {}
        for stack in stacks.values():
            for frame in stack:
                loc = frame.location
                if loc.class_id in wanted and loc.method_id:
                    running.setdefault(loc.class_id, set()).add(self._method_keys[(loc.class_id, loc.method_id)])
        return running

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

    async def _read_classes(self, in_jvm: Any, thread: int, loader: int, marker: int,
                            found: list[Any]) -> list[bytes | None]:
        """The class files of `found` as their loader finds them, read in the target in one call by the
        marker, which keeps them for a later session should this one be killed."""
        vm = self.vm
        text = (await vm.send(VirtualMachine.CreateString,
                              "\n".join(t.signature[1:-1] for t in found))).string_object
        await vm.send(ObjectReference.DisableCollection, text)
        try:
            read = next(m.id for m in await vm.methods(marker) if m.name == "read")
            arrays = await in_jvm._invoke(thread, None, marker, read, [
                Value.object(loader, Tag.CLASS_LOADER), Value.object(text, Tag.STRING), Value.long(time.time_ns())])
        finally:
            with contextlib.suppress(JdwpError):
                await vm.send(ObjectReference.EnableCollection, text)
        elements = (await vm.send(ArrayReference.GetValues, arrays.value, 0, len(found))).values

        async def read_bytes(array: int) -> bytes | None:
            if not array:
                return None
            length = (await vm.send(ArrayReference.Length, array)).array_length
            return await byte_array(vm.conn, array, length)

        return list(await asyncio.gather(*(read_bytes(e.value) for e in elements)))

    async def _names(self) -> None:
        for traced in self.classes:
            info = await self.vm.type(traced.type_id)
            by_sig = {(m.name, m.signature): m for m in await self.vm.methods(traced.type_id)}
            for m in traced.all_methods:
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
            await self.read()
        finally:
            await self.restore()

    async def read(self) -> None:
        """Switch the probe off and read the trees (the classes stay as they are: a dying VM is not
        restored). Read with the program held: no thread grows its arrays while they are read (OFF is a
        plain field, which a running compiled loop may not look at again). The first calls' references are
        taken while it is held, their texts read once it runs again (on Jetty, 256 calls' values held the
        program over a second)."""
        if self.hub_type:
            await self.vm.send(VirtualMachine.Suspend)
            held = time.monotonic()
            if self.counting_until is None:
                self.counting_until = held
            records: list = []
            try:
                await self.vm.send(ClassType.SetValues, self.hub_type,
                                   [(self.hub_fields["OFF"], Value.boolean(True))])
                await self._read()
                try:
                    records = await self._record_refs()
                except (JdwpError, DebuggerError) as exc:  # the counts stand without the first calls' values
                    log.warning("could not read the recorded calls: %s", exc)
            finally:
                await self.vm.send(VirtualMachine.Resume)
                self.read_held_ms += (time.monotonic() - held) * 1000
            try:
                await self._read_records(records)
            except (JdwpError, DebuggerError) as exc:
                log.warning("could not read the recorded calls' values: %s", exc)

    async def restore(self) -> None:
        ids = {t.type_id for t in self.classes}
        try:
            await self._restore()
        finally:  # (a class it could not restore keeps the trace's probes: still no breakpoint's there)
            self.session.breakpoints.in_jvm.traced.difference_update(ids - {t.type_id for t in self.classes})

    async def _restore(self) -> None:
        if not self.classes:
            return
        if not self.instrumented:  # given up before the redefinition: only the markers to clear
            self.classes = []
            await self._clear_markers()
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
        self.classes = []
        await self._clear_markers()

    async def _clear_markers(self) -> None:
        for marker in self.markers:  # restored: nothing for a later session to do
            with contextlib.suppress(Exception):
                fields = {f.name: f.id for f in await self.vm.fields(marker)}
                await self.vm.send(ClassType.SetValues, marker, [(fields["TARGETS"], Value.object(0, Tag.ARRAY))])

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

    async def _record_refs(self) -> list[tuple[Any, ...]]:
        """The first calls the hub recorded, as references (the program held: how each call ended, and its
        arguments, as at the end of the trace): (index, thread, arguments, returned, ended) each."""
        vm, fields = self.vm, self.hub_fields
        count, records = (await vm.send(ReferenceType.GetValues, self.hub_type,
                                        [fields["RECORD_COUNT"], fields["RECORDS"]])).values
        if not count.value or not records.value:
            return []
        items = (await vm.send(ArrayReference.GetValues, records.value, 0, count.value)).values

        async def refs(record: int) -> tuple[Any, ...]:
            index, thread, args, returned, ended = (await vm.send(ArrayReference.GetValues, record, 0, 5)).values
            length = (await vm.send(ArrayReference.Length, args.value)).array_length if args.value else 0
            # (GetValues of no element of an empty array: INVALID_INDEX)
            got = (await vm.send(ArrayReference.GetValues, args.value, 0, length)).values if length else []
            return index, thread, got, returned, ended

        return list(await asyncio.gather(*(refs(item.value) for item in items if item.value)))

    async def _read_records(self, records: list[tuple[Any, ...]]) -> None:
        """The first calls with their values: the hub kept references (boxes for primitives, kept alive by
        the hub's array until the classes are restored); their texts are read now, the program running,
        over JDWP, as `inspect` shows them (limits and redaction as for captures; nothing is invoked)."""
        if not records:
            return
        values = self._values()
        got = await asyncio.gather(*(self._record(values, *refs) for refs in records))
        self.first_calls.extend(c for c in got if c is not None)

    async def _record(self, values: Values, index: Any, thread: Any, got: list, returned: Any,
                      ended: Any) -> RecordedCall | None:
        limits = CaptureLimits()
        m = int((await values.view(index)).text)
        names = await self._arg_names(m)
        texts = []
        length = len(got)
        if length:
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
