"""Value formatting: JDWP values -> `ValueView` summaries and paged `Inspection`s.

Logical views (String, boxed, enums, records, Optional, collections, maps, StringBuilder, BigDecimal,
BigInteger, dates, atomics, UUID) come from internal fields read over JDWP, never from invoking
toString(), so showing a value cannot change the program or deadlock it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import math
import struct
from collections import OrderedDict
from decimal import Decimal
from typing import Any

from ...jdwp import JdwpError, Tag, ThreadGroupReference, Value, VirtualMachine
from ...jdwp.constants import OBJECT_TAGS
from ..evaluator.types import BOXES, signature_to_java_name
from ..frame_names import simple_class_name
from ..java_escape import escape_java
from ..model import Inspection, MapEntry, ValueView, Variable
from ..secrets import REDACTED, KnownSecrets, is_secret_name
from ..vm import Vm
from .collections import Collections
from .handles import HandleTable
from .objects import Objects, obj, prim
from .secret_values import SecretLearner
from .unset_cause import without_unset_cause

SUMMARY_STRING = 200  # characters of a string shown in a summary
NESTED_STRING = 60
SUMMARY_ITEMS = 10  # elements shown in a collection summary
NESTED_ITEMS = 3
SUMMARY_FIELDS = 8
STRING_PAGE = 8192  # characters per inspect page of a string
_BOXED = frozenset(BOXES.values())
_ATOMICS = {"java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
            "java.util.concurrent.atomic.AtomicReference"}


def java_length(text: str) -> int:
    """Length in UTF-16 code units, as String.length() counts."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def quote_string(text: str, limit: int) -> str:
    length = java_length(text)
    if len(text) > limit:
        return f'"{escape_java(text[:limit])}…" ({length} chars)'
    return f'"{escape_java(text)}"'


def format_float(value: float, single: bool) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:
        packed = struct.pack(">f", value)
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.pack(">f", float(text)) == packed:
                value = float(text)
                break
    text = repr(float(value))
    if "e" in text:
        mantissa, exp = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        text = f"{mantissa}E{int(exp)}"
    return text


def format_primitive(value: Value) -> str:
    tag, v = value.tag, value.value
    if tag == Tag.BOOLEAN:
        return "true" if v else "false"
    if tag == Tag.CHAR:
        ch = v if isinstance(v, str) else chr(v)
        return "'\\''" if ch == "'" else ("'\"'" if ch == '"' else f"'{escape_java(ch)}'")
    if tag == Tag.FLOAT:
        return format_float(v, True)
    if tag == Tag.DOUBLE:
        return format_float(v, False)
    if tag == Tag.VOID:
        return "void"
    return str(v)


_PRIMITIVE_NAMES = {Tag.BOOLEAN: "boolean", Tag.BYTE: "byte", Tag.CHAR: "char", Tag.SHORT: "short",
                    Tag.INT: "int", Tag.LONG: "long", Tag.FLOAT: "float", Tag.DOUBLE: "double", Tag.VOID: "void"}


def simple(type_name: str) -> str:
    return simple_class_name(type_name)  # (a lambda's class: "Host$$Lambda", not its address)


