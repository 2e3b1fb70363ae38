"""Read and write JVM class files (JVMS chapter 4), byte for byte.

``ClassFile.parse(data).to_bytes() == data`` for every well-formed class: the constant pool keeps its
raw entries, attributes nobody here needs stay raw bytes, and the parsed ones (Code, LineNumberTable,
LocalVariableTable(+Type), StackMapTable) remember the encoding choices of their writer (a StackMapTable
frame keeps its frame type unless a new offset no longer fits it).

Code offsets in the parsed attributes are absolute (a StackMapTable frame stores its offset, not the
delta), so code insertion (insert.py) shifts numbers without re-deriving the delta chain.
"""

from __future__ import annotations

import copy
import struct
from dataclasses import dataclass, field

__all__ = [
    "Attribute",
    "ClassFile",
    "ClassFormatError",
    "Code",
    "ConstantPool",
    "ExceptionEntry",
    "Frame",
    "LineEntry",
    "LocalEntry",
    "Member",
    "VType",
]


class ClassFormatError(ValueError):
    """The bytes are not a class file this reader understands."""


# Constant pool tags (JVMS 4.4).
UTF8, INTEGER, FLOAT, LONG, DOUBLE, CLASS, STRING = 1, 3, 4, 5, 6, 7, 8
FIELDREF, METHODREF, INTERFACE_METHODREF, NAME_AND_TYPE = 9, 10, 11, 12
METHOD_HANDLE, METHOD_TYPE, DYNAMIC, INVOKE_DYNAMIC, MODULE, PACKAGE = 15, 16, 17, 18, 19, 20

# Bytes after the tag, for the fixed-size entries.
_FIXED_SIZE = {INTEGER: 4, FLOAT: 4, LONG: 8, DOUBLE: 8, CLASS: 2, STRING: 2, FIELDREF: 4, METHODREF: 4,
               INTERFACE_METHODREF: 4, NAME_AND_TYPE: 4, METHOD_HANDLE: 3, METHOD_TYPE: 2, DYNAMIC: 4,
               INVOKE_DYNAMIC: 4, MODULE: 2, PACKAGE: 2}


