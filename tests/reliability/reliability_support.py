"""Helpers for the reliability tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class FakePeer:
    """A loopback TCP server playing a wrong or hostile peer: ``on_connect(reader, writer)`` scripts it.

    async with FakePeer(script) as peer: ... peer.address ...
    """

    def __init__(self, script) -> None:  # noqa: ANN001
        self.script = script
        self.server = None
        self.connections = 0
        self._writers: list = []

    async def __aenter__(self) -> FakePeer:
        import asyncio  # noqa: PLC0415

        async def handle(reader, writer) -> None:  # noqa: ANN001
            self.connections += 1
            self._writers.append(writer)
            try:
                await self.script(reader, writer)
            except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                pass

        self.server = await asyncio.start_server(handle, "127.0.0.1", 0)
        return self

    @property
    def port(self) -> int:
        return self.server.sockets[0].getsockname()[1]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def __aexit__(self, *exc: object) -> None:
        for writer in self._writers:
            writer.close()
        self.server.close()
        await self.server.wait_closed()


HANDSHAKE = b"JDWP-Handshake"


def vm_gone(debugger) -> Any:
    """Resolves when the session records the VM's end (a history record, not polling)."""
    future = asyncio.get_running_loop().create_future()

    def listener(record) -> None:
        if record.kind == "vm_death" and "terminated" in record.text and not future.done():
            future.set_result(None)

    unsubscribe = debugger.history.subscribe(listener)
    future.add_done_callback(lambda _f: unsubscribe())
    return future
