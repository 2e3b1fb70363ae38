"""The opt-in TCP listener (`--share-tcp PORT`): loopback only, and nobody joins without the token."""

from __future__ import annotations

import asyncio
import json

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor, SessionState
from tracepilot.share import protocol, registry
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import SessionHost, published
from tracepilot.share.protocol import ShareError


async def _hello(port: int, token: str | None) -> dict:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(protocol.dumps(protocol.hello("probe", "person", False, token)))
    line = await asyncio.wait_for(reader.readline(), 5)
    writer.close()
    return json.loads(line) if line else {}


async def test_no_tcp_listener_unless_asked(monkeypatch):
    monkeypatch.delenv("TRACEPILOT_SHARE_TCP", raising=False)
    debugger = Debugger()
    async with published(debugger, "repl") as host:
        assert host is not None and host._tcp_server is None and host.info.tcp is None


async def test_tcp_listener_is_loopback_and_needs_the_token(jvm_factory, monkeypatch):
    monkeypatch.setenv("TRACEPILOT_SHARE_TCP", "0")
    jvm = jvm_factory("Playground", "50")
    debugger = Debugger()
    await debugger.attach(jvm.address)
    async with published(debugger, "repl") as host:
        assert isinstance(host, SessionHost) and host.tcp_token
        address, port = host.info.tcp.rsplit(":", 1)
        assert address == "127.0.0.1"
        assert all(s.getsockname()[0] == "127.0.0.1" for s in host._tcp_server.sockets)
        # The token is in the private descriptor, for the same user only.
        on_disk = json.loads(host.info.descriptor.read_text())
        assert on_disk["token"] == host.tcp_token and on_disk["tcp"] == host.info.tcp
        assert registry.resolve(host.info.id).token == host.tcp_token
        # No token, or a wrong one: the connection is closed before any snapshot.
        assert await _hello(int(port), None) == {}
        assert await _hello(int(port), "not-the-token") == {}
        with pytest.raises(ShareError, match="needs its token"):
            await RemoteDebugger.join(f"tcp://{host.info.tcp}", token="")
        # With the token: a full participant, attributed as a person in the host's history.
        remote = await RemoteDebugger.join(f"tcp://{host.info.tcp}", token=host.tcp_token, actor=Actor.PERSON)
        try:
            status = await remote.status()
            assert status.state is SessionState.STOPPED
            await remote.breakpoint_set("fixtures.Playground:10")
            assert any(e.kind == "breakpoint_set" and e.actor is Actor.PERSON for e in await debugger.events())
        finally:
            await remote.close()
    await debugger.close()
