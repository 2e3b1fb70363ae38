"""Issue 25, points 9 and 10 at the MCP door: an argument a tool does not have is refused with the nearest one
(never silently dropped), the schemas say so; a string with a lone surrogate is answered; SIGTERM/SIGHUP
end a launched JVM and unlist the session as closed stdin does."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import tempfile
from pathlib import Path

import pytest
from mcp_harness import REPO

pytestmark = pytest.mark.timeout(90)


async def test_a_misspelt_argument_is_refused_with_the_nearest_name(mcp_session):
    async with mcp_session("memory") as s:
        reply = await s.err("breakpoint_set", location="Orders:25", conditon="n % 7 == 0")
        assert "`conditon` is not an argument of breakpoint_set: did you mean `condition`?" in reply.text, reply.text
        reply = await s.err("resume", timeot=1)
        assert "did you mean `timeout`?" in reply.text, reply.text
        reply = await s.err("status", verbose=True)
        assert "`verbose` is not an argument of status" in reply.text and "takes no arguments" in reply.text
        listed = await s.ok("breakpoint_list")
        assert "Orders" not in listed.text  # refused before anything ran


async def test_every_tool_schema_forbids_other_arguments(mcp_session):
    async with mcp_session("memory") as s:
        tools = (await s.client.list_tools()).tools
    assert tools
    assert [t.name for t in tools if t.input_schema.get("additionalProperties") is not False] == []


class RawMcp:
    """`tracepilot --mcp` spoken to line by line (the SDK client cannot send a lone surrogate, nor be signalled)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.ids = 0

    @classmethod
    async def start(cls, share_dir: Path) -> RawMcp:
        env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   TRACEPILOT_SHARE_DIR=str(share_dir))
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tracepilot.cli", "--mcp", env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 24)
        raw = cls(proc)
        await raw.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "raw", "version": "1"}})
        raw.send_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return raw

    def send_text(self, text: str) -> None:
        self.proc.stdin.write(text.encode() + b"\n")

    async def answer(self, request_id: int) -> dict:
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), 30)
            assert line, "the server ended without answering"
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    async def request(self, method: str, params: dict) -> dict:
        self.ids += 1
        self.send_text(json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}))
        return await self.answer(self.ids)

    async def tool(self, name: str, **arguments: object) -> str:
        message = await self.request("tools/call", {"name": name, "arguments": arguments})
        return "\n".join(c.get("text", "") for c in message["result"]["content"])

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


@pytest.fixture
def share_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="tp-doors-"))
    yield path
    import shutil

    shutil.rmtree(path, ignore_errors=True)


async def test_a_lone_surrogate_is_answered_with_an_error(share_dir):
    raw = await RawMcp.start(share_dir)
    try:
        raw.send_text('{"jsonrpc":"2.0","id":41,"method":"tools/call",'
                      '"params":{"name":"source","arguments":{"location":"\\ud800x"}}}')
        message = await raw.answer(41)
        text = message["result"]["content"][0]["text"]
        assert message["result"]["isError"] and "location holds a lone UTF-16 surrogate" in text, message
        raw.send_text('{"jsonrpc":"2.0","id":42,"method":"resources/read","params":{"uri":"\\udc00"}}')
        assert "error" in await raw.answer(42)
        assert "DISCONNECTED" in await raw.tool("status")  # and the server goes on
    finally:
        await raw.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
async def test_a_signal_ends_the_launched_jvm_and_unlists_the_session(
        signum, share_dir, java_classes, java_source_root, line_of, default_jdk, jdks):
    raw = await RawMcp.start(share_dir)
    try:
        text = await raw.tool("launch", main="fixtures.Quick", classpath=[str(java_classes)],
                              sourcepath=[str(java_source_root)], jvm_args=[])
        assert "pid" in text, text
        pid = int(re.search(r"pid (\d+)", text).group(1))
        await raw.tool("breakpoint_set", location=f"fixtures.Quick:{line_of('quick-add')}")
        assert "STOPPED" in await raw.tool("resume", timeout=30)  # every thread held at a suspend-all stop
        assert list(share_dir.glob("*.json")), "the session is listed while the server runs"
        raw.proc.send_signal(signum)
        rc = await asyncio.wait_for(raw.proc.wait(), 30)
        assert rc == 128 + signum, (rc, (await raw.proc.stderr.read()).decode(errors="replace")[-2000:])
        for _ in range(100):
            if not _alive(pid):
                break
            await asyncio.sleep(0.1)
        assert not _alive(pid), "the launched JVM outlived the MCP server"
        assert not list(share_dir.glob("*.json")), "a stale session entry stayed listed"
    finally:
        if _alive_safe(locals().get("pid")):
            os.kill(locals()["pid"], signal.SIGKILL)
        await raw.close()


def _alive_safe(pid: int | None) -> bool:
    return pid is not None and _alive(pid)
