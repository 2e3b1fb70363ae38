"""Sans-IO JDWP framing and codec: bytes in, typed packets out (in the spirit of h11).

`PacketParser` cuts a byte stream into command and reply packets. `Codec` turns a `Command` and its
arguments into request bytes and decodes replies and composite events with the VM's ID sizes. Nothing
here touches a socket, so tests feed bytes directly.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from .commands import ALL_COMMANDS
from .constants import HEADER_SIZE, REPLY_FLAG, EventKind
from .errors import JdwpError, ProtocolError
from .events import EVENT_CLASSES, Composite, decode_composite
from .fast_layouts import MISS, PACK_FAILED, FastCodec
from .spec import Command
from .wire import IdSizes, Location, Reader

_HEADER = struct.Struct(">IIB")  # length, id, flags; then (set, cmd) or (error code)
_COMMAND_TAIL = struct.Struct(">BB")
_REPLY_TAIL = struct.Struct(">H")
_LENGTH_ID_FLAGS = _HEADER.size
_COMMAND_HEADER = struct.Struct(">IIBBB")  # (frame_command's header in one call)

EVENT_SET, COMPOSITE_CMD = 64, 100
DEFAULT_MAX_PACKET = 64 * 1024 * 1024


@dataclass(slots=True)
class CommandPacket:
    id: int
    flags: int
    set_id: int
    cmd_id: int
    data: bytes


@dataclass(slots=True)
class ReplyPacket:
    id: int
    flags: int
    error_code: int
    data: bytes


Packet = CommandPacket | ReplyPacket


def frame_command(packet_id: int, set_id: int, cmd_id: int, data: bytes | bytearray, flags: int = 0) -> bytes:
    return _HEADER.pack(HEADER_SIZE + len(data), packet_id, flags) + _COMMAND_TAIL.pack(set_id, cmd_id) + data


def frame_reply(packet_id: int, error_code: int, data: bytes | bytearray) -> bytes:
    return _HEADER.pack(HEADER_SIZE + len(data), packet_id, REPLY_FLAG) + _REPLY_TAIL.pack(error_code) + data


class PacketParser:
    """Accumulates bytes and yields whole packets; a length outside [11, max] is a ProtocolError."""

    def __init__(self, max_packet: int = DEFAULT_MAX_PACKET) -> None:
        self.max_packet = max_packet
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data

    def pending_length(self) -> int | None:
        """The announced length of the packet being received, once its header is in."""
        if len(self._buf) < 4:
            return None
        return int.from_bytes(self._buf[:4], "big")

    def next_packet(self) -> Packet | None:
        if len(self._buf) < HEADER_SIZE:
            return None
        length, packet_id, flags = _HEADER.unpack_from(self._buf, 0)
        if length < HEADER_SIZE:
            raise ProtocolError(f"packet length {length} is shorter than the 11-byte header")
        if length > self.max_packet:
            raise ProtocolError(f"packet length {length} exceeds the {self.max_packet}-byte limit")
        if len(self._buf) < length:
            return None
        data = bytes(self._buf[HEADER_SIZE:length])
        if flags & REPLY_FLAG:
            (error_code,) = _REPLY_TAIL.unpack_from(self._buf, _LENGTH_ID_FLAGS)
            packet: Packet = ReplyPacket(packet_id, flags, error_code, data)
        else:
            set_id, cmd_id = _COMMAND_TAIL.unpack_from(self._buf, _LENGTH_ID_FLAGS)
            packet = CommandPacket(packet_id, flags, set_id, cmd_id, data)
        del self._buf[:length]
        return packet


@dataclass
class Codec:
    """Encodes requests and decodes replies/events for one connection (it owns the packet ids)."""

    sizes: IdSizes = field(default_factory=IdSizes)
    _next_id: int = 1
    _fast: dict[Command, FastCodec] = field(default_factory=dict, repr=False, compare=False)  # (for these sizes)

    def _fast_for(self, command: Command) -> FastCodec:
        fast = self._fast.get(command)
        if fast is None or fast.sizes is not self.sizes:
            fast = self._fast[command] = command.fast(self.sizes)
        return fast

    def encode_request(self, command: Command, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> tuple[int, bytes]:
        if not args and not kwargs and not command.request_layout:  # (VirtualMachine.Resume: nothing to encode)
            packet_id = self._next_id
            self._next_id = (self._next_id + 1) & 0x7FFFFFFF or 1
            return packet_id, _COMMAND_HEADER.pack(HEADER_SIZE, packet_id, 0, command.set_id, command.cmd_id)
        fast = self._fast.get(command)
        if fast is None or fast.sizes is not self.sizes:
            fast = self._fast_for(command)
        body: Any = MISS
        if fast.pack is not None and not kwargs and len(args) == fast.arity:
            try:
                body = fast.pack(args)  # (Command.encode_body, without its call)
            except PACK_FAILED:
                body = MISS
        if body is MISS:
            body = command.encode_general(args, kwargs or {}, self.sizes)
        packet_id = self._next_id
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF or 1
        return packet_id, _COMMAND_HEADER.pack(HEADER_SIZE + len(body), packet_id, 0, command.set_id,
                                               command.cmd_id) + body

    def encode_raw(self, set_id: int, cmd_id: int, data: bytes) -> tuple[int, bytes]:
        """A request whose body is already encoded (a JDWP front end forwarding another debugger's command)."""
        packet_id = self._next_id
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF or 1
        return packet_id, frame_command(packet_id, set_id, cmd_id, data)

    def decode_reply(self, command: Command, packet: ReplyPacket) -> Any:
        if packet.error_code:
            raise JdwpError.for_code(packet.error_code, command.name)
        fast = self._fast.get(command)
        if fast is None or fast.sizes is not self.sizes:
            fast = self._fast_for(command)
        if fast.unpack is not None:  # (Command.decode_body, without its call)
            reply = fast.unpack(packet.data)
            if reply is not MISS:
                return reply
        return command.decode_general(packet.data, self.sizes)

    def _eight_byte_ids(self) -> bool:
        # (compared once per IdSizes the codec is given: a dataclass comparison on every event cost ~30 bytecodes)
        sizes = self.sizes
        if getattr(self, "_sizes_seen", None) is not sizes:
            self._sizes_seen, self._eight = sizes, sizes == _EIGHT_BYTE_IDS
        return self._eight

    def decode_events(self, packet: CommandPacket) -> Any:
        """Decode an Event.Composite command packet into a `Composite(suspend_policy, events)`."""
        if (packet.set_id, packet.cmd_id) != (EVENT_SET, COMPOSITE_CMD):
            known = ALL_COMMANDS.get((packet.set_id, packet.cmd_id))
            raise ProtocolError(
                f"unexpected command packet from the VM: set {packet.set_id} command {packet.cmd_id}"
                + (f" ({known.name})" if known else "")
            )
        data = packet.data
        if len(data) == _LOCATED_EVENT.size and data[5] in _LOCATED_KINDS and self._eight_byte_ids():
            fast = _decode_located_event(data)
            if fast is not None:
                return fast
        return decode_composite(Reader(data, self.sizes))


# The hot case (traces, breakpoints in loops, steps): a composite of one event of the kinds that carry
# (request, thread, location), with HotSpot's 8-byte ids. Decoded with one struct call, not the tables.
_EIGHT_BYTE_IDS = IdSizes(8, 8, 8, 8, 8)
_LOCATED_EVENT = struct.Struct(">BiBiQBQQQ")
_LOCATED_KINDS = {
    int(k): EVENT_CLASSES[int(k)]
    for k in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT)
}


def _decode_located_event(data: bytes) -> Any:
    policy, count, kind, request_id, thread, tag, class_id, method_id, index = _LOCATED_EVENT.unpack(data)
    if count != 1:
        return None
    # (tuple.__new__ straight: each namedtuple's own __new__ is one more Python call, three per event)
    location = _tuple_new(Location, (tag, class_id, method_id, index))
    return _tuple_new(Composite, (policy, [_tuple_new(_LOCATED_KINDS[kind], (request_id, thread, location))]))


_tuple_new = tuple.__new__
