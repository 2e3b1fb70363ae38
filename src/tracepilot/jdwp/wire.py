"""Primitive encoding and decoding of JDWP data: integers, IDs, strings, locations, values.

No I/O here: a `Reader` walks a bytes object, a `Writer` fills a bytearray. Object, type, method, field
and frame IDs have the widths the VM announced in VirtualMachine.IDSizes (`IdSizes`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, NamedTuple

from .constants import OBJECT_TAGS, Tag, TypeTag
from .errors import ProtocolError

_B = struct.Struct(">b")
_UB = struct.Struct(">B")
_H = struct.Struct(">H")
_SH = struct.Struct(">h")
_I = struct.Struct(">i")
_UI = struct.Struct(">I")
_Q = struct.Struct(">q")
_F = struct.Struct(">f")
_D = struct.Struct(">d")
_UNSIGNED_BY_SIZE = {1: _UB, 2: _H, 4: _UI, 8: struct.Struct(">Q")}


@dataclass(frozen=True, slots=True)
class IdSizes:
    field: int = 8
    method: int = 8
    object: int = 8
    reference_type: int = 8
    frame: int = 8

    def __post_init__(self) -> None:
        for size in (self.field, self.method, self.object, self.reference_type, self.frame):
            if size not in _UNSIGNED_BY_SIZE:
                raise ProtocolError(f"unsupported JDWP ID size {size}")


class Location(NamedTuple):
    """A code position: class, method and bytecode index."""

    type_tag: int
    class_id: int
    method_id: int
    index: int

    @property
    def is_null(self) -> bool:
        return self.class_id == 0 and self.method_id == 0


NULL_LOCATION = Location(TypeTag.CLASS, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Value:
    """A tagged JDWP value: a primitive (Python bool/int/float/str for char) or an object ID (0 = null)."""

    tag: Tag
    value: Any

    @property
    def is_object(self) -> bool:
        return self.tag in OBJECT_TAGS

    @property
    def is_null(self) -> bool:
        return self.tag in OBJECT_TAGS and self.value == 0

    # Constructors for the values callers send most.
    @staticmethod
    def int(v: int) -> Value:
        return Value(Tag.INT, v)

    @staticmethod
    def long(v: int) -> Value:
        return Value(Tag.LONG, v)

    @staticmethod
    def boolean(v: bool) -> Value:
        return Value(Tag.BOOLEAN, bool(v))

    @staticmethod
    def double(v: float) -> Value:
        return Value(Tag.DOUBLE, float(v))

    @staticmethod
    def object(object_id: int, tag: Tag = Tag.OBJECT) -> Value:
        return Value(tag, object_id)

    @staticmethod
    def null() -> Value:
        return Value(Tag.OBJECT, 0)


VOID = Value(Tag.VOID, None)


def decode_mutf8(data: bytes) -> str:
    """Decode a JDWP string: UTF-8 as HotSpot writes it, which is really "modified UTF-8".

    NUL arrives as C0 80 and characters outside the BMP as two 3-byte surrogates (CESU-8); a Java string
    may even hold unpaired surrogates. None of that may fail: pairs are joined, strays become U+FFFD.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    data = data.replace(b"\xc0\x80", b"\x00")
    try:
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
    # Join surrogate pairs; lone surrogates cannot be represented in UTF-16 output and become U+FFFD.
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "replace")


def encode_mutf8(text: str) -> bytes:
    """Encode a string the way JNI's NewStringUTF expects it (modified UTF-8)."""
    if text.isascii() and "\x00" not in text:
        return text.encode("ascii")
    units = text.encode("utf-16-be", "surrogatepass")
    as_ucs2 = "".join(chr(int.from_bytes(units[i : i + 2], "big")) for i in range(0, len(units), 2))
    return as_ucs2.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")