class ByteReader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise ClassFormatError(f"truncated at byte {self.pos} (wanted {n} more)")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def u1(self) -> int:
        return self.take(1)[0]

    def u2(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def u4(self) -> int:
        return int.from_bytes(self.take(4), "big")


class ConstantPool:
    """Entries as (tag, raw bytes after the tag); index 0 and the slot after a long/double are None.

    Lookups decode on demand; ``add_*`` append (reusing an equal entry) so new code can refer to
    classes, methods and strings without disturbing existing indices.
    """

    def __init__(self, entries: list[tuple[int, bytes] | None]) -> None:
        self.entries = entries
        self._index: dict[tuple[int, bytes], int] = {}
        for i, entry in enumerate(entries):
            if entry is not None:
                self._index.setdefault(entry, i)

    @classmethod
    def read(cls, r: ByteReader) -> ConstantPool:
        count = r.u2()
        entries: list[tuple[int, bytes] | None] = [None]
        i = 1
        while i < count:
            tag = r.u1()
            if tag == UTF8:
                length = r.u2()
                raw = length.to_bytes(2, "big") + r.take(length)
            elif tag in _FIXED_SIZE:
                raw = r.take(_FIXED_SIZE[tag])
            else:
                raise ClassFormatError(f"unknown constant pool tag {tag} at entry {i}")
            entries.append((tag, raw))
            i += 1
            if tag in (LONG, DOUBLE):
                entries.append(None)
                i += 1
        return cls(entries)

    def write(self, out: bytearray) -> None:
        out += len(self.entries).to_bytes(2, "big")
        for entry in self.entries:
            if entry is not None:
                out.append(entry[0])
                out += entry[1]

    def __len__(self) -> int:
        return len(self.entries)

    def tag(self, index: int) -> int:
        entry = self.entries[index]
        if entry is None:
            raise ClassFormatError(f"constant pool index {index} is not an entry")
        return entry[0]

    def _refs(self, index: int) -> tuple[int, int]:
        raw = self.entries[index][1]  # type: ignore[index]
        return int.from_bytes(raw[0:2], "big"), int.from_bytes(raw[2:4], "big")

    def utf8(self, index: int) -> str:
        entry = self.entries[index]
        if entry is None or entry[0] != UTF8:
            raise ClassFormatError(f"constant pool index {index} is not a Utf8")
        return _decode_modified_utf8(entry[1][2:])

    def class_name(self, index: int) -> str:
        """Internal name of a CONSTANT_Class ("java/lang/String", "[I")."""
        return self.utf8(int.from_bytes(self.entries[index][1], "big"))  # type: ignore[index]

    def member_ref(self, index: int) -> tuple[str, str, str]:
        """(owner internal name, member name, descriptor) of a Field/Method/InterfaceMethodref."""
        owner, nat = self._refs(index)
        name, desc = self._refs(nat)
        return self.class_name(owner), self.utf8(name), self.utf8(desc)

    def _add(self, tag: int, raw: bytes) -> int:
        key = (tag, raw)
        found = self._index.get(key)
        if found is not None:
            return found
        index = len(self.entries)
        if index + (2 if tag in (LONG, DOUBLE) else 1) > 0xFFFF:
            raise ClassFormatError("constant pool is full")
        self.entries.append(key)
        if tag in (LONG, DOUBLE):
            self.entries.append(None)
        self._index[key] = index
        return index

    def add_utf8(self, text: str) -> int:
        body = _encode_modified_utf8(text)
        return self._add(UTF8, len(body).to_bytes(2, "big") + body)

    def add_class(self, internal_name: str) -> int:
        return self._add(CLASS, self.add_utf8(internal_name).to_bytes(2, "big"))

    def add_string(self, text: str) -> int:
        return self._add(STRING, self.add_utf8(text).to_bytes(2, "big"))

    def add_int(self, value: int) -> int:
        return self._add(INTEGER, struct.pack(">i", value))

    def add_long(self, value: int) -> int:
        return self._add(LONG, struct.pack(">q", value))

    def add_float(self, value: float) -> int:
        return self._add(FLOAT, struct.pack(">f", value))

    def add_double(self, value: float) -> int:
        return self._add(DOUBLE, struct.pack(">d", value))

    def add_name_and_type(self, name: str, descriptor: str) -> int:
        return self._add(NAME_AND_TYPE, self.add_utf8(name).to_bytes(2, "big")
                         + self.add_utf8(descriptor).to_bytes(2, "big"))

    def _add_ref(self, tag: int, owner: str, name: str, descriptor: str) -> int:
        return self._add(tag, self.add_class(owner).to_bytes(2, "big")
                         + self.add_name_and_type(name, descriptor).to_bytes(2, "big"))

    def add_field_ref(self, owner: str, name: str, descriptor: str) -> int:
        return self._add_ref(FIELDREF, owner, name, descriptor)

    def add_method_ref(self, owner: str, name: str, descriptor: str, interface: bool = False) -> int:
        return self._add_ref(INTERFACE_METHODREF if interface else METHODREF, owner, name, descriptor)


def _decode_modified_utf8(raw: bytes) -> str:
    # Modified UTF-8 differs from UTF-8 in NUL (C0 80) and supplementary characters (surrogate pairs);
    # surrogatepass decodes the pairs to lone surrogates, which is faithful enough for names.
    return raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", errors="surrogatepass")


def _encode_modified_utf8(text: str) -> bytes:
    out = bytearray()
    for ch in text:
        code = ord(ch)
        if code == 0:
            out += b"\xc0\x80"
        elif code >= 0x10000:  # a surrogate pair, each half as three bytes
            code -= 0x10000
            for half in (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)):
                out += bytes([0xE0 | (half >> 12), 0x80 | ((half >> 6) & 0x3F), 0x80 | (half & 0x3F)])
        else:
            out += ch.encode("utf-8", errors="surrogatepass")
    return bytes(out)


@dataclass
class Attribute:
    """An attribute kept as raw bytes."""

    name_index: int
    info: bytes

    def write(self, out: bytearray, pool: ConstantPool) -> None:
        out += self.name_index.to_bytes(2, "big") + len(self.info).to_bytes(4, "big") + self.info


@dataclass
class LineEntry:
    start_pc: int
    line: int


@dataclass
class LineNumberTable:
    name_index: int
    entries: list[LineEntry]

    @classmethod
    def parse(cls, name_index: int, info: bytes) -> LineNumberTable:
        r = ByteReader(info)
        return cls(name_index, [LineEntry(r.u2(), r.u2()) for _ in range(r.u2())])

    def write(self, out: bytearray, pool: ConstantPool) -> None:
        body = bytearray(len(self.entries).to_bytes(2, "big"))
        for e in self.entries:
            body += struct.pack(">HH", e.start_pc, e.line)
        Attribute(self.name_index, bytes(body)).write(out, pool)


