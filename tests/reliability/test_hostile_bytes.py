"""Hostile bytes: a fake JDWP peer that handshakes and then sends truncated, oversized, wrong-id and random
packets (generated with hypothesis), and the same packets injected into a real JVM's stream mid-session.
Each is a protocol error in the session — never a crash or a hang — memory stays bounded, and the process
stays usable (the next attach works)."""

from __future__ import annotations

import asyncio
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_support import HANDSHAKE, FakePeer, vm_gone

from support.coalescing import pump
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState, StopKind
from tracepilot.jdwp import JdwpConnection, JdwpTransportError, VirtualMachine
from tracepilot.jdwp.packets import DEFAULT_MAX_PACKET

pytestmark = pytest.mark.timeout(120)

MAX_PACKET = 4096  # the fake peers' connections use a small limit so "oversized" is cheap to send
ID_SIZES = struct.pack(">5i", 8, 8, 8, 8, 8)


def reply(packet_id: int, data: bytes = b"", error: int = 0, length: int | None = None) -> bytes:
    return struct.pack(">IIBH", 11 + len(data) if length is None else length, packet_id, 0x80, error) + data


def command(packet_id: int, set_id: int, cmd: int, data: bytes = b"", length: int | None = None) -> bytes:
    return struct.pack(">IIBBB", 11 + len(data) if length is None else length, packet_id, 0, set_id, cmd) + data


async def read_command(reader) -> tuple[int, int, int, bytes]:
    header = await reader.readexactly(11)
    length, packet_id, _flags, set_id, cmd = struct.unpack(">IIBBB", header)
    return packet_id, set_id, cmd, await reader.readexactly(length - 11)


# Hostile answers to one request (its id is known): what a broken or malicious agent could send.
def hostile_answers() -> st.SearchStrategy:
    body = st.binary(max_size=200)
    ids = st.integers(0, 2**32 - 1)

    def right_id_random_body(data: bytes):
        return lambda pid: reply(pid, data)

    def wrong_id(other: int, data: bytes):
        return lambda pid: reply(other if other != pid else pid + 1, data)

    def truncated(data: bytes, cut: int):
        return lambda pid: reply(pid, data)[: max(0, min(cut, 11 + len(data) - 1))]

    def oversized(length: int):
        return lambda pid: reply(pid, b"", length=length)

    def undersized(length: int):
        return lambda pid: reply(pid, b"", length=length)

    def bad_error_code(code: int, data: bytes):
        return lambda pid: reply(pid, data, error=code)

    def event_garbage(data: bytes, set_id: int, cmd: int):
        return lambda pid: command(pid + 1000, set_id, cmd, data)

    def raw(data: bytes):
        return lambda pid: data

    return st.one_of(
        st.builds(right_id_random_body, body),
        st.builds(wrong_id, ids, body),
        st.builds(truncated, body, st.integers(0, 300)),
        st.builds(oversized, st.integers(MAX_PACKET + 1, 2**32 - 1)),
        st.builds(undersized, st.integers(0, 10)),
        st.builds(bad_error_code, st.integers(1, 65535), body),
        st.builds(event_garbage, body, st.sampled_from([64, 1, 15, 255]), st.sampled_from([100, 1, 0])),
        st.builds(raw, st.binary(min_size=1, max_size=400)),
    )


async def _one_hostile_exchange(answers: list, close_after: bool) -> None:
    async def script(reader, writer) -> None:
        await reader.readexactly(len(HANDSHAKE))
        writer.write(HANDSHAKE)
        pid, *_ = await read_command(reader)  # IDSizes: answered properly
        writer.write(reply(pid, ID_SIZES))
        await writer.drain()
        pid, *_ = await read_command(reader)  # the request the hostile answers are for
        for answer in answers:
            writer.write(answer(pid))
        await writer.drain()
        if close_after:
            writer.close()
        else:
            await reader.read()

    async with FakePeer(script) as fake:
        conn = await JdwpConnection.connect("127.0.0.1", fake.port, timeout=2, max_packet=MAX_PACKET)
        try:
            try:
                await conn.send(VirtualMachine.Version, timeout=0.3)
            except (JdwpTransportError, TimeoutError):
                pass  # a protocol error, an error reply, a dropped connection or no answer: all fine
            # bounded memory: never more buffered than one packet of the limit
            assert len(conn._parser._buf) <= MAX_PACKET + 11
            assert len(conn._pending) <= 1
            if conn.is_closed:
                assert conn.close_reason is not None and str(conn.close_reason)
                with pytest.raises(JdwpTransportError):
                    await conn.send(VirtualMachine.Version, timeout=0.3)
        finally:
            await conn.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile_answers(), min_size=1, max_size=4), st.booleans())