class Reader:
    """Reads JDWP data from a bytes object; every read past the end is a ProtocolError."""

    __slots__ = ("data", "pos", "sizes", "_obj", "_ref", "_method", "_field", "_frame")

    def __init__(self, data: bytes | memoryview, sizes: IdSizes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos
        self.sizes = sizes
        self._obj = _UNSIGNED_BY_SIZE[sizes.object]
        self._ref = _UNSIGNED_BY_SIZE[sizes.reference_type]
        self._method = _UNSIGNED_BY_SIZE[sizes.method]
        self._field = _UNSIGNED_BY_SIZE[sizes.field]
        self._frame = _UNSIGNED_BY_SIZE[sizes.frame]

    def _unpack(self, fmt: struct.Struct) -> Any:
        try:
            (value,) = fmt.unpack_from(self.data, self.pos)
        except struct.error:
            raise ProtocolError(
                f"packet truncated: needed {fmt.size} bytes at offset {self.pos}, have {len(self.data) - self.pos}"
            ) from None
        self.pos += fmt.size
        return value

    def byte(self) -> int:
        return self._unpack(_B)

    def ubyte(self) -> int:
        return self._unpack(_UB)

    def boolean(self) -> bool:
        return self._unpack(_UB) != 0

    def char(self) -> str:
        return chr(self._unpack(_H))

    def short(self) -> int:
        return self._unpack(_SH)

    def int(self) -> int:
        return self._unpack(_I)

    def long(self) -> int:
        return self._unpack(_Q)

    def float(self) -> float:
        return self._unpack(_F)

    def double(self) -> float:
        return self._unpack(_D)

    def object_id(self) -> int:
        return self._unpack(self._obj)

    def reference_type_id(self) -> int:
        return self._unpack(self._ref)

    def method_id(self) -> int:
        return self._unpack(self._method)

    def field_id(self) -> int:
        return self._unpack(self._field)

    def frame_id(self) -> int:
        return self._unpack(self._frame)

    def raw(self, length: int) -> bytes:
        if length < 0 or self.pos + length > len(self.data):
            raise ProtocolError(f"packet truncated: {length} bytes announced at offset {self.pos}")
        chunk = bytes(self.data[self.pos : self.pos + length])
        self.pos += length
        return chunk

    def bytes_(self) -> bytes:
        return self.raw(self.int())

    def string(self) -> str:
        return decode_mutf8(self.raw(self.int()))

    def count(self) -> int:
        """A repeat count; checked against what is left so garbage cannot make us loop for ages."""
        n = self.int()
        if n < 0 or n > len(self.data) - self.pos:
            raise ProtocolError(f"implausible count {n} at offset {self.pos - 4}")
        return n

    def location(self) -> Location:
        return Location(self.ubyte(), self.reference_type_id(), self.method_id(), self.long())

    def untagged(self, tag: Tag) -> Any:
        reader = _UNTAGGED_READERS.get(tag)
        if reader is None:
            raise ProtocolError(f"unknown value tag {tag!r}")
        return reader(self)

    def value(self) -> Value:
        raw_tag = self.ubyte()
        tag = _TAGS.get(raw_tag)
        if tag is None:
            raise ProtocolError(f"unknown value tag {raw_tag}")
        return Value(tag, self.untagged(tag))

    def tagged_object(self) -> Value:
        value = self.value()
        if not value.is_object:
            raise ProtocolError(f"expected an object value, got tag {value.tag.name}")
        return value

    def array_region(self) -> list[Value]:
        raw_tag = self.ubyte()
        tag = _TAGS.get(raw_tag)
        if tag is None:
            raise ProtocolError(f"unknown array region tag {raw_tag}")
        n = self.count()
        if tag in OBJECT_TAGS:
            return self._object_region(n)
        code = _REGION_CODES.get(tag)
        if code is None or n == 0:
            read = _UNTAGGED_READERS[tag]
            return [Value(tag, read(self)) for _ in range(n)]
        # One unpack for the whole region (a class file read as a byte[] is tens of thousands of values).
        fmt = struct.Struct(f">{n}{code}")
        try:
            items = fmt.unpack_from(self.data, self.pos)
        except struct.error:
            raise ProtocolError(f"packet truncated: {n} array values announced at offset {self.pos}") from None
        self.pos += fmt.size
        if tag == Tag.CHAR:
            return [Value(tag, chr(v)) for v in items]
        if tag == Tag.BOOLEAN:
            return [Value(tag, v != 0) for v in items]
        return [Value(tag, v) for v in items]

    def _object_region(self, n: int) -> list[Value]:
        """n tagged object ids (each its own tag), without a call per element."""
        record = _OBJECT_RECORDS[self.sizes.object]
        end = self.pos + n * record.size
        if end > len(self.data):
            raise ProtocolError(f"packet truncated: {n} array values announced at offset {self.pos}")
        out = []
        for raw_tag, object_id in record.iter_unpack(self.data[self.pos:end]):
            tag = _OBJECT_TAG_OF.get(raw_tag)
            if tag is None:
                raise ProtocolError(f"expected an object value in an object array, got tag {raw_tag}")
            out.append(Value(tag, object_id))
        self.pos = end
        return out

    def at_end(self) -> bool:
        return self.pos >= len(self.data)


_TAGS = {int(t): t for t in Tag}  # (a look-up: Tag(raw) goes through EnumType.__call__ on every value)
_UNTAGGED_READERS = {
    Tag.BYTE: Reader.byte,
    Tag.CHAR: Reader.char,
    Tag.FLOAT: Reader.float,
    Tag.DOUBLE: Reader.double,
    Tag.INT: Reader.int,
    Tag.LONG: Reader.long,
    Tag.SHORT: Reader.short,
    Tag.BOOLEAN: Reader.boolean,
    Tag.VOID: lambda r: None,
    **{tag: Reader.object_id for tag in OBJECT_TAGS},
}


# struct codes of the primitive array regions read in one unpack (array_region)
_REGION_CODES = {Tag.BYTE: "b", Tag.CHAR: "H", Tag.FLOAT: "f", Tag.DOUBLE: "d", Tag.INT: "i", Tag.LONG: "q",
                 Tag.SHORT: "h", Tag.BOOLEAN: "B"}
_OBJECT_TAG_OF = {int(tag): tag for tag in OBJECT_TAGS}
_OBJECT_RECORDS = {size: struct.Struct(f">B{fmt.format[-1]}") for size, fmt in _UNSIGNED_BY_SIZE.items()}


class Writer:
    """Builds JDWP data in a bytearray."""

    __slots__ = ("buf", "sizes")

    def __init__(self, sizes: IdSizes) -> None:
        self.buf = bytearray()
        self.sizes = sizes

    def byte(self, v: int) -> None:
        self.buf += _UB.pack(v & 0xFF)

    def boolean(self, v: bool) -> None:
        self.buf.append(1 if v else 0)

    def char(self, v: str | int) -> None:
        self.buf += _H.pack(ord(v) if isinstance(v, str) else v & 0xFFFF)

    def short(self, v: int) -> None:
        self.buf += _SH.pack(v)

    def int(self, v: int) -> None:
        self.buf += _I.pack(v)

    def long(self, v: int) -> None:
        self.buf += _Q.pack(v)

    def float(self, v: float) -> None:
        self.buf += _F.pack(v)

    def double(self, v: float) -> None:
        self.buf += _D.pack(v)

    def _id(self, size: int, v: int) -> None:
        self.buf += v.to_bytes(size, "big")

    def object_id(self, v: int) -> None:
        self._id(self.sizes.object, v)

    def reference_type_id(self, v: int) -> None:
        self._id(self.sizes.reference_type, v)

    def method_id(self, v: int) -> None:
        self._id(self.sizes.method, v)

    def field_id(self, v: int) -> None:
        self._id(self.sizes.field, v)

    def frame_id(self, v: int) -> None:
        self._id(self.sizes.frame, v)

    def bytes_(self, v: bytes) -> None:
        self.int(len(v))
        self.buf += v

    def string(self, v: str) -> None:
        self.bytes_(encode_mutf8(v))

    def location(self, v: Location) -> None:
        self.byte(v.type_tag)
        self.reference_type_id(v.class_id)
        self.method_id(v.method_id)
        self.long(v.index)

    def untagged(self, v: Value) -> None:
        _UNTAGGED_WRITERS[v.tag](self, v.value)

    def value(self, v: Value) -> None:
        self.byte(v.tag)
        self.untagged(v)

    def array_region(self, values: list[Value]) -> None:  # only used by codec tests (replies are VM-made)
        tag = values[0].tag if values else Tag.INT
        self.byte(tag)
        self.int(len(values))
        for v in values:
            if tag in OBJECT_TAGS:
                self.value(v)
            else:
                self.untagged(v)


_UNTAGGED_WRITERS = {
    Tag.BYTE: Writer.byte,
    Tag.CHAR: Writer.char,
    Tag.FLOAT: Writer.float,
    Tag.DOUBLE: Writer.double,
    Tag.INT: Writer.int,
    Tag.LONG: Writer.long,
    Tag.SHORT: Writer.short,
    Tag.BOOLEAN: Writer.boolean,
    Tag.VOID: lambda w, v: None,
    **{tag: Writer.object_id for tag in OBJECT_TAGS},
}
