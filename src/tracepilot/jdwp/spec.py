"""A tiny data language for JDWP packet layouts, compiled into encoders and decoders.

Commands, replies and events are declared as tables of `(name, kind)` fields in commands.py and
events.py; this module turns each table into a namedtuple type plus an encode and a decode function.
A kind is a primitive name (see `_PRIMITIVES`), a `Repeat` (an int count then that many items) or a
`Select` (a tag byte choosing one of several layouts: event kinds, request modifiers).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

from .errors import ProtocolError
from .fast_layouts import MISS, PACK_FAILED, FastCodec
from .layouts import Repeat, Select
from .wire import IdSizes, Reader, Writer

# kind -> (Reader method, Writer method). IDs of every flavour share the width of their category.
_PRIMITIVES: dict[str, tuple[str | None, str | None]] = {
    "byte": ("byte", "byte"),
    "boolean": ("boolean", "boolean"),
    "int": ("int", "int"),
    "long": ("long", "long"),
    "string": ("string", "string"),
    "bytes": ("bytes_", "bytes_"),
    "location": ("location", "location"),
    "value": ("value", "value"),
    "untagged_value": (None, "untagged"),  # only ever sent: the receiver knows the type
    "tagged_object": ("tagged_object", "value"),
    "array_region": ("array_region", "array_region"),
    "method": ("method_id", "method_id"),
    "field": ("field_id", "field_id"),
    "frame": ("frame_id", "frame_id"),
}
for _kind in ("object", "thread", "thread_group", "string_id", "class_loader", "class_object", "array", "module"):
    _PRIMITIVES[_kind] = ("object_id", "object_id")
for _kind in ("reference_type", "class", "interface", "array_type"):
    _PRIMITIVES[_kind] = ("reference_type_id", "reference_type_id")


Encoder = Callable[[Writer, Any], None]
Decoder = Callable[[Reader], Any]


class CompiledSelect:
    """A compiled `Select`: one namedtuple class per case, each with its tag in `KIND`."""

    def __init__(self, type_name: str, select: Select) -> None:
        self.classes: dict[int, type] = {}
        self._decoders: dict[int, Decoder] = {}
        self._encoders: dict[type, tuple[int, Encoder]] = {}
        self.layouts: dict[type, tuple[tuple[str, Any], ...]] = {}
        for tag, (case_name, fields) in select.cases.items():
            cls, encode, decode = compile_struct(case_name, fields)
            cls.KIND = tag
            self.layouts[cls] = tuple(fields)
            self.classes[tag] = cls
            self._decoders[tag] = decode
            self._encoders[cls] = (tag, encode)
        self.by_name = {cls.__name__: cls for cls in self.classes.values()}

    def decode(self, r: Reader) -> Any:
        tag = r.ubyte()
        decode = self._decoders.get(tag)
        if decode is None:
            raise ProtocolError(f"unknown tag {tag} in {', '.join(self.by_name)}")
        return decode(r)

    def encode(self, w: Writer, value: Any) -> None:
        try:
            tag, encode = self._encoders[type(value)]
        except KeyError:
            raise TypeError(f"{value!r} is not one of {', '.join(self.by_name)}") from None
        w.byte(tag)
        encode(w, value)


def _compile_kind(type_name: str, field_name: str, kind: Any) -> tuple[Encoder, Decoder, Any]:
    """Returns (encode, decode, extra) for one field; extra is the item class or CompiledSelect."""
    if isinstance(kind, str):
        reader_name, writer_name = _PRIMITIVES[kind]
        read = getattr(Reader, reader_name) if reader_name else _cannot_decode(kind)
        write = getattr(Writer, writer_name) if writer_name else _cannot_encode(kind)
        return write, read, None
    if isinstance(kind, Repeat):
        item_name = f"{type_name}_{field_name}"
        if len(kind.fields) == 1:
            # A repeat of one field is a plain list (AllThreads -> [thread ids], Composite -> [events]).
            write_one, read_one, inner = _compile_kind(item_name, kind.fields[0][0], kind.fields[0][1])

            def encode_list(w: Writer, items: Sequence[Any]) -> None:
                w.int(len(items))
                for item in items:
                    write_one(w, item)

            def decode_list(r: Reader) -> list[Any]:
                return [read_one(r) for _ in range(r.count())]

            return encode_list, decode_list, inner
        item_cls, encode_item, decode_item = compile_struct(item_name, kind.fields)

        def encode_items(w: Writer, items: Sequence[Any]) -> None:
            w.int(len(items))
            for item in items:
                encode_item(w, item)

        def decode_items(r: Reader) -> list[Any]:
            return [decode_item(r) for _ in range(r.count())]

        return encode_items, decode_items, item_cls
    if isinstance(kind, Select):
        compiled = CompiledSelect(f"{type_name}_{field_name}", kind)
        return compiled.encode, compiled.decode, compiled
    raise TypeError(f"bad field kind {kind!r} in {type_name}.{field_name}")


def _cannot_decode(kind: str) -> Decoder:
    def decode(r: Reader) -> Any:
        raise ProtocolError(f"{kind} cannot be decoded without its type")

    return decode


def _cannot_encode(kind: str) -> Encoder:
    def encode(w: Writer, v: Any) -> None:
        raise TypeError(f"{kind} is never sent")

    return encode


def compile_struct(type_name: str, fields: Sequence[tuple[str, Any]]) -> tuple[type, Encoder, Decoder]:
    """Compile a field table into (namedtuple class, encode(writer, tuple), decode(reader) -> tuple)."""
    names = [name for name, _ in fields]
    cls = namedtuple(type_name, names)  # type: ignore[misc]
    parts = [_compile_kind(type_name, name, kind) for name, kind in fields]
    cls.SUBTYPES = {name: extra for (name, _), (_, _, extra) in zip(fields, parts, strict=True) if extra is not None}
    encoders = [enc for enc, _, _ in parts]
    decoders = [dec for _, dec, _ in parts]

    def encode(w: Writer, values: Any) -> None:
        for enc, v in zip(encoders, values, strict=True):
            enc(w, v)

    def decode(r: Reader) -> Any:
        return cls._make([dec(r) for dec in decoders])

    return cls, encode, decode


class Command:
    """One JDWP command: its ids, request layout and reply layout."""

    __slots__ = ("set_id", "cmd_id", "name", "Request", "Reply", "_encode", "_decode", "_arg_names",
                 "request_layout", "reply_layout", "decode_request", "encode_reply", "_fast", "_fast_by_sizes")

    def __init__(
        self,
        set_name: str,
        set_id: int,
        cmd_id: int,
        name: str,
        out: Sequence[tuple[str, Any]] = (),
        reply: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.set_id = set_id
        self.cmd_id = cmd_id
        self.name = f"{set_name}.{name}"
        # Both directions are compiled so tests (and fake peers) can play the VM's side.
        self.request_layout = tuple(out)
        self.reply_layout = tuple(reply)
        self.Request, self._encode, self.decode_request = compile_struct(f"{set_name}{name}Request", out)
        if reply:
            self.Reply, self.encode_reply, self._decode = compile_struct(f"{set_name}{name}Reply", reply)
        else:
            self.Reply, self._decode, self.encode_reply = None, None, None
        self._arg_names = tuple(n for n, _ in out)
        self._fast: FastCodec | None = None  # (the last IdSizes' fast paths: fast_layouts.py)
        self._fast_by_sizes: dict[IdSizes, FastCodec] = {}

    def fast(self, sizes: IdSizes) -> FastCodec:
        """This command's one-struct-call paths for these ID sizes (fast_layouts.py)."""
        fast = self._fast
        if fast is None or fast.sizes is not sizes:
            fast = self._fast_by_sizes.get(sizes)
            if fast is None:
                fast = FastCodec(sizes, self.request_layout, self.Reply, self.reply_layout)
                self._fast_by_sizes[sizes] = fast
            self._fast = fast
        return fast

    def encode_body(self, args: tuple[Any, ...], kwargs: dict[str, Any], sizes: IdSizes) -> bytes | bytearray:
        """The request body for these arguments (what encode writes)."""
        if not kwargs and len(args) == len(self._arg_names):
            fast = self._fast
            if fast is None or fast.sizes is not sizes:
                fast = self.fast(sizes)
            if fast.pack is not None:
                try:
                    return fast.pack(args)
                except PACK_FAILED:
                    pass  # (e.g. a value out of its field's range: the general encoder says what is wrong)
        return self.encode_general(args, kwargs, sizes)

    def encode_general(self, args: tuple[Any, ...], kwargs: dict[str, Any], sizes: IdSizes) -> bytearray:
        """encode_body through the Writer, a field at a time."""
        w = Writer(sizes)
        self.encode(w, args, kwargs)
        return w.buf

    def decode_body(self, data: bytes, sizes: IdSizes) -> Any:
        """The reply decoded from its body (what decode reads)."""
        if self._decode is None:
            return None
        fast = self._fast
        if fast is None or fast.sizes is not sizes:
            fast = self.fast(sizes)
        unpack = fast.unpack
        if unpack is not None:
            reply = unpack(data)
            if reply is not MISS:
                return reply
        return self._decode(Reader(data, sizes))

    def decode_general(self, data: bytes, sizes: IdSizes) -> Any:
        """decode_body through the Reader, a field at a time."""
        return None if self._decode is None else self._decode(Reader(data, sizes))

    def encode(self, w: Writer, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if kwargs:
            try:
                values = self.Request(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{self.name}({', '.join(self._arg_names)}): {exc}") from None
        else:
            if len(args) != len(self._arg_names):
                raise TypeError(f"{self.name} takes ({', '.join(self._arg_names)}), got {len(args)} arguments")
            values = args
        self._encode(w, values)

    def decode(self, r: Reader) -> Any:
        if self._decode is None:
            return None
        return self._decode(r)

    def __repr__(self) -> str:
        return f"<Command {self.name} ({self.set_id},{self.cmd_id})>"


class CommandSet:
    """A namespace of commands, e.g. `VirtualMachine.Version`."""

    def __init__(self, name: str, set_id: int) -> None:
        self.name = name
        self.set_id = set_id
        self.commands: dict[int, Command] = {}

    def add(self, cmd_id: int, name: str, out: Sequence[tuple[str, Any]] = (), reply: Sequence[tuple[str, Any]] = ()) -> Command:
        command = Command(self.name, self.set_id, cmd_id, name, out, reply)
        self.commands[cmd_id] = command
        setattr(self, name, command)
        return command
