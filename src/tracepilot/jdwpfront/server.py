"""The JDWP front end's listener: 127.0.0.1 only, one guest debugger at a time.

    front = JdwpFrontEnd(debugger, port=0)
    port = await front.start()     # IntelliJ "Remote JVM Debug" / Eclipse "Remote Java Application" / jdb here
    ...
    await front.close()            # a guest still attached is detached (its requests cleared, its holds resumed)

A second debugger that connects while one is attached is turned away (JDWP has one debugger per connection,
and the guest's suspensions are counted for one). The session must have a live VM when a guest connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from .guest import GuestConnection

log = logging.getLogger("tracepilot.jdwpfront")

HOST = "127.0.0.1"  # never beyond loopback: JDWP has no authentication


class JdwpFrontEnd:
    def __init__(self, debugger: Any, *, port: int = 0, name: str = "IDE", allow_exit: bool = False) -> None:
        self.debugger = debugger
        self.port = port
        self.name = name
        self.allow_exit = allow_exit
        self.guest: GuestConnection | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._guest_changed = asyncio.Event()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, HOST, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("jdwp: front end listening on %s:%d", HOST, self.port)
        return self.port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self.serve(reader, writer)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, name: str | None = None,
                    read_only: bool = False) -> None:
        """Serve one guest over any stream (a TCP connection, or a share socket handed over by its host);
        `read_only` holds on top of the session's own."""
        if self.guest is not None:
            log.warning("jdwp: a second debugger was turned away: %s is attached", self.guest.name)
            writer.close()
            return
        guest = GuestConnection(self.debugger, reader, writer, name=name or self.name, allow_exit=self.allow_exit,
                                read_only=read_only)
        self.guest = guest
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await guest.serve()
        finally:
            self.guest = None
            self._guest_changed.set()
            if task is not None:
                self._tasks.discard(task)

    async def guest_left(self, timeout: float = 10.0) -> None:
        """Until no guest is attached (its requests cleared, its holds resumed)."""
        async with asyncio.timeout(timeout):
            while self.guest is not None:
                await self._guest_changed.wait()
                self._guest_changed.clear()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        guest = self.guest
        if guest is not None:
            guest.leaving = "the session ended"
            with contextlib.suppress(Exception):
                await asyncio.wait_for(guest._leave(), 5.0)  # noqa: SLF001
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5.0)
