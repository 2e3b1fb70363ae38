"""A capture's values copied in the JVM by one call: the hybrid path of issue 31.

While the debugger holds the hitting thread it reads only the roots over JDWP (the frames, the top frames'
variables, `this`), then calls the copier (java/CaptureCopy3__TracepilotProbe.java, defined once per JVM in
the system class loader) on that thread with the roots: it hands back, in one String, an Object[] and a
Class[], what reading the values object by object over JDWP would have fetched (~150 requests for a request
object of a web server): fields of the program's objects, strings, arrays, and the logical view of the JDK
collections and maps whose order is the one inspect shows. The capture is then rendered by the same code as
before (reader.py); whatever the copy has no record of is read over JDWP as before, still with the thread
held, so a capture's values are the same whichever path filled them.

When the copier cannot serve (read-only session, a JVM that refuses the call, a call that does not return in
COPY_TIMEOUT), the capture is read over JDWP alone and says why once (`why_not`)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from ...jdwp import (
    ArrayReference,
    ArrayType,
    ClassObjectReference,
    ClassType,
    InvokeOptions,
    ObjectReference,
    StringReference,
    Tag,
    VirtualMachine,
)
from ...jdwp.commands import SET_BYTES
from ...jdwp.wire import Value
from ..errors import DebuggerError
from .copier_bytes import COPY, COPY8, COPY8_SIGNATURE, COPY_SIGNATURE, NAME, class_bytes
from .model import CaptureLimits

log = logging.getLogger(__name__)

COPY_TIMEOUT = 5.0  # seconds the copy may take before the capture is read over JDWP alone
MAX_CHARS = 4096  # strings copied whole up to this length (as Objects caches them)


@dataclass
class Copied:
    """What one copy handed over, by object id: arrays' and JDK collections' elements, maps' entries."""

    arrays: dict[int, tuple[int, list[Value]]] = field(default_factory=dict)
    lists: dict[int, tuple[int, list[Value]]] = field(default_factory=dict)
    maps: dict[int, tuple[int, list[tuple[Value, Value]]]] = field(default_factory=dict)
    objects: int = 0  # objects with a record
    call_ms: float = 0.0  # the call in the JVM (the copy itself)
    total_ms: float = 0.0  # the call, the reads of its result and their decoding
    decode_ms: float = 0.0  # the decoding alone
    lacks: str | None = None  # the copier's verdict: the first value shown it has no record of (None: complete)


COPIED: contextvars.ContextVar[Copied | None] = contextvars.ContextVar("tracepilot_capture_copied", default=None)

# Set while a capture is rendered from its copy alone (the no-hold path's rule, see CopyIncomplete).
COPY_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("tracepilot_capture_copy_only", default=False)


class CopyIncomplete(Exception):  # noqa: N818 - (not a DebuggerError: no reader's `except` may swallow it)
    """A capture rendered from its in-JVM copy alone needed a value the copy has no record of: a field, an
    array's elements or a collection's contents, which change while a thread that is not held runs on. (What
    never changes -- an object's class, a string's text, an array's length -- may still be read over JDWP.)
    A capture taken without holding the thread is exact only when this is never raised."""


def copied_only(what: str) -> None:
    """Refuse a read over JDWP of `what` (something that changes) while a capture is rendered from its copy."""
    if COPY_ONLY.get():
        raise CopyIncomplete(f"the in-JVM copy has no record of {what}")


def page(found: tuple[int, list[Any]] | None, start: int, count: int) -> tuple[int, list[Any]] | None:
    """Items start..start+count of a copied view, when the copy holds them all (else None: read over JDWP)."""
    if found is None:
        return None
    size, items = found
    end = min(size, start + count)
    if end > len(items) and len(items) < size:
        return None
    return size, items[start:end]


JDK_INTERNALS = 1 << 16  # in the copy's depth argument: capture_limits jdk_internals (the copier's JDK_INTERNALS)


