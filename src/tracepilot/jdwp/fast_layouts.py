"""One struct call per packet body where a layout allows it (issue 32: resume -> stop).

The general codec (spec.py) writes and reads a body a field at a time through `Writer`/`Reader`: some ten
Python calls for a request such as `ThreadReference.Frames(thread, 0, 1)`, more for a reply such as a
frame's location or a frame's values, at every stop. Here the common layouts are compiled, per layout and
ID sizes, into `struct` formats:

- requests: fixed-size fields (ids, ints, longs, bytes), optionally ending with a repeat of them (the
  slots of StackFrame.GetValues, the field ids of ObjectReference.GetValues);
- replies: fixed-size fields (also locations), or one repeat of them (ThreadReference.Frames), or one
  repeat of tagged values (StackFrame.GetValues) or one tagged value (StackFrame.ThisObject).

A layout outside these gets no fast path (None). A fast path that cannot take its input (a value out of a
field's range, a body shorter than its layout, an unknown tag) answers MISS, and the general codec does the
work, raising what it raises: the bytes and the answers are the same either way.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable, Sequence
from typing import Any

from .constants import OBJECT_TAGS, Tag
from .layouts import Repeat
from .wire import IdSizes, Location, Reader, Value

MISS: Any = object()  # "the general codec, please"
_COUNT = struct.Struct(">i")
_UNSIGNED = {1: "B", 2: "H", 4: "I", 8: "Q"}
_ID_CATEGORY = {
    **dict.fromkeys(("object", "thread", "thread_group", "string_id", "class_loader", "class_object", "array",
                     "module"), "object"),
    **dict.fromkeys(("reference_type", "class", "interface", "array_type"), "reference_type"),
    "method": "method", "field": "field", "frame": "frame",
}
_FAILED = (struct.error, TypeError, ValueError, OverflowError, IndexError)
PACK_FAILED = _FAILED  # (what a packer raises for arguments it cannot take)


def _code(kind: Any, sizes: IdSizes, encoding: bool) -> str | None:
    """The struct code of a fixed-size field (a location: four), None for any other kind."""
    if not isinstance(kind, str):
        return None
    if kind == "int":
        return "i"
    if kind == "long":
        return "q"
    if kind == "byte":
        return "B" if encoding else "b"  # (Writer.byte masks to 0..255: any other value goes the general way)
    category = _ID_CATEGORY.get(kind)
    if category is not None:
        return _UNSIGNED[getattr(sizes, category)]
    if kind == "location" and not encoding:
        return "B" + _UNSIGNED[sizes.reference_type] + _UNSIGNED[sizes.method] + "q"
    return None


def _codes(fields: Sequence[tuple[str, Any]], sizes: IdSizes, encoding: bool) -> list[str] | None:
    codes = [_code(kind, sizes, encoding) for _, kind in fields]
    return None if any(c is None for c in codes) else codes  # type: ignore[return-value]


def compile_packer(layout: Sequence[tuple[str, Any]], sizes: IdSizes) -> Callable[[Sequence[Any]], bytes] | None:
    """bytes of a request body from its arguments (positional, as many as fields), or None: no fast path."""
    head, tail = list(layout), None
    if head and isinstance(head[-1][1], Repeat):
        tail = head.pop()[1]
    codes = _codes(head, sizes, True)
    if codes is None:
        return None
    head_format = struct.Struct(">" + "".join(codes))
    if tail is None:
        return lambda args: head_format.pack(*args)
    item_codes = _codes(tail.fields, sizes, True)
    if item_codes is None:
        return None
    item = struct.Struct(">" + "".join(item_codes))
    count = _COUNT.pack
    if len(item_codes) == 1:  # a repeat of one field: plain values
        pack_one = item.pack

        def pack_values(args: Sequence[Any]) -> bytes:
            items = args[-1]
            return head_format.pack(*args[:-1]) + count(len(items)) + b"".join(map(pack_one, items))

        return pack_values
    pack_item = item.pack

    def pack_items(args: Sequence[Any]) -> bytes:
        items = args[-1]
        return head_format.pack(*args[:-1]) + count(len(items)) + b"".join([pack_item(*i) for i in items])

    return pack_items


def compile_unpacker(reply_class: type, layout: Sequence[tuple[str, Any]],
                     sizes: IdSizes) -> Callable[[bytes], Any] | None:
    """The reply (an instance of reply_class) from its body, or MISS; None: no fast path for this layout."""
    make = functools.partial(tuple.__new__, reply_class)  # (namedtuple's _make without its Python layer)
    if len(layout) == 1 and layout[0][1] == "array_region":  # ArrayReference.GetValues
        return _region_unpacker(make, sizes)
    if len(layout) == 1 and layout[0][1] in ("value", "tagged_object"):
        read_value = _value_reader(sizes)
        only_objects = layout[0][1] == "tagged_object"

        def unpack_value(data: bytes) -> Any:
            found = read_value(data, 0, 1)
            if found is MISS or (only_objects and found[0].tag not in OBJECT_TAGS):
                return MISS
            return make(found)

        return unpack_value
    if len(layout) == 1 and isinstance(layout[0][1], Repeat):
        fields = layout[0][1].fields
        if len(fields) == 1 and fields[0][1] == "value":
            read_values = _value_reader(sizes)

            def unpack_values(data: bytes) -> Any:
                try:
                    (n,) = _COUNT.unpack_from(data, 0)
                except struct.error:
                    return MISS
                if n < 0 or n > len(data) - 4:
                    return MISS
                found = read_values(data, 4, n)
                return MISS if found is MISS else make((found,))

            return unpack_values
        codes = _codes(fields, sizes, False)
        if codes is None or len(fields) == 1:
            return None
        record = struct.Struct(">" + "".join(codes))
        build_item = _builder(functools.partial(tuple.__new__, reply_class.SUBTYPES[layout[0][0]]),  # type: ignore[attr-defined]
                              fields)
        size = record.size

        def unpack_records(data: bytes) -> Any:
            try:
                (n,) = _COUNT.unpack_from(data, 0)
            except struct.error:
                return MISS
            if n < 0 or 4 + n * size > len(data):
                return MISS
            return make(([build_item(r) for r in record.iter_unpack(data[4:4 + n * size])],))

        return unpack_records
    codes = _codes(layout, sizes, False)
    if codes is None:
        return None
    fixed = struct.Struct(">" + "".join(codes))
    build = _builder(make, layout)

    def unpack_fixed(data: bytes) -> Any:
        try:
            return build(fixed.unpack_from(data, 0))
        except struct.error:
            return MISS

    return unpack_fixed


def _region_unpacker(make: Callable[[Any], Any], sizes: IdSizes) -> Callable[[bytes], Any]:
    """An array region of objects (each its own tag) with one struct call; other regions: the Reader's read
    (one unpack for the whole region already)."""
    record = struct.Struct(">B" + _UNSIGNED[sizes.object])
    header = struct.Struct(">Bi")
    tags = {int(tag): tag for tag in OBJECT_TAGS}

    def unpack_region(data: bytes) -> Any:
        try:
            raw_tag, n = header.unpack_from(data, 0)
        except struct.error:
            return MISS
        if raw_tag not in tags or n < 0 or 5 + n * record.size > len(data):
            return make((Reader(data, sizes).array_region(),))
        out = []
        for item_tag, object_id in record.iter_unpack(data[5:5 + n * record.size]):
            tag = tags.get(item_tag)
            if tag is None:
                return MISS
            out.append(Value(tag, object_id))
        return make((out,))

    return unpack_region


def _builder(make: Callable[[Any], Any], fields: Sequence[tuple[str, Any]]) -> Callable[[tuple[Any, ...]], Any]:
    """The namedtuple from a flat struct tuple: each location's four values grouped into a Location."""
    kinds = [kind for _, kind in fields]
    if "location" not in kinds:
        return make
    if kinds == ["frame", "location"]:  # (ThreadReference.Frames' items)
        return lambda r: make((r[0], Location(r[1], r[2], r[3], r[4])))

    def build(flat: tuple[Any, ...]) -> Any:
        out, i = [], 0
        for kind in kinds:
            if kind == "location":
                out.append(Location(*flat[i:i + 4]))
                i += 4
            else:
                out.append(flat[i])
                i += 1
        return make(out)

    return build


