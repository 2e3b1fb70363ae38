"""Codec tests that feed bytes: every command, reply and event shape round-trips; garbage only ever
raises the protocol's own error."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracepilot.jdwp import ProtocolError, Tag, Value
from tracepilot.jdwp.commands import ALL_COMMANDS
from tracepilot.jdwp.errors import InvalidObject, JdwpError
from tracepilot.jdwp.events import EVENT_CLASSES, Composite, decode_composite, encode_composite
from tracepilot.jdwp.packets import (
    Codec,
    CommandPacket,
    PacketParser,
    ReplyPacket,
    frame_command,
    frame_reply,
)
from tracepilot.jdwp.spec import CompiledSelect, Repeat
from tracepilot.jdwp.wire import IdSizes, Location, Reader, Writer, decode_mutf8, encode_mutf8

SIZES = IdSizes()
ids = st.integers(min_value=0, max_value=2**63 - 1)
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
longs = st.integers(min_value=-(2**63), max_value=2**63 - 1)
texts = st.text(max_size=20)
locations = st.builds(Location, st.integers(1, 3), ids, ids, longs)
primitive_values = st.one_of(
    st.builds(Value, st.just(Tag.INT), ints),
    st.builds(Value, st.just(Tag.LONG), longs),
    st.builds(Value, st.just(Tag.BOOLEAN), st.booleans()),
    st.builds(Value, st.just(Tag.BYTE), st.integers(-128, 127)),
    st.builds(Value, st.just(Tag.SHORT), st.integers(-(2**15), 2**15 - 1)),
    st.builds(Value, st.just(Tag.CHAR), st.characters(max_codepoint=0xD7FF)),
    st.builds(Value, st.just(Tag.DOUBLE), st.floats(allow_nan=False)),
    st.builds(Value, st.sampled_from([Tag.OBJECT, Tag.STRING, Tag.ARRAY, Tag.THREAD]), ids),
)
objects = st.builds(Value, st.sampled_from([Tag.OBJECT, Tag.STRING, Tag.THREAD]), ids)

_STRATEGIES = {
    "byte": st.integers(0, 127), "boolean": st.booleans(), "int": ints, "long": longs, "string": texts,
    "bytes": st.binary(max_size=20), "location": locations, "value": primitive_values, "tagged_object": objects,
    "untagged_value": st.builds(Value, st.just(Tag.INT), ints),
}


def strategy_for(kind, cls=None):
    if isinstance(kind, str):
        return _STRATEGIES.get(kind, ids)
    if isinstance(kind, Repeat):
        if len(kind.fields) == 1:
            inner_kind = kind.fields[0][1]
            inner = strategy_for(inner_kind, cls)
            return st.lists(inner, max_size=3)
        item_cls = cls
        return st.lists(st.builds(item_cls, *[strategy_for(k) for _, k in kind.fields]) if item_cls else st.nothing(), max_size=3)
    raise AssertionError(kind)


def struct_strategy(cls, fields):
    parts = []
    for name, kind in fields:
        sub = getattr(cls, "SUBTYPES", {}).get(name)
        if isinstance(sub, CompiledSelect):
            parts.append(st.lists(st.one_of(*[struct_strategy(c, sub.layouts[c]) for c in sub.classes.values()]), max_size=3))
        elif isinstance(kind, Repeat) and len(kind.fields) > 1:
            parts.append(st.lists(struct_strategy(sub, kind.fields), max_size=3))
        else:
            parts.append(strategy_for(kind, sub))
    return st.builds(cls, *parts)


def _has(layout, kind):
    return any(k == kind or (isinstance(k, Repeat) and any(kk == kind for _, kk in k.fields)) for _, k in layout)


REQUESTS = [c for c in ALL_COMMANDS.values() if c.request_layout]
REPLIES = [c for c in ALL_COMMANDS.values() if c.reply_layout and not _has(c.reply_layout, "array_region")]


@pytest.mark.parametrize("command", REQUESTS, ids=lambda c: c.name)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_command_request_round_trips(command, data):
    value = data.draw(struct_strategy(command.Request, command.request_layout))
    w = Writer(SIZES)
    command.encode(w, tuple(value), {})
    if _has(command.request_layout, "untagged_value"):
        return  # untagged values are decoded only by the VM, which knows the field types
    assert command.decode_request(Reader(bytes(w.buf), SIZES)) == value


@pytest.mark.parametrize("command", REPLIES, ids=lambda c: c.name)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_reply_round_trips(command, data):
    value = data.draw(struct_strategy(command.Reply, command.reply_layout))
    w = Writer(SIZES)
    command.encode_reply(w, value)
    assert command.decode(Reader(bytes(w.buf), SIZES)) == value


def test_array_region_replies_decode_primitive_and_object_regions():
    from tracepilot.jdwp.commands import ArrayReference

    for values in ([Value(Tag.INT, 1), Value(Tag.INT, -2)], [Value(Tag.STRING, 5), Value(Tag.OBJECT, 0)]):
        w = Writer(SIZES)
        w.array_region(values)
        assert ArrayReference.GetValues.decode(Reader(bytes(w.buf), SIZES)).values == values


_REGION_ELEMENTS = {
    Tag.BYTE: st.integers(-128, 127), Tag.SHORT: st.integers(-(2**15), 2**15 - 1),
    Tag.INT: st.integers(-(2**31), 2**31 - 1), Tag.LONG: st.integers(-(2**63), 2**63 - 1),
    Tag.CHAR: st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), Tag.BOOLEAN: st.booleans(),
    Tag.FLOAT: st.floats(width=32, allow_nan=False), Tag.DOUBLE: st.floats(allow_nan=False),
    Tag.OBJECT: st.integers(0, 2**63), Tag.STRING: st.integers(0, 2**63)}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_array_regions_of_every_tag_decode_in_one_piece(data):
    """array_region reads a region with one unpack: every tag, any length, the same values (and the reader's
    position after it, for what follows)."""
    from tracepilot.jdwp.commands import ArrayReference

    tag = data.draw(st.sampled_from(sorted(_REGION_ELEMENTS)))
    values = [Value(tag, v) for v in data.draw(st.lists(_REGION_ELEMENTS[tag], max_size=40))]
    w = Writer(SIZES)
    w.array_region(values)
    reader = Reader(bytes(w.buf) + b"\x07", SIZES)
    assert ArrayReference.GetValues.decode(reader).values == values
    assert reader.byte() == 7


def test_a_truncated_array_region_is_a_protocol_error():
    from tracepilot.jdwp.commands import ArrayReference

    for values in ([Value(Tag.INT, 1), Value(Tag.INT, 2)], [Value(Tag.STRING, 5), Value(Tag.OBJECT, 6)]):
        w = Writer(SIZES)
        w.array_region(values)
        with pytest.raises(ProtocolError):
            ArrayReference.GetValues.decode(Reader(bytes(w.buf)[:-1], SIZES))


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_composite_events_round_trip(data):
    from tracepilot.jdwp.events import EVENT

    events = data.draw(st.lists(st.one_of(*[struct_strategy(cls, EVENT.cases[kind][1]) for kind, cls in EVENT_CLASSES.items()]),
                                max_size=4))
    composite = Composite(2, events)
    w = Writer(SIZES)
    encode_composite(w, composite)
    assert decode_composite(Reader(bytes(w.buf), SIZES)) == composite


@given(st.binary(max_size=300))
def test_random_bytes_never_raise_anything_but_protocol_error(blob):
    parser = PacketParser(max_packet=1024)
    try:
        parser.feed(blob)
        while (packet := parser.next_packet()) is not None:
            if isinstance(packet, CommandPacket):
                Codec().decode_events(packet)
    except ProtocolError:
        pass


@given(st.binary(max_size=200))
def test_random_reply_bodies_only_raise_protocol_errors(body):
    for command in ALL_COMMANDS.values():
        try:
            command.decode(Reader(body, SIZES))
        except ProtocolError:
            pass


def test_truncated_packet_is_a_protocol_error_not_a_crash():
    for command in ALL_COMMANDS.values():
        if command.Reply is None:
            continue
        try:
            command.decode(Reader(b"\x00\x00\x00\x05ab", SIZES))
        except ProtocolError:
            pass


def test_packet_parser_handles_split_and_oversized_packets():
    packet = frame_command(7, 1, 1, b"") + frame_reply(8, 0, b"xyz")
    parser = PacketParser()
    for byte in packet:
        parser.feed(bytes([byte]))
    first, second = parser.next_packet(), parser.next_packet()
    assert isinstance(first, CommandPacket) and (first.id, first.set_id, first.cmd_id) == (7, 1, 1)
    assert isinstance(second, ReplyPacket) and second.data == b"xyz"
    huge = PacketParser(max_packet=100)
    huge.feed(struct.pack(">IIB", 10_000, 1, 0) + b"\x01\x01")
    try:
        huge.next_packet()
        raise AssertionError("oversized packet accepted")
    except ProtocolError as exc:
        assert "limit" in str(exc)
    short = PacketParser()
    short.feed(struct.pack(">IIB", 3, 1, 0) + b"\x01\x01")
    try:
        short.next_packet()
        raise AssertionError("undersized packet accepted")
    except ProtocolError:
        pass


def test_error_codes_are_named_exceptions():
    from tracepilot.jdwp.commands import ObjectReference

    codec = Codec()
    try:
        codec.decode_reply(ObjectReference.IsCollected, ReplyPacket(1, 0x80, 20, b""))
    except InvalidObject as exc:
        assert isinstance(exc, JdwpError) and "INVALID_OBJECT" in str(exc)
    else:
        raise AssertionError("no error raised")


def test_modified_utf8_strings_decode_without_failing():
    assert decode_mutf8(b"a\xc0\x80b") == "a\x00b"
    emoji_cesu = "\U0001F600".encode("utf-16-be")
    hi, lo = int.from_bytes(emoji_cesu[:2], "big"), int.from_bytes(emoji_cesu[2:], "big")
    cesu = chr(hi).encode("utf-8", "surrogatepass") + chr(lo).encode("utf-8", "surrogatepass")
    assert decode_mutf8(cesu) == "\U0001F600"
    lone = chr(0xD800).encode("utf-8", "surrogatepass")
    assert decode_mutf8(b"x" + lone + b"y") == "x\ufffdy"
    assert decode_mutf8(b"\xff\xfe") == "\ufffd\ufffd"
    assert encode_mutf8("a\x00b\U0001F600") == b"a\xc0\x80b" + cesu


@given(st.text())
def test_mutf8_round_trip(text):
    clean = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert decode_mutf8(encode_mutf8(clean)) == clean