@dataclass
class LocalEntry:
    start_pc: int
    length: int
    name_index: int
    descriptor_index: int  # the signature index in a LocalVariableTypeTable
    slot: int


@dataclass
class LocalVariableTable:
    """LocalVariableTable or LocalVariableTypeTable (same layout)."""

    name_index: int
    entries: list[LocalEntry]

    @classmethod
    def parse(cls, name_index: int, info: bytes) -> LocalVariableTable:
        r = ByteReader(info)
        return cls(name_index, [LocalEntry(r.u2(), r.u2(), r.u2(), r.u2(), r.u2()) for _ in range(r.u2())])

    def write(self, out: bytearray, pool: ConstantPool) -> None:
        body = bytearray(len(self.entries).to_bytes(2, "big"))
        for e in self.entries:
            body += struct.pack(">HHHHH", e.start_pc, e.length, e.name_index, e.descriptor_index, e.slot)
        Attribute(self.name_index, bytes(body)).write(out, pool)


# Verification type tags (JVMS 4.10.1.2 / 4.7.4).
V_TOP, V_INTEGER, V_FLOAT, V_DOUBLE, V_LONG, V_NULL, V_UNINITIALIZED_THIS, V_OBJECT, V_UNINITIALIZED = range(9)


@dataclass(frozen=True)
class VType:
    """A verification type; ``data`` is the class index (Object) or the `new` offset (Uninitialized)."""

    tag: int
    data: int = 0

    @staticmethod
    def read(r: ByteReader) -> VType:
        tag = r.u1()
        if tag in (V_OBJECT, V_UNINITIALIZED):
            return VType(tag, r.u2())
        if tag > V_UNINITIALIZED:
            raise ClassFormatError(f"unknown verification type tag {tag}")
        return VType(tag)

    def write(self, out: bytearray) -> None:
        out.append(self.tag)
        if self.tag in (V_OBJECT, V_UNINITIALIZED):
            out += self.data.to_bytes(2, "big")


SAME_EXTENDED, SAME_LOCALS_1_EXTENDED, FULL = 251, 247, 255


@dataclass
class Frame:
    """One StackMapTable entry. ``offset`` is absolute; ``locals`` holds the appended locals of an
    append frame, every local of a full frame; ``chop`` is the number of chopped locals."""

    frame_type: int
    offset: int
    locals: list[VType] = field(default_factory=list)
    stack: list[VType] = field(default_factory=list)

    def fitted_type(self, delta: int) -> int:
        """The frame type to write for this delta: the original one unless the delta outgrew it."""
        if self.frame_type < 64 and delta >= 64:
            return SAME_EXTENDED
        if 64 <= self.frame_type < 128 and delta >= 64:
            return SAME_LOCALS_1_EXTENDED
        if self.frame_type < 64:
            return delta
        if self.frame_type < 128:
            return 64 + delta
        return self.frame_type


@dataclass
class StackMapTable:
    name_index: int
    frames: list[Frame]

    @classmethod
    def parse(cls, name_index: int, info: bytes) -> StackMapTable:
        r = ByteReader(info)
        frames: list[Frame] = []
        previous = -1
        for _ in range(r.u2()):
            frame_type = r.u1()
            locals_: list[VType] = []
            stack: list[VType] = []
            if frame_type < 64:
                delta = frame_type
            elif frame_type < 128:
                delta = frame_type - 64
                stack = [VType.read(r)]
            elif frame_type < 247:
                raise ClassFormatError(f"reserved stack map frame type {frame_type}")
            elif frame_type == SAME_LOCALS_1_EXTENDED:
                delta = r.u2()
                stack = [VType.read(r)]
            elif frame_type <= SAME_EXTENDED:  # chop (248-250) or same_frame_extended
                delta = r.u2()
            elif frame_type < FULL:  # append
                delta = r.u2()
                locals_ = [VType.read(r) for _ in range(frame_type - 251)]
            else:
                delta = r.u2()
                locals_ = [VType.read(r) for _ in range(r.u2())]
                stack = [VType.read(r) for _ in range(r.u2())]
            previous = delta if previous < 0 else previous + delta + 1
            frames.append(Frame(frame_type, previous, locals_, stack))
        return cls(name_index, frames)

    def write(self, out: bytearray, pool: ConstantPool) -> None:
        body = bytearray(len(self.frames).to_bytes(2, "big"))
        previous = -1
        for frame in self.frames:
            delta = frame.offset if previous < 0 else frame.offset - previous - 1
            if delta < 0 or delta > 0xFFFF:
                raise ClassFormatError(f"stack map frames out of order at offset {frame.offset}")
            previous = frame.offset
            frame_type = frame.fitted_type(delta)
            body.append(frame_type)
            if frame_type >= 128:
                body += delta.to_bytes(2, "big")
            if frame_type == FULL:
                body += len(frame.locals).to_bytes(2, "big")
                for v in frame.locals:
                    v.write(body)
                body += len(frame.stack).to_bytes(2, "big")
                for v in frame.stack:
                    v.write(body)
            else:
                for v in frame.locals:
                    v.write(body)
                for v in frame.stack:
                    v.write(body)
        Attribute(self.name_index, bytes(body)).write(out, pool)