class Values:
    """Formats values of one VM; objects get handles from the shared table."""

    def __init__(self, vm: Vm, handles: HandleTable, redact: bool = False, secrets: KnownSecrets | None = None) -> None:
        self.vm = vm
        self.handles = handles
        self.redact = redact
        self.objects = Objects(vm)
        self.collections = Collections(self.objects)
        self.learner = SecretLearner(self.objects, self.collections, secrets or KnownSecrets(log_lines=False))
        # Strings an evaluation created in the target (a literal, a concatenation): shown once, without a
        # handle, then their ids are disposed, so the target may collect them. (Ids are never reused.)
        self.transient: OrderedDict[int, None] = OrderedDict()

    def _dispose(self, object_id: int) -> None:
        try:
            future = self.vm.conn.send_nowait(VirtualMachine.DisposeObjects, [(object_id, 1)])
        except Exception:  # noqa: BLE001 - the VM is gone: nothing to dispose
            return
        future.add_done_callback(lambda f: f.cancelled() or f.exception())

    def mark_transient(self, object_id: int) -> None:
        self.transient[object_id] = None
        if len(self.transient) > 4096:
            self.transient.popitem(last=False)

    async def _secret(self, value: Value | None, type_name: str | None) -> ValueView:
        """A value under a secret-looking name: learned (core/secrets.py), shown as <redacted>."""
        await self.learner.learn(value)
        return ValueView(type=type_name or "?", text=REDACTED, kind="redacted")

    def set_generation(self, generation: int) -> None:
        self.collections.generation = generation

    # -- summaries -----------------------------------------------------------------------------------

    async def view(self, value: Value | None, static_type: str | None = None, depth: int = 0,
                   name: str | None = None) -> ValueView:
        if value is None:
            return ValueView(type=static_type or "?", text="<unavailable>", kind="void")
        if name and self.redact and is_secret_name(name):
            return await self._secret(value, static_type)
        if value.tag not in OBJECT_TAGS:  # (value.is_object, is_null: without a property call each)
            kind = "void" if value.tag == Tag.VOID else "primitive"
            return ValueView(type=_PRIMITIVE_NAMES.get(value.tag, static_type or "?"), text=format_primitive(value),
                             kind=kind)
        if value.value == 0:
            return ValueView(type=static_type or "java.lang.Object", text="null", kind="null")
        try:
            return await self._view_object(value, depth)
        except JdwpError as exc:
            return ValueView(type=static_type or "java.lang.Object", text=f"<unreadable: {exc}>", kind="object")

    async def _view_object(self, value: Value, depth: int) -> ValueView:
        oid = value.value
        type_name = self.objects.known_type_name(oid) or await self.objects.type_name(oid)
        if self.redact and self.learner.book.is_secret_object(oid):  # learned under a secret-looking name
            return ValueView(type_name, REDACTED, "redacted")
        handle = None if oid in self.transient else self.handles.handle(oid, value.tag).name
        items = SUMMARY_ITEMS if depth == 0 else (NESTED_ITEMS if depth == 1 else 0)

        if value.tag == Tag.STRING or type_name == "java.lang.String":
            text = await self.objects.string(oid)
            if self.transient.pop(oid, 0) is None:  # read: nobody needs its id any more
                self._dispose(oid)
            limit = SUMMARY_STRING if depth == 0 else NESTED_STRING
            return ValueView(type_name, quote_string(text, limit), "string", handle, java_length(text))
        if type_name.endswith("[]"):
            length = self.objects.known_length(oid)
            if length is None:
                length = await self.objects.length(oid)
            shown = await self.objects.elements(oid, 0, min(items, length)) if items else []
            elem_type = type_name[:-2]
            parts = [(await self.view(v, elem_type, depth + 1)).text for v in shown]
            text = f"{elem_type}[{length}]"
            if parts:
                text += " [" + ", ".join(parts) + (", …" if length > len(parts) else "") + "]"
            return ValueView(type_name, text, "array", handle, length, expandable=length > 0)
        if value.tag == Tag.THREAD:
            name = await self.vm.thread_name(oid)
            return ValueView(type_name, f'Thread "{name}" {handle}', "object", handle, expandable=True)
        if value.tag == Tag.THREAD_GROUP:
            name = (await self.vm.send(ThreadGroupReference.Name, oid)).group_name
            return ValueView(type_name, f'ThreadGroup "{name}"', "object", handle, expandable=True)
        if value.tag == Tag.CLASS_OBJECT:
            return ValueView(type_name, f"class {await self.objects.reflected_type_name(oid)}", "object", handle)

        logical = await self._logical(oid, type_name, depth, items)
        if logical is not None:
            text, kind, size = logical
            expandable = kind not in ("boxed", "enum")
            return ValueView(type_name, text, kind, handle, size, expandable)
        return await self._plain_object(oid, type_name, handle, depth)

    async def _plain_object(self, oid: int, type_name: str, handle: str, depth: int) -> ValueView:
        fields = await self.objects.instance_fields(await self.objects.type_id(oid))
        fields = [f for f in fields if not f.is_synthetic]
        record = await self._is_record(oid)
        if depth >= 2 or not fields:
            return ValueView(type_name, f"{simple(type_name)} {handle}", "object", handle, expandable=bool(fields))
        shown = fields[:SUMMARY_FIELDS]
        values = await self.shown_field_values(oid, shown)
        secret = await self._entry_secret(shown, values)
        parts = []
        for f, v in zip(shown, values, strict=True):
            view = await self.view(v, f.type_name, depth + 1, f.name if f.name != secret else "secret")
            parts.append(f"{f.name}={view.text}")
        if len(fields) > len(shown):
            parts.append("…")
        open_, close = ("[", "]") if record else ("{", "}")
        return ValueView(type_name, f"{simple(type_name)}{open_}{', '.join(parts)}{close}", "record" if record else "object",
                         handle, expandable=True)

    async def shown_field_values(self, oid: int, fields: list[Any]) -> list[Value]:
        """An object's field values as they are shown: an exception's unset cause as null (unset_cause.py)."""
        return without_unset_cause(oid, fields, await self.objects.field_values(oid, fields))

    async def _entry_secret(self, fields: list[Any], values: list[Value]) -> str | None:
        """Under --redact, the field of a map entry node (HashMap$Node...) holding a secret key's value."""
        if not self.redact:
            return None
        return await self.learner.entry_secret([f.name for f in fields], values)

    async def _is_record(self, oid: int) -> bool:
        return "java.lang.Record" in await self.objects.superclass_names(oid)

    async def _logical(self, oid: int, type_name: str, depth: int, items: int) -> tuple[str, str, int | None] | None:
        o = self.objects
        if type_name in _BOXED:
            v = await o.get1(oid, "value")
            return format_primitive(v) if v is not None else "?", "boxed", None
        supers = await o.superclass_names(oid)
        if "java.lang.Enum" in supers:
            name = await o.get1(oid, "name")
            return (await o.string(obj(name)) if obj(name) else "?"), "enum", None
        if type_name == "java.util.Optional":
            inner = await o.get1(oid, "value")
            if inner is None or inner.is_null:
                return "Optional.empty", "object", None
            return f"Optional[{(await self.view(inner, None, depth + 1)).text}]", "object", None
        if type_name in ("java.lang.StringBuilder", "java.lang.StringBuffer"):
            text = await self.builder_text(oid)
            return f"{simple(type_name)}[{quote_string(text, SUMMARY_STRING if depth == 0 else NESTED_STRING)}]", "object", java_length(text)
        if type_name == "java.math.BigDecimal":
            return str(await self.big_decimal(oid)), "object", None
        if type_name == "java.math.BigInteger":
            return str(await self.big_integer(oid)), "object", None
        if type_name in _ATOMICS or type_name == "java.util.concurrent.atomic.AtomicBoolean":
            v = await o.get1(oid, "value")
            if type_name.endswith("AtomicBoolean"):
                return ("true" if prim(v) else "false"), "object", None
            return (await self.view(v, None, depth + 1)).text, "object", None
        if type_name == "java.util.UUID":
            return await self._uuid(oid), "object", None
        date = await self._date(oid, type_name)
        if date is not None:
            return date, "object", None
        c = self.collections
        if c.is_map_like(type_name):
            got = await c.entries(oid, type_name, 0, items)
            if got is not None:
                size, pairs = got
                text = f"{simple(type_name)}(size={size})"
                if pairs:
                    parts = []
                    for k, v in pairs:
                        key = await self.view(k, None, depth + 1)
                        secret = self.redact and key.kind == "string" and is_secret_name(key.text.strip('"'))
                        val = (await self.view(v, None, depth + 1, "secret" if secret else None)).text
                        parts.append(f"{key.text}={val}")
                    text += " {" + ", ".join(parts) + (", …" if size > len(pairs) else "") + "}"
                return text, "map", size
        if c.is_list_like(type_name):
            got = await c.elements(oid, type_name, 0, items)
            if got is not None:
                size, elements = got
                text = f"{simple(type_name)}(size={size})"
                if elements:
                    parts = [(await self.view(v, None, depth + 1)).text for v in elements]
                    text += " [" + ", ".join(parts) + (", …" if size > len(parts) else "") + "]"
                return text, "collection", size
        return None

    # -- logical values --------------------------------------------------------------------------------

    async def builder_text(self, oid: int) -> str:
        arr, coder, count = await self.objects.get(oid, "value", "coder", "count")
        n = prim(count, 0)
        if not obj(arr) or n == 0:
            return ""
        if arr is not None and await self.objects.type_name(obj(arr)) == "char[]":  # JDK 8 layout
            return "".join(v.value for v in await self.objects.elements(obj(arr), 0, n))
        if prim(coder, 0) == 0:
            raw = bytes(v.value & 0xFF for v in await self.objects.elements(obj(arr), 0, n))
            return raw.decode("latin-1")
        raw = bytes(v.value & 0xFF for v in await self.objects.elements(obj(arr), 0, 2 * n))
        return raw.decode("utf-16-le", "replace")  # StringUTF16 uses the platform order: little-endian here

    async def big_integer(self, oid: int) -> int:
        signum, mag = await self.objects.get(oid, "signum", "mag")
        number = 0
        if obj(mag):
            for v in await self.objects.elements(obj(mag)):
                number = (number << 32) | (v.value & 0xFFFFFFFF)
        return number * prim(signum, 0)

    async def big_decimal(self, oid: int) -> Decimal:
        compact, int_val, scale = await self.objects.get(oid, "intCompact", "intVal", "scale")
        unscaled = prim(compact, 0)
        if unscaled == -(1 << 63) and obj(int_val):
            unscaled = await self.big_integer(obj(int_val))
        return Decimal(unscaled).scaleb(-prim(scale, 0))

    async def _uuid(self, oid: int) -> str:
        hi, lo = await self.objects.get(oid, "mostSigBits", "leastSigBits")
        n = ((prim(hi, 0) & (2**64 - 1)) << 64) | (prim(lo, 0) & (2**64 - 1))
        h = f"{n:032x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    async def _date(self, oid: int, type_name: str) -> str | None:
        o = self.objects
        if type_name == "java.time.LocalDate":
            y, m, d = await o.get(oid, "year", "month", "day")
            return f"{prim(y):04d}-{prim(m):02d}-{prim(d):02d}"
        if type_name == "java.time.LocalTime":
            h, mi, s, n = await o.get(oid, "hour", "minute", "second", "nano")
            return _time_text(prim(h), prim(mi), prim(s), prim(n))
        if type_name == "java.time.LocalDateTime":
            d, t = await o.get(oid, "date", "time")
            return f"{await self._date(obj(d), 'java.time.LocalDate')}T{await self._date(obj(t), 'java.time.LocalTime')}"
        if type_name in ("java.time.OffsetDateTime", "java.time.ZonedDateTime"):
            ldt, offset = await o.get(oid, "dateTime", "offset")
            text = f"{await self._date(obj(ldt), 'java.time.LocalDateTime')}{await self._zone_id(obj(offset))}"
            if type_name == "java.time.ZonedDateTime":
                zone = obj(await o.get1(oid, "zone"))
                if zone and zone != obj(offset):
                    text += f"[{await self._zone_id(zone)}]"
            return text
        if type_name in ("java.time.ZoneOffset", "java.time.ZoneRegion"):
            return await self._zone_id(oid)
        if type_name == "java.time.Instant":
            s, n = await o.get(oid, "seconds", "nanos")
            return _instant_text(prim(s, 0), prim(n, 0))
        if type_name in ("java.util.Date", "java.sql.Timestamp", "java.sql.Date"):
            ms = prim(await o.get1(oid, "fastTime"), 0)
            return _instant_text(ms // 1000, (ms % 1000) * 1_000_000)
        if type_name == "java.time.Duration":
            s, n = await o.get(oid, "seconds", "nanos")
            total = Decimal(prim(s, 0)) + Decimal(prim(n, 0)) / Decimal(1_000_000_000)
            return f"PT{total.normalize():f}S"
        return None

    async def _zone_id(self, oid: int) -> str:
        if not oid:
            return ""
        zid = await self.objects.get1(oid, "id")
        return await self.objects.string(obj(zid)) if obj(zid) else "?"

    # -- opening values up ---------------------------------------------------------------------------

    async def inspect(self, target: str, value: Value, static_type: str | None, start: int, count: int,
                      name: str | None = None) -> Inspection:
        view = await self.view(value, static_type, 0, name)
        result = Inspection(target=target, value=view, start=start)
        if not value.is_object or value.is_null or view.kind == "redacted":
            return result
        oid = value.value
        type_name = view.type
        if view.kind == "string":
            text = await self.objects.string(oid)
            result.string = text[start:start + max(count, STRING_PAGE)]
            result.total = len(text)
            return result
        if type_name.endswith("[]"):
            length = await self.objects.length(oid)
            elements = await self.objects.elements(oid, start, count)
            result.children = await self._indexed(elements, start, type_name[:-2])
            result.total = length
            return result
        c = self.collections
        if view.kind == "map":
            got = await c.entries(oid, type_name, start, count)
            if got is not None:
                result.total, pairs = got
                for k, v in pairs:
                    key = await self.view(k, None, 1)
                    secret = self.redact and key.kind == "string" and is_secret_name(key.text.strip('"'))
                    val = await self.view(v, None, 1, "secret" if secret else None)
                    result.entries.append(MapEntry(key, val))
                return result
        if view.kind == "collection":
            got = await c.elements(oid, type_name, start, count)
            if got is not None:
                result.total, elements = got
                result.children = await self._indexed(elements, start, None)
                return result
        if type_name == "java.util.Optional":
            inner = await self.objects.get1(oid, "value")
            if inner is not None and not inner.is_null:
                result.children = [Variable("value", await self.view(inner, None, 1), "field")]
            result.total = len(result.children)
            return result
        return await self._fields(result, oid, start, count)

    async def _indexed(self, elements: list[Value], start: int, elem_type: str | None) -> list[Variable]:
        views = [await self.view(v, elem_type, 1) for v in elements]
        return [Variable(f"[{start + i}]", v, "element") for i, v in enumerate(views)]

    async def _fields(self, result: Inspection, oid: int, start: int, count: int) -> Inspection:
        fields = await self.objects.instance_fields(await self.objects.type_id(oid))
        result.total = len(fields)
        page = fields[start:start + count]
        values = await self.shown_field_values(oid, page)
        secret = await self._entry_secret(page, values)
        views = await asyncio.gather(*(self.view(v, f.type_name, 1, f.name if f.name != secret else "secret")
                                       for f, v in zip(page, values, strict=True)))
        result.children = [Variable(f.name, view, "field") for f, view in zip(page, views, strict=True)]
        return result

    async def static_fields(self, type_id: int) -> list[Variable]:
        fields = [f for f in await self.vm.fields(type_id) if f.is_static]
        values = await self.objects.static_values(type_id, fields)
        return [Variable(f.name, await self.view(v, f.type_name, 1, f.name), "static")
                for f, v in zip(fields, values, strict=True)]


def _time_text(h: int, m: int, s: int, n: int) -> str:
    text = f"{h:02d}:{m:02d}"
    if s or n:
        text += f":{s:02d}"
        if n:
            if n % 1_000_000 == 0:
                text += f".{n // 1_000_000:03d}"
            elif n % 1000 == 0:
                text += f".{n // 1000:06d}"
            else:
                text += f".{n:09d}"
    return text


def _instant_text(seconds: int, nanos: int) -> str:
    try:
        moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)
    except OverflowError:
        return f"Instant(seconds={seconds}, nanos={nanos})"
    return moment.strftime("%Y-%m-%dT") + _time_text(moment.hour, moment.minute, moment.second, nanos) + "Z"


def type_name_of_signature(signature: str) -> str:
    return signature_to_java_name(signature)


__all__ = ["Values", "is_secret_name", "java_length", "escape_java", "format_primitive", "REDACTED", "Any"]
