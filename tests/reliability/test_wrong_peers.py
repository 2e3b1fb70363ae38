"""Wrong peers at the core and MCP level: a closed port, an HTTP server, a server that accepts and stays
silent, one that answers a wrong handshake, one that handshakes and then goes quiet. Each is a clear error
(what was wrong, what to do) within the timeout asked for, and the debugger stays usable afterwards."""

from __future__ import annotations

import asyncio
import struct
import time

import pytest
from reliability_support import HANDSHAKE, FakePeer

from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState

pytestmark = pytest.mark.timeout(60)


async def _http(reader, writer) -> None:
    await reader.read(100)
    writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    writer.close()


async def _silent(reader, writer) -> None:
    await reader.read()  # accept, read, never answer


async def _wrong_handshake(reader, writer) -> None:
    await reader.readexactly(len(HANDSHAKE))
    writer.write(b"JDWP-Handshakf")
    await writer.drain()
    await reader.read()


async def _handshake_then_quiet(reader, writer) -> None:
    await reader.readexactly(len(HANDSHAKE))
    writer.write(HANDSHAKE)
    await writer.drain()
    await reader.read()  # takes the commands, answers none


async def read_command(reader) -> tuple[int, int, int, bytes]:
    """One JDWP command packet: (id, command set, command, data)."""
    header = await reader.readexactly(11)
    length, packet_id, _flags, set_id, cmd = struct.unpack(">IIBBB", header)
    return packet_id, set_id, cmd, await reader.readexactly(length - 11)


def reply(packet_id: int, data: bytes = b"", error: int = 0) -> bytes:
    return struct.pack(">IIBH", 11 + len(data), packet_id, 0x80, error) + data


ID_SIZES = struct.pack(">5i", 8, 8, 8, 8, 8)


async def _id_sizes_then_quiet(reader, writer) -> None:
    """Looks like a JDWP agent for one command, then never answers again."""
    await reader.readexactly(len(HANDSHAKE))
    writer.write(HANDSHAKE)
    packet_id, _set, _cmd, _data = await read_command(reader)
    writer.write(reply(packet_id, ID_SIZES))
    await writer.drain()
    await reader.read()


async def _handshake_then_close(reader, writer) -> None:
    await reader.readexactly(len(HANDSHAKE))
    writer.write(HANDSHAKE)
    await writer.drain()
    writer.close()


PEERS = {
    "http": (_http, ("not a JDWP agent", "HTTP")),
    "silent": (_silent, ("no JDWP handshake",)),
    "wrong-handshake": (_wrong_handshake, ("instead of the JDWP handshake",)),
    "handshake-then-quiet": (_handshake_then_quiet, ("did not answer", "not answer")),
    "handshake-then-close": (_handshake_then_close, ("closed", "stopped answering")),
    "id-sizes-then-quiet": (_id_sizes_then_quiet, ("did not answer", "not answer")),
}


@pytest.mark.parametrize("peer", list(PEERS))
async def test_core_attach_to_a_wrong_peer_is_a_clear_error_within_the_timeout(debugger, peer):
    script, phrases = PEERS[peer]
    async with FakePeer(script) as fake:
        started = time.monotonic()
        with pytest.raises(DebuggerError) as info:
            await debugger.attach(fake.address, timeout=1.5)
        elapsed = time.monotonic() - started
    text = str(info.value)
    assert elapsed < 1.5 + 1.0, f"{peer}: error after {elapsed:.2f}s"
    assert any(p in text for p in phrases), f"{peer}: {text}"
    assert info.value.hint, f"{peer}: no hint on what to do: {text}"
    status = await debugger.status()
    assert status.state is SessionState.DISCONNECTED and status.last_error


async def test_core_attach_to_a_closed_port_is_a_clear_error_within_the_timeout(debugger, free_port):
    port = free_port()
    started = time.monotonic()
    with pytest.raises(DebuggerError) as info:
        await debugger.attach(f"127.0.0.1:{port}", timeout=1.0)
    elapsed = time.monotonic() - started
    assert 0.8 < elapsed < 2.0, elapsed  # it polls for a JVM that is still starting, then gives up in time
    assert "no JVM is listening" in str(info.value) and "-agentlib:jdwp" in str(info.value)


async def test_after_wrong_peers_the_debugger_attaches_to_a_real_jvm(debugger, jvm_factory):
    for script, _ in PEERS.values():
        async with FakePeer(script) as fake:
            with pytest.raises(DebuggerError):
                await debugger.attach(fake.address, timeout=1.0)
    jvm = jvm_factory("Playground")
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.state is SessionState.STOPPED


@pytest.mark.parametrize("peer", ["closed", *PEERS])
async def test_mcp_attach_to_a_wrong_peer_is_a_clear_error_within_the_timeout(mcp_session, free_port, peer):
    async with mcp_session("memory") as s:
        if peer == "closed":
            address, fake = f"127.0.0.1:{free_port()}", None
        else:
            fake = FakePeer(PEERS[peer][0])
            await fake.__aenter__()
            address = fake.address
        try:
            started = time.monotonic()
            reply = await s.err("attach", address=address, timeout=1.5)
            elapsed = time.monotonic() - started
        finally:
            if fake is not None:
                await fake.__aexit__(None, None, None)
        assert elapsed < 2.5, f"{peer}: {elapsed:.2f}s"
        assert address in reply.text or "JDWP" in reply.text, reply.text
        assert "attach failed" not in reply.text  # mapped to a DebuggerError, not a crash
        status = await s.ok("status")  # the server still answers
        assert "DISCONNECTED" in status.text or "not attached" in status.text.lower(), status.text


async def test_the_event_loop_is_never_blocked_by_a_wrong_peer(debugger):
    """While an attach waits on a silent peer, other coroutines keep running (no blocking I/O)."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        async with FakePeer(_silent) as fake:
            with pytest.raises(DebuggerError):
                await debugger.attach(fake.address, timeout=0.5)
    finally:
        ticker.cancel()
    assert ticks >= 10