@dataclass
class ExceptionEntry:
    start_pc: int
    end_pc: int
    handler_pc: int
    catch_type: int


@dataclass
class Code:
    name_index: int
    max_stack: int
    max_locals: int
    code: bytes
    exceptions: list[ExceptionEntry]
    attributes: list  # Attribute | LineNumberTable | LocalVariableTable | StackMapTable

    @classmethod
    def parse(cls, name_index: int, info: bytes, pool: ConstantPool) -> Code:
        r = ByteReader(info)
        max_stack, max_locals = r.u2(), r.u2()
        code = r.take(r.u4())
        exceptions = [ExceptionEntry(r.u2(), r.u2(), r.u2(), r.u2()) for _ in range(r.u2())]
        attributes = _read_attributes(r, pool, _CODE_ATTRIBUTES)
        if r.pos != len(info):
            raise ClassFormatError("Code attribute has trailing bytes")
        return cls(name_index, max_stack, max_locals, code, exceptions, attributes)

    def write(self, out: bytearray, pool: ConstantPool) -> None:
        body = bytearray(struct.pack(">HHI", self.max_stack, self.max_locals, len(self.code)))
        body += self.code
        body += len(self.exceptions).to_bytes(2, "big")
        for e in self.exceptions:
            body += struct.pack(">HHHH", e.start_pc, e.end_pc, e.handler_pc, e.catch_type)
        _write_attributes(body, self.attributes, pool)
        Attribute(self.name_index, bytes(body)).write(out, pool)

    def find(self, kind: type) -> list:
        return [a for a in self.attributes if isinstance(a, kind)]

    def attribute_named(self, pool: ConstantPool, name: str) -> list:
        return [a for a in self.attributes if pool.utf8(a.name_index) == name]


_CODE_ATTRIBUTES = {
    "LineNumberTable": LineNumberTable.parse,
    "LocalVariableTable": LocalVariableTable.parse,
    "LocalVariableTypeTable": LocalVariableTable.parse,
    "StackMapTable": StackMapTable.parse,
}


def _read_attributes(r: ByteReader, pool: ConstantPool, parsers: dict) -> list:
    attributes = []
    for _ in range(r.u2()):
        name_index = r.u2()
        info = r.take(r.u4())
        name = pool.utf8(name_index)
        if name == "Code" and parsers is _MEMBER_ATTRIBUTES:
            attributes.append(Code.parse(name_index, info, pool))
        elif name in parsers:
            attributes.append(parsers[name](name_index, info))
        else:
            attributes.append(Attribute(name_index, info))
    return attributes


def _write_attributes(out: bytearray, attributes: list, pool: ConstantPool) -> None:
    out += len(attributes).to_bytes(2, "big")
    for attribute in attributes:
        attribute.write(out, pool)


_MEMBER_ATTRIBUTES: dict = {}  # methods: Code is parsed (handled in _read_attributes); the rest stays raw


@dataclass
class Member:
    """A field or a method."""

    access: int
    name_index: int
    descriptor_index: int
    attributes: list

    @property
    def code(self) -> Code | None:
        return next((a for a in self.attributes if isinstance(a, Code)), None)


ACC_STATIC = 0x0008


