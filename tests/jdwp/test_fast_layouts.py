"""The one-struct-call paths of the codec (jdwp/fast_layouts.py) against the general one: for every command,
the same request bytes and the same decoded replies; bodies they cannot take (truncated, garbage, values
out of a field's range) go the general way and fail as it fails."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_codec import REPLIES, REQUESTS, struct_strategy

from tracepilot.jdwp import ProtocolError, Tag, Value
from tracepilot.jdwp.commands import ArrayReference, StackFrame, ThreadReference
from tracepilot.jdwp.packets import Codec, ReplyPacket
from tracepilot.jdwp.wire import IdSizes, Location, Reader, Writer

SIZES = IdSizes()
EXAMPLES = 5 if os.environ.get("CI") else int(os.environ.get("TRACEPILOT_FAST_LAYOUT_EXAMPLES", "25"))
PACKED = [c for c in REQUESTS if c.fast(SIZES).pack is not None]  # (the others go the general way only)
UNPACKED = [c for c in REPLIES if c.fast(SIZES).unpack is not None]


def _general_decode(command, data, sizes=SIZES):
    try:
        return repr(command.decode(Reader(data, sizes)))  # (repr: a NaN read from spoiled bytes equals itself)
    except ProtocolError as exc:
        return f"error: {exc}"


def _fast_decode(command, data, sizes=SIZES):
    try:
        return repr(command.decode_body(data, sizes))
    except ProtocolError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("command", PACKED, ids=lambda c: c.name)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_request_body_is_the_general_encoders(command, data):
    value = data.draw(struct_strategy(command.Request, command.request_layout))
    w = Writer(SIZES)
    command.encode(w, tuple(value), {})
    assert bytes(command.encode_body(tuple(value), {}, SIZES)) == bytes(w.buf)


@pytest.mark.parametrize("command", UNPACKED, ids=lambda c: c.name)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_reply_decodes_as_the_general_decoder_whole_cut_or_spoiled(command, data):
    value = data.draw(struct_strategy(command.Reply, command.reply_layout))
    w = Writer(SIZES)
    command.encode_reply(w, value)
    body = bytes(w.buf)
    assert command.decode_body(body, SIZES) == value
    cut = data.draw(st.integers(0, len(body)))
    assert _fast_decode(command, body[:cut]) == _general_decode(command, body[:cut])
    if body:
        at = data.draw(st.integers(0, len(body) - 1))
        spoiled = body[:at] + bytes([data.draw(st.integers(0, 255))]) + body[at + 1:]
        assert _fast_decode(command, spoiled) == _general_decode(command, spoiled)


def test_a_stops_reads_with_four_byte_ids_and_odd_values():
    sizes = IdSizes(4, 4, 4, 4, 4)
    for command, args in ((ThreadReference.Frames, (7, 0, 1)), (ThreadReference.FrameCount, (7,)),
                          (StackFrame.GetValues, (7, 65536, [(1, ord("J")), (2, 300), (3, -1)])),
                          (ArrayReference.GetValues, (9, 0, 10))):
        w = Writer(sizes)
        command.encode(w, args, {})
        assert bytes(command.encode_body(args, {}, sizes)) == bytes(w.buf)  # (bytes out of range: masked)
    with pytest.raises(OverflowError):  # (an id too wide: the general encoder's own error)
        ThreadReference.FrameCount.encode_body((2**40,), {}, sizes)
    frames = ThreadReference.Frames.Reply([ThreadReference.Frames.Reply.SUBTYPES["frames"](5, Location(1, 2, 3, 4))])
    w = Writer(sizes)
    ThreadReference.Frames.encode_reply(w, frames)
    assert ThreadReference.Frames.decode_body(bytes(w.buf), sizes) == frames
    values = StackFrame.GetValues.Reply([Value(Tag.CHAR, "x"), Value(Tag.BOOLEAN, True), Value(Tag.VOID, None),
                                         Value(Tag.FLOAT, 0.5), Value(Tag.ARRAY, 12), Value(Tag.SHORT, -3)])
    w = Writer(sizes)
    StackFrame.GetValues.encode_reply(w, values)
    assert StackFrame.GetValues.decode_body(bytes(w.buf), sizes) == values
    for region in ([Value(Tag.STRING, 5), Value(Tag.OBJECT, 0)], [Value(Tag.INT, 1), Value(Tag.INT, -2)]):
        w = Writer(sizes)
        w.array_region(region)
        body = bytes(w.buf)
        assert ArrayReference.GetValues.decode_body(body, sizes).values == region
        with pytest.raises(ProtocolError):
            ArrayReference.GetValues.decode_body(body[:-1], sizes)


def test_the_codec_frames_requests_and_decodes_replies_through_them():
    codec = Codec()
    packet_id, packet = codec.encode_request(ThreadReference.FrameCount, (7,))
    assert packet == (19).to_bytes(4, "big") + packet_id.to_bytes(4, "big") + bytes([0, 11, 7]) + (7).to_bytes(8, "big")
    assert codec.decode_reply(ThreadReference.FrameCount, ReplyPacket(packet_id, 0x80, 0, b"\x00\x00\x00\x03")) == (3,)
    with pytest.raises(ProtocolError):
        codec.decode_reply(ThreadReference.FrameCount, ReplyPacket(packet_id, 0x80, 0, b"\x00\x03"))
    with pytest.raises(OverflowError):  # (what the general encoder raises for an id out of range)
        codec.encode_request(ThreadReference.FrameCount, (2**70,))
    _, by_name = codec.encode_request(ThreadReference.Frames, (), {"thread": 7, "start_frame": 0, "length": 1})
    _, by_place = codec.encode_request(ThreadReference.Frames, (7, 0, 1))
    assert by_name[4:8] != by_place[4:8] and by_name[8:] == by_place[8:]  # (packet ids differ, nothing else)