def test_hostile_packets_are_protocol_errors_never_crashes(answers, close_after):
    asyncio.run(asyncio.wait_for(_one_hostile_exchange(answers, close_after), 10))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=2000))
def test_random_bytes_after_the_handshake_fail_the_attach_cleanly(blob):
    async def script(reader, writer) -> None:
        await reader.readexactly(len(HANDSHAKE))
        writer.write(HANDSHAKE + blob)
        await writer.drain()
        await reader.read()

    async def attach() -> None:
        d = Debugger()
        try:
            async with FakePeer(script) as fake:
                with pytest.raises(DebuggerError):
                    await d.attach(fake.address, timeout=0.5)
            assert (await d.status()).state is SessionState.DISCONNECTED
        finally:
            await d.close()

    asyncio.run(asyncio.wait_for(attach(), 10))


# -- mid-session, against a real JVM through a proxy that can inject bytes --------------------------


class InjectingProxy:
    """Forwards a debugger <-> JVM connection and lets the test inject bytes toward the debugger."""

    def __init__(self, jvm_port: int) -> None:
        self.jvm_port = jvm_port
        self.to_debugger: asyncio.StreamWriter | None = None
        self.server = None
        self._tasks: list[asyncio.Task] = []
        self.connected = asyncio.Event()

    async def start(self) -> str:
        async def handle(reader, writer) -> None:
            jvm_reader, jvm_writer = await asyncio.open_connection("127.0.0.1", self.jvm_port)
            self.to_debugger = writer
            self.connected.set()
            self._tasks += [asyncio.create_task(pump(reader, jvm_writer)),
                            asyncio.create_task(pump(jvm_reader, writer))]

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        return f"127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    def inject(self, data: bytes) -> None:
        self.to_debugger.write(data)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.to_debugger is not None:
            self.to_debugger.close()
        self.server.close()


INJECTIONS = {
    # survivable: the packet is dropped and recorded, the session carries on
    "event-garbage": (command(0x7FFF0001, 64, 100, b"\x02\x00\x00\x00\x01\xff\xff"), True),
    "unknown-command": (command(0x7FFF0002, 1, 1, b"hello"), True),
    "wrong-id-reply": (reply(0x7FFF0003, b"\x00" * 40), True),
    # fatal for the stream: the connection is dropped with a protocol error, the session says so
    "oversized": (reply(0x7FFF0004, b"", length=DEFAULT_MAX_PACKET + 1), False),
    "undersized": (reply(0x7FFF0005, b"", length=3), False),
}


@pytest.mark.parametrize("kind", list(INJECTIONS))
async def test_hostile_packet_mid_session(jvm_factory, line_of, kind):
    data, survivable = INJECTIONS[kind]
    jvm = jvm_factory("Playground", "100", "nosleep")
    proxy = InjectingProxy(jvm.port)
    address = await proxy.start()
    d = Debugger()
    try:
        await d.attach(address, timeout=10)
        bp = await d.breakpoint_set(f"Playground:{line_of('loop-body')}")
        first = await d.resume(timeout=20)
        assert first.stopped and first.stop.breakpoint_id == bp.id
        gone = vm_gone(d)
        proxy.inject(data)
        if survivable:
            second = await d.resume(timeout=20)
            assert second.stopped and second.stop.breakpoint_id == bp.id, second
            assert second.stop.hit_count == 2
            info = await d.diagnose()
            if kind != "wrong-id-reply":
                assert info["protocol_errors"], info
        else:
            await asyncio.wait_for(gone, 10)
            result = await d.wait_for_stop(0)
            assert result.state is SessionState.EXITED, result
            assert result.stop.kind is StopKind.VM_DEATH and "malformed" in (result.stop.message or "")
            # the process stays usable: a fresh JVM attaches fine
            await proxy.close()
            other = jvm_factory("Playground", "100", "nosleep")
            status = await d.attach(other.address, timeout=10)
            assert status.state is SessionState.STOPPED
    finally:
        await d.close()
        await proxy.close()
