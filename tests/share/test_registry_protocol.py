"""The session registry (private directory, socket and descriptor modes, stale entries) and the protocol
codec (model objects round-trip as the same dataclasses, errors as the same classes). No JVM needed."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import NotFound, NotStopped
from tracepilot.core.model import (
    Actor,
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    SessionState,
    Status,
    StopKind,
    StopReason,
)
from tracepilot.share import protocol, registry
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import SessionHost
from tracepilot.share.protocol import ShareError


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


async def test_directory_and_socket_are_private(share_dir: Path) -> None:
    share_dir.rmdir()  # let the host create it
    host = SessionHost(Debugger(), "test")
    info = await host.start()
    try:
        assert mode(share_dir) == 0o700
        assert stat.S_ISSOCK(os.lstat(info.socket).st_mode)
        assert mode(Path(info.socket)) == 0o600
        assert mode(info.descriptor) == 0o600
        descriptor = json.loads(info.descriptor.read_text())
        assert descriptor["pid"] == os.getpid() and descriptor["frontend"] == "test"
        assert [s.id for s in registry.list_sessions()] == [info.id]
    finally:
        await host.close()
    assert not Path(info.socket).exists() and not info.descriptor.exists()


def test_directory_open_to_others_is_refused(share_dir: Path) -> None:
    share_dir.chmod(0o755)
    with pytest.raises(ShareError, match="readable by others"):
        registry.private_dir()
    with pytest.raises(ShareError, match="readable by others"):
        registry.list_sessions()


def test_symlinked_directory_is_refused(share_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tmp_path / "link"
    link.symlink_to(share_dir)
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(link))
    with pytest.raises(ShareError, match="not a directory"):
        registry.private_dir()


def test_stale_entries_are_removed(share_dir: Path) -> None:
    dead = registry.SessionInfo("mcp-999999", str(share_dir / "mcp-999999.sock"), 2**22 + 12345, "mcp", None, 1.0)
    Path(dead.socket).touch()
    registry.write_descriptor(dead)
    assert registry.list_sessions() == []
    assert not dead.descriptor.exists() and not Path(dead.socket).exists()


async def test_resolve_and_print(share_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ShareError, match="no live tracepilot session"):
        registry.resolve(None)
    first, second = SessionHost(Debugger(), "repl"), SessionHost(Debugger(), "tui")
    a, b = await first.start(), await second.start()
    try:
        assert registry.resolve(None).id == b.id  # the newest
        assert registry.resolve(a.id).id == a.id
        assert registry.resolve("repl").id == a.id  # unique prefix
        with pytest.raises(ShareError, match="matches 2 sessions"):
            registry.resolve(str(os.getpid()))
        with pytest.raises(ShareError, match="no live session 'nope'"):
            registry.resolve("nope")
        assert registry.print_sessions() == 0
        out = capsys.readouterr().out
        assert a.id in out and b.id in out and "FRONT END" in out
    finally:
        await first.close()
        await second.close()
    registry.print_sessions()
    assert "No live tracepilot sessions." in capsys.readouterr().out


def test_model_objects_round_trip() -> None:
    loc = CodeLocation("fixtures.Playground", "main", 56, "Playground.java")
    stop = StopReason(StopKind.BREAKPOINT, 1, "main", loc, breakpoint_id="bp-1", hit_count=2)
    status = Status(SessionState.STOPPED, "localhost:5005", None, stop, 1)
    record = EventRecord(7, 1.5, "stop", Actor.PERSON, "STOPPED", {"stop": stop.to_dict()})
    bp = BreakpointInfo("bp-1", "line", "Playground:56", locations=[loc], hits=2)
    for value in (status, record, [bp], {"x": [stop]}):
        wire = json.loads(protocol.dumps({"type": "t", "v": protocol.encode(value)}))["v"]
        assert protocol.decode(wire) == value
    back = protocol.decode(protocol.encode(status))
    assert back.state is SessionState.STOPPED and back.stop.kind is StopKind.BREAKPOINT
    assert protocol.decode(protocol.encode(record)).actor is Actor.PERSON


def test_decoder_builds_only_our_dataclasses() -> None:
    evil = {"__type__": "os:system", "command": "true"}
    assert protocol.decode(evil) == {"command": "true"}
    assert protocol.decode({"__type__": "tracepilot.core.debugger:Debugger"}) == {}


def test_errors_keep_their_class() -> None:
    for error in (NotStopped("no thread is suspended", "pause first"), NotFound("no class Foo", ["Fooo"])):
        back = protocol.error_from_dict(json.loads(json.dumps(protocol.error_to_dict(error))))
        assert type(back) is type(error) and str(back) == str(error)
    assert "RuntimeError: boom" in str(protocol.error_from_dict(protocol.error_to_dict(RuntimeError("boom"))))


def test_garbage_is_a_protocol_error() -> None:
    for line in (b"not json\n", b"[1,2]\n", b'{"no":"type"}\n'):
        with pytest.raises(protocol.ProtocolError):
            protocol.loads(line)


async def test_host_survives_a_bad_client(share_dir: Path) -> None:
    debugger = Debugger()
    host = SessionHost(debugger, "test")
    info = await host.start()
    try:
        reader, writer = await asyncio.open_unix_connection(info.socket)
        writer.write(b"garbage\n")
        assert await reader.read() == b""  # dropped
        writer.close()
        remote = await RemoteDebugger.join(info.id)
        assert (await remote.status()).state is SessionState.DISCONNECTED
        await remote.close()
    finally:
        await host.close()