@dataclass
class ClassFile:
    minor: int
    major: int
    pool: ConstantPool
    access: int
    this_class: int
    super_class: int
    interfaces: list[int]
    fields: list[Member]
    methods: list[Member]
    attributes: list[Attribute]
    _owned: set[int] = field(default_factory=set, compare=False, repr=False)  # (own_code: the copied Codes)

    def for_change(self) -> ClassFile:
        """A copy to instrument, made from parse_shared's version without parsing again: the constant pool is
        copied, and a method's Code when own_code asks for it; the rest, which instrumenting never changes, is
        shared (so parse_shared's version stays as it is)."""
        methods = [Member(m.access, m.name_index, m.descriptor_index, list(m.attributes)) for m in self.methods]
        return ClassFile(self.minor, self.major, ConstantPool(list(self.pool.entries)), self.access,
                         self.this_class, self.super_class, list(self.interfaces), self.fields, methods,
                         self.attributes)

    def own_code(self, member: Member) -> Code | None:
        """The method's Code, this class file's own to change (copied once, see for_change)."""
        code = member.code
        if code is None or id(code) in self._owned:
            return code
        mine = copy.deepcopy(code)
        member.attributes = [mine if a is code else a for a in member.attributes]
        self._owned.add(id(mine))
        return mine

    @classmethod
    def share(cls, data: bytes, cf: ClassFile) -> None:
        """parse_shared(data) answers `cf` from now on: an instrumentation's class file, which its bytes were
        written from (read again, they would be the same; instrumenting parsed them a second time)."""
        key = bytes(data)
        if key not in _SHARED and len(_SHARED) >= 8:
            del _SHARED[next(iter(_SHARED))]
        _SHARED[key] = cf

    @classmethod
    def parse_shared(cls, data: bytes) -> ClassFile:
        """parse, for readers that never change what they get: one parse per class version however many read
        it (a move into the JVM read each version three or four times, ~40 ms apiece for a Jetty class, with
        every thread held). The last few versions are kept."""
        key = bytes(data)
        found = _SHARED.get(key)
        if found is None:
            found = cls.parse(key)
            if len(_SHARED) >= 8:
                del _SHARED[next(iter(_SHARED))]
            _SHARED[key] = found
        return found

    @classmethod
    def parse(cls, data: bytes) -> ClassFile:
        r = ByteReader(bytes(data))
        if r.u4() != 0xCAFEBABE:
            raise ClassFormatError("not a class file (no CAFEBABE)")
        minor, major = r.u2(), r.u2()
        pool = ConstantPool.read(r)
        access, this_class, super_class = r.u2(), r.u2(), r.u2()
        interfaces = [r.u2() for _ in range(r.u2())]
        fields = [Member(r.u2(), r.u2(), r.u2(), _read_attributes(r, pool, {})) for _ in range(r.u2())]
        methods = [Member(r.u2(), r.u2(), r.u2(), _read_attributes(r, pool, _MEMBER_ATTRIBUTES))
                   for _ in range(r.u2())]
        attributes = _read_attributes(r, pool, {})
        if r.pos != len(r.data):
            raise ClassFormatError(f"{len(r.data) - r.pos} trailing bytes after the class")
        return cls(minor, major, pool, access, this_class, super_class, interfaces, fields, methods, attributes)

    def to_bytes(self) -> bytes:
        out = bytearray(struct.pack(">IHH", 0xCAFEBABE, self.minor, self.major))
        self.pool.write(out)
        out += struct.pack(">HHH", self.access, self.this_class, self.super_class)
        out += len(self.interfaces).to_bytes(2, "big")
        for i in self.interfaces:
            out += i.to_bytes(2, "big")
        for members in (self.fields, self.methods):
            out += len(members).to_bytes(2, "big")
            for m in members:
                out += struct.pack(">HHH", m.access, m.name_index, m.descriptor_index)
                _write_attributes(out, m.attributes, self.pool)
        _write_attributes(out, self.attributes, self.pool)
        return bytes(out)

    @property
    def name(self) -> str:
        """Internal name, e.g. "fixtures/HotLoop"."""
        return self.pool.class_name(self.this_class)

    def member_name(self, member: Member) -> str:
        return self.pool.utf8(member.name_index)

    def member_descriptor(self, member: Member) -> str:
        return self.pool.utf8(member.descriptor_index)

    def method(self, name: str, descriptor: str) -> Member | None:
        return next((m for m in self.methods if self.member_name(m) == name
                     and self.member_descriptor(m) == descriptor), None)

    def field_named(self, name: str) -> Member | None:
        return next((f for f in self.fields if self.member_name(f) == name), None)


_SHARED: dict[bytes, ClassFile] = {}  # (parse_shared: bytes hash once, then a lookup)
