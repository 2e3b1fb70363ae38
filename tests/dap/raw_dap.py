"""A bare DAP peer for what DebugClient cannot do: send broken frames, be signalled, connect as another user.

    async with RawDap.stdio() as dap:            # `tracepilot dap` on stdio
        reply = await dap.request("initialize", {"adapterID": "java"})
        await dap.event("stopped")
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0


def adapter_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawDap:
    def __init__(self, reader: asyncio.StreamReader, writer: Any, proc: asyncio.subprocess.Process | None) -> None:
        self.reader = reader
        self.writer = writer
        self.proc = proc
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.responses: dict[int, dict[str, Any]] = {}

    @classmethod
    async def stdio(cls, *args: str, env: dict[str, str] | None = None, stdout: Any = None) -> RawDap:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tracepilot.cli", "dap", *args, env=env or adapter_env(), cwd=str(REPO),
            stdin=asyncio.subprocess.PIPE, stdout=stdout or asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, limit=1 << 24)
        return cls(proc.stdout, proc.stdin, proc)

    @classmethod
    async def tcp(cls, port: int) -> RawDap:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 24)
        return cls(reader, writer, None)

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)

    async def send(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        self.seq += 1
        self.writer.write(frame({"seq": self.seq, "type": "request", "command": command,
                                 "arguments": arguments or {}}))
        await self.writer.drain()
        return self.seq

    async def read(self) -> dict[str, Any] | None:
        length = None
        while True:
            line = await asyncio.wait_for(self.reader.readline(), TIMEOUT)
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        message = json.loads(await asyncio.wait_for(self.reader.readexactly(length), TIMEOUT))
        if message.get("type") == "event":
            self.events.append(message)
        elif message.get("type") == "response":
            self.responses[message["request_seq"]] = message
        return message

    async def response(self, seq: int) -> dict[str, Any]:
        while seq not in self.responses:
            if await self.read() is None:
                raise AssertionError(f"the adapter closed before answering request {seq}")
        return self.responses[seq]

    async def request(self, command: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.response(await self.send(command, arguments))

    async def event(self, name: str, taken: int = 0) -> dict[str, Any]:
        while True:
            found = [e for e in self.events if e["event"] == name]
            if len(found) > taken:
                return found[taken]
            if await self.read() is None:
                raise AssertionError(f"the adapter closed before a '{name}' event; events: {self.events}")

    async def until_closed(self) -> None:
        while await self.read() is not None:
            pass

    async def close(self) -> None:
        if self.proc is None:
            self.writer.close()
            return
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()

    async def stderr(self) -> str:
        assert self.proc is not None
        return (await self.proc.stderr.read()).decode(errors="replace")