def _value_reader(sizes: IdSizes) -> Callable[[bytes, int, int], Any]:
    """n tagged values from `pos`: [Value], or MISS (an unknown tag, too few bytes)."""
    object_id = struct.Struct(">" + _UNSIGNED[sizes.object])
    plain = {Tag.BYTE: ">b", Tag.SHORT: ">h", Tag.INT: ">i", Tag.LONG: ">q", Tag.FLOAT: ">f", Tag.DOUBLE: ">d"}
    table: dict[int, tuple[Tag, Any, Any]] = {int(t): (t, struct.Struct(f), None) for t, f in plain.items()}
    table[int(Tag.CHAR)] = (Tag.CHAR, struct.Struct(">H"), chr)
    table[int(Tag.BOOLEAN)] = (Tag.BOOLEAN, struct.Struct(">B"), lambda v: v != 0)
    table[int(Tag.VOID)] = (Tag.VOID, None, None)
    for tag in OBJECT_TAGS:
        table[int(tag)] = (tag, object_id, None)

    def read(data: bytes, pos: int, n: int) -> Any:
        out = []
        try:
            for _ in range(n):
                entry = table.get(data[pos])
                if entry is None:
                    return MISS
                tag, fmt, convert = entry
                pos += 1
                if fmt is None:
                    out.append(Value(tag, None))
                    continue
                (v,) = fmt.unpack_from(data, pos)
                pos += fmt.size
                out.append(Value(tag, v if convert is None else convert(v)))
        except _FAILED:
            return MISS
        return out

    return read


class FastCodec:
    """A command's fast paths for one IdSizes (compiled on first use)."""

    __slots__ = ("arity", "pack", "sizes", "unpack")

    def __init__(self, sizes: IdSizes, request_layout: Sequence[tuple[str, Any]], reply_class: type | None,
                 reply_layout: Sequence[tuple[str, Any]]) -> None:
        self.sizes = sizes
        self.arity = len(request_layout)
        self.pack = compile_packer(request_layout, sizes)
        self.unpack = compile_unpacker(reply_class, reply_layout, sizes) if reply_class is not None else None