def copy_depth(limits: CaptureLimits) -> int:
    """The copier's depth argument: the depth limit, and whether the fields of JDK classes are shown."""
    return min(max(limits.depth, 1), JDK_INTERNALS - 1) | (JDK_INTERNALS if limits.jdk_internals else 0)


class Copier:
    """The copier of one JVM: defined on first use, then one call per capture."""

    def __init__(self, session: Any, in_jvm: Any = None) -> None:
        self.session = session
        self.in_jvm = in_jvm  # the session's in-JVM mode: --no-instrument puts no code of ours in the target
        self.vm: Any = None
        self.method: tuple[int, int, int] | None = None  # (class id, copy's method id, copy8's)
        self.types: dict[int, tuple[int, int]] = {}  # Class object id -> (type id, type tag)
        self.why_not: str | None = None  # the copier cannot serve in this JVM: why
        self.object_array: int | None = None  # Object[]'s type id
        self.field_ids: dict[int, dict[tuple[int, str], int]] = {}  # type -> (level, name) -> field id
        self.calls = 0
        self.one_by_one = 8  # roots passed as arguments (copy8) up to this many, else in an array made first
        self._defining = asyncio.Lock()

    def usable(self) -> bool:
        if getattr(self.session, "read_only", False):
            self.why_not = "read-only session: the capture is read over JDWP alone (no call into the target)"
        if self.in_jvm is not None and not self.in_jvm.enabled:
            return False  # (said by refusal())
        return self.why_not is None

    def refusal(self) -> str | None:
        """Why captures are read over JDWP alone in this session (None: the copier serves)."""
        if self.in_jvm is not None and not self.in_jvm.enabled:
            return "in-JVM mode is off (--no-instrument): values read over JDWP"
        return self.why_not

    async def copy(self, thread: int, roots: list[Value], deep: int, limits: CaptureLimits, objects: Any,
                   memo: dict) -> Copied:
        """Copy `roots` in the JVM on held `thread` (the first `deep` opened to the depth limit, the others
        as summaries); fill `objects`' caches and the capture's field `memo`."""
        vm = self.bind_vm()
        await self.define(thread)
        started = time.perf_counter()
        type_id, copy_all, copy8 = self.method
        limits_args = [Value.int(deep), Value.int(copy_depth(limits)), Value.int(max(limits.items, 20)),
                       Value.int(max(limits.fields, 20)), Value.int(MAX_CHARS), Value.int(max(2 * limits.values, 200))]
        array = 0
        if len(roots) <= self.one_by_one:  # passed one by one: no array to make in the JVM first
            padding = [Value(Tag.OBJECT, 0)] * (8 - len(roots))
            method, args = copy8, [Value.int(len(roots)), *limits_args, *roots, *padding]
        else:
            if self.object_array is None:
                self.object_array = (await vm.send(VirtualMachine.ClassesBySignature, "[Ljava/lang/Object;")
                                     ).classes[0].type_id
            array = (await vm.send(ArrayType.NewInstance, self.object_array, len(roots))).new_array.value
            await vm.send(ObjectReference.DisableCollection, array)  # (other threads run: a GC may come)
            method, args = copy_all, [Value.object(array, Tag.ARRAY), *limits_args]
        try:
            if array:
                await vm.send(ArrayReference.SetValues, array, 0, roots)
            called = time.perf_counter()
            result = (await self._invoke(thread, type_id, method, args)).value
            call_ms = (time.perf_counter() - called) * 1000
        finally:
            if array:
                _let_go(vm, array)
        try:
            # (kept from collection while it is read; asked together with its first read)
            _, (copied, _) = await asyncio.gather(vm.send(ObjectReference.DisableCollection, result),
                                                  self.read_result(result, objects, memo))
            self.calls += 1
            copied.call_ms, copied.total_ms = call_ms, (time.perf_counter() - started) * 1000
            return copied
        finally:
            _let_go(vm, result)

    def bind_vm(self) -> Any:
        """The session's VM now (a new one forgets what was learnt of the last)."""
        vm = self.session.require_vm()
        if self.vm is not vm:
            self.vm, self.method, self.types, self.why_not, self.object_array = vm, None, {}, None, None
            self.field_ids = {}
        return vm

    async def define(self, thread: int) -> None:
        async with self._defining:  # (captures of several threads come at once: one definition)
            if self.method is None:
                self.method = await self._define(thread)

    async def read_result(self, result: int, objects: Any, memo: dict) -> tuple[Copied, list[Value]]:
        """A copy's result (its {String, Object[], Class[]}) read and decoded into `objects`' caches and the
        capture's field `memo`; and the copy's objects (object k of its records is the k-th)."""
        vm = self.vm
        text_v, refs_v, classes_v = (await vm.send(ArrayReference.GetValues, result, 0, 3)).values
        text = (await vm.send(StringReference.Value, text_v.value)).string_value
        n_refs, _, rest = text.partition(";")
        n_classes, _, rest = rest.partition(";")
        n_lacks, _, rest = rest.partition(":")
        lacks, text = rest[:int(n_lacks)], rest[int(n_lacks):]
        refs, classes = await asyncio.gather(_elements(vm, refs_v.value, int(n_refs)),
                                             _elements(vm, classes_v.value, int(n_classes)))
        type_ids = [await self._type_of(c.value) for c in classes]
        decoding = time.perf_counter()
        copied = await _decode(text, refs, type_ids, objects, memo, self.field_ids)
        copied.decode_ms = (time.perf_counter() - decoding) * 1000
        copied.lacks = lacks or None
        return copied, refs

    async def type_of(self, class_object: int) -> tuple[int, int]:
        """A Class object's (type id, type tag)."""
        await self._type_of(class_object)
        return self.types[class_object]

    async def _type_of(self, class_object: int) -> int:
        found = self.types.get(class_object)
        if found is None:
            reply = await self.vm.send(ClassObjectReference.ReflectedType, class_object)
            await self.vm.type(reply.type_id, reply.ref_type_tag)
            found = self.types[class_object] = (reply.type_id, reply.ref_type_tag)
        return found[0]

    async def _invoke(self, thread: int, clazz: int, method: int, args: list[Value], obj: int | None = None) -> Value:
        """One call on held `thread` (a static method, or `obj`'s), with a deadline, booked as the session's
        calls are (the thread book knows the thread is inside a call)."""
        options = int(InvokeOptions.SINGLE_THREADED)
        command, call = (ClassType.InvokeMethod, (clazz, thread, method, args, options)) if obj is None else \
            (ObjectReference.InvokeMethod, (obj, thread, clazz, method, args, options))
        what = "copying a capture's values in the JVM"
        invoking = getattr(self.session, "invoking", None)
        try:
            if invoking is None:
                reply = await asyncio.wait_for(self.vm.send(command, *call), COPY_TIMEOUT)
            else:
                async with invoking(thread, what) as booked:
                    reply = await booked.send(command, *call, timeout=COPY_TIMEOUT, what=what)
        except TimeoutError:
            self.why_not = f"the in-JVM copy did not return within {COPY_TIMEOUT:g}s: captures are read over JDWP"
            raise DebuggerError(self.why_not) from None
        if reply.exception.value:
            self.why_not = "the in-JVM copy threw: captures are read over JDWP"
            raise DebuggerError(self.why_not)
        return reply.return_value

    async def _define(self, thread: int) -> tuple[int, int, int]:
        """The copier class in the system class loader (defined once; a JVM an earlier session left it in
        has it already), linked and initialized."""
        vm = self.vm
        type_id = await self.define_class(thread, NAME, class_bytes())
        methods = {m.name + m.signature: m.id for m in await vm.methods(type_id)}
        return type_id, methods[COPY + COPY_SIGNATURE], methods[COPY8 + COPY8_SIGNATURE]

    async def define_class(self, thread: int, name: str, data: bytes) -> int:
        """Class `name` of `data` in the system class loader (once: a JVM an earlier session left it in has it
        already), linked and initialized; its type id."""
        vm = self.vm
        found = await vm.classes_by_name(name)
        if not found:
            loader_type = await vm.classes_by_name("java.lang.ClassLoader")
            methods = {m.name + m.signature: m.id for m in await vm.methods(loader_type[0].id)}
            loader = (await self._invoke(thread, loader_type[0].id,
                                         methods["getSystemClassLoader()Ljava/lang/ClassLoader;"], [])).value
            byte_array = (await vm.send(VirtualMachine.ClassesBySignature, "[B")).classes[0].type_id
            array = (await vm.send(ArrayType.NewInstance, byte_array, len(data))).new_array.value
            await vm.send(SET_BYTES, array, 0, data)  # (one string of bytes: 12 KB as Values took 40 ms)
            name_string = (await vm.send(VirtualMachine.CreateString, name)).string_object
            define = methods["defineClass(Ljava/lang/String;[BII)Ljava/lang/Class;"]
            try:
                await self._invoke(thread, loader_type[0].id, define, [
                    Value.object(name_string, Tag.STRING), Value.object(array, Tag.ARRAY), Value.int(0),
                    Value.int(len(data))], obj=loader)
            except DebuggerError:
                if name == NAME:
                    self.why_not = "the copier class could not be defined in this JVM: captures are read over JDWP"
                raise
            # Class.forName(name, true, loader): linked and initialized now (JDWP lists a linked class's methods)
            class_type = await vm.classes_by_name("java.lang.Class")
            for_name = next(m.id for m in await vm.methods(class_type[0].id) if m.name == "forName"
                            and m.signature == "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
            await self._invoke(thread, class_type[0].id, for_name, [
                Value.object(name_string, Tag.STRING), Value.boolean(True), Value.object(loader, Tag.CLASS_LOADER)])
            found = await vm.classes_by_name(name)
        return found[0].id


def _let_go(vm: Any, object_id: int) -> None:
    """EnableCollection without waiting for the answer (the thread is held meanwhile)."""
    try:
        future = vm.conn.send_nowait(ObjectReference.EnableCollection, object_id)
    except Exception:  # noqa: BLE001 - the VM is gone: nothing to let go of
        return
    future.add_done_callback(lambda f: f.cancelled() or f.exception())


async def _elements(vm: Any, array: int, n: int) -> list[Value]:
    return (await vm.send(ArrayReference.GetValues, array, 0, n)).values if n else []


class Cursor:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def upto(self, end: str = ";") -> str:
        stop = self.text.index(end, self.at)
        part = self.text[self.at:stop]
        self.at = stop + 1
        return part

    def number(self) -> int:
        return int(self.upto())

    def chars(self) -> str:
        n = int(self.upto(":"))
        part = self.text[self.at:self.at + n]
        self.at += n
        return part


_NULL = Value(Tag.OBJECT, 0)
_WHOLE = {"I": Tag.INT, "J": Tag.LONG, "B": Tag.BYTE, "S": Tag.SHORT}
_FLOAT = struct.Struct(">f")
_DOUBLE = struct.Struct(">d")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")


def _scan_value(text: str, at: int, refs: list[Value]) -> tuple[Value, int]:
    """The copier's value at `at` (a kind letter, then its number up to ';') and where the next one starts."""
    kind = text[at]
    stop = text.index(";", at + 1)
    if kind == "r":
        return refs[int(text[at + 1:stop])], stop + 1
    if kind == "N":
        return _NULL, stop + 1
    n = int(text[at + 1:stop])
    tag = _WHOLE.get(kind)
    if tag is not None:
        return Value(tag, n), stop + 1
    if kind == "Z":
        return Value(Tag.BOOLEAN, bool(n)), stop + 1
    if kind == "C":
        return Value(Tag.CHAR, chr(n)), stop + 1
    if kind == "F":
        return Value(Tag.FLOAT, _FLOAT.unpack(_INT32.pack(n))[0]), stop + 1
    return Value(Tag.DOUBLE, _DOUBLE.unpack(_INT64.pack(n))[0]), stop + 1


def read_value(cur: Cursor, refs: list[Value]) -> Value:
    value, cur.at = _scan_value(cur.text, cur.at, refs)
    return value


async def _field_ids(vm: Any, type_id: int, cache: dict[int, dict[tuple[int, str], int]]) -> dict[tuple[int, str], int]:
    found = cache.get(type_id)
    if found is None:
        found = {}
        for level, t in enumerate(await vm.hierarchy(type_id)):
            for f in await vm.fields(t):
                if not f.is_static:
                    found[(level, f.name)] = f.id
        cache[type_id] = found
    return found


async def _decode(text: str, refs: list[Value], type_ids: list[int], objects: Any, memo: dict,
                  field_ids: dict[int, dict[tuple[int, str], int]]) -> Copied:
    """The copier's records into the caches the capture's reading consults first (see CaptureObjects).
    (One pass over the text with its position in a local: a request object's copy is ~90 records.)"""
    copied = Copied()
    vm = objects.vm
    type_of, strings, lengths = objects._type_of, objects._strings, objects._lengths
    index, end = text.index, len(text)
    at = 0
    while at < end:
        if text[at] != "R":
            raise ValueError(f"copy record expected at {at}")
        stop = index(";", at + 1)
        k = int(text[at + 1:stop])
        at, stop = stop + 1, index(";", stop + 1)
        type_id = type_ids[int(text[at:stop])]
        oid = refs[k].value
        type_of[oid] = type_id
        kind = text[stop + 1]
        at = stop + 2
        copied.objects += 1
        if kind == "T":
            continue
        if kind == "S":
            stop = index(":", at)
            n = int(text[at:stop])
            strings[oid] = text[stop + 1:stop + 1 + n]
            at = stop + 1 + n
        elif kind in "ALM":
            stop = index(";", at)
            size = int(text[at:stop])
            at, stop = stop + 1, index(";", stop + 1)
            n = int(text[at:stop])
            at = stop + 1
            items: list[Any] = []
            if kind == "M":
                for _ in range(n):
                    key, at = _scan_value(text, at, refs)
                    value, at = _scan_value(text, at, refs)
                    items.append((key, value))
                copied.maps[oid] = (size, items)
            else:
                for _ in range(n):
                    value, at = _scan_value(text, at, refs)
                    items.append(value)
                if kind == "A":
                    copied.arrays[oid] = (size, items)
                    lengths[oid] = size
                else:
                    copied.lists[oid] = (size, items)
        elif kind == "B":
            value, at = _scan_value(text, at, refs)
            field_info = (await objects.fields_by_name(type_id)).get("value")
            if field_info is not None:
                memo.setdefault(oid, {})[field_info.id] = value
        elif kind == "F":
            stop = index(";", at)
            count = int(text[at:stop])
            at = stop + 1
            ids = field_ids.get(type_id)
            if ids is None:
                ids = await _field_ids(vm, type_id, field_ids)
            known = memo.setdefault(oid, {})
            for _ in range(count):
                stop = index(";", at)
                level = int(text[at:stop])
                at, stop = stop + 1, index(":", stop + 1)
                n = int(text[at:stop])
                name = text[stop + 1:stop + 1 + n]
                value, at = _scan_value(text, stop + 1 + n, refs)
                found = ids.get((level, name))
                if found is not None and found not in known:
                    known[found] = value
        else:
            raise ValueError(f"unknown copy record {kind!r}")
    return copied
