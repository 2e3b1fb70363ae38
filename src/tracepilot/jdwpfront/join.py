"""`tracepilot jdwp --join [SESSION] --port N`: a JDWP port on 127.0.0.1 for a live session another process owns.

Each debugger that connects gets its own connection to the session host (its Unix socket, or its TCP listener
with the token), which turns into a JDWP stream after one `jdwp` message: the host's JDWP front end serves it
(hosting.py), and this process only relays bytes both ways.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

from ..share import protocol, registry
from ..share.protocol import ShareError
from .hosting import STREAM
from .server import HOST

log = logging.getLogger("tracepilot.jdwpfront")

CONNECT_TIMEOUT = 10.0


class Relay:
    def __init__(self, session: str | None, *, port: int = 0, token: str | None = None, name: str = "jdwp",
                 read_only: bool = False) -> None:
        self.session = session
        self.port = port
        self.token = token or os.environ.get("TRACEPILOT_SHARE_TOKEN")
        self.name = name
        self.read_only = read_only
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> int:
        reader, writer = await self._open_session()  # fail now, not when the IDE connects, if there is none
        try:
            if self._over_tcp():  # and a wrong token fails now too: the host drops a stream with a wrong one
                writer.write(protocol.dumps({"type": STREAM, "probe": True, "token": self.token}))
                answer = await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT)
                if not answer:
                    raise ShareError(f"session {self.session} refused the token",
                                     "pass the --token its host printed with --share-tcp")
        except (OSError, TimeoutError) as e:
            raise ShareError(f"session {self.session} did not answer: {e}", "tracepilot sessions lists live ones") from e
        finally:
            writer.close()
        self._server = await asyncio.start_server(self._relay, HOST, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def serve_forever(self) -> None:
        assert self._server is not None
        await self._server.serve_forever()

    async def _open_session(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        session = self.session or ""
        if session.startswith("tcp://"):
            host, _, port = session[len("tcp://"):].rpartition(":")
            if not host or not port.isdigit():
                raise ShareError(f"'{session}' is not tcp://HOST:PORT", "e.g. tcp://127.0.0.1:7777")
            if not self.token:
                raise ShareError("a TCP session needs its token", "pass --token (printed by the host)")
            opening = asyncio.open_connection(host, int(port))
        else:
            info = await asyncio.to_thread(registry.resolve, self.session)
            registry.check_private_dir(Path(info.socket).parent)
            opening = asyncio.open_unix_connection(info.socket)
        try:
            return await asyncio.wait_for(opening, CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as e:
            raise ShareError(f"cannot reach session {session or '(newest)'}: {e}",
                             "tracepilot sessions lists live ones") from e

    async def _relay(self, ide_reader: asyncio.StreamReader, ide_writer: asyncio.StreamWriter) -> None:
        try:
            reader, writer = await self._open_session()
            message: dict[str, Any] = {"type": STREAM, "client": self.name, "read_only": self.read_only}
            if self.token and self._over_tcp():
                message["token"] = self.token
            writer.write(protocol.dumps(message))
            answer = protocol.loads(await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT) or b"{}")
        except (ShareError, OSError, TimeoutError, protocol.ProtocolError) as e:
            print(f"tracepilot: a debugger connected but the session is not reachable: {e}", file=sys.stderr)
            ide_writer.close()
            return
        if answer.get("type") != "jdwp_ready":
            print(f"tracepilot: the session refused the debugger: {answer.get('reason', answer)}", file=sys.stderr)
            ide_writer.close()
            writer.close()
            return
        await asyncio.gather(_pipe(ide_reader, writer), _pipe(reader, ide_writer))

    def _over_tcp(self) -> bool:
        return (self.session or "").startswith("tcp://")

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(256 * 1024):
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()


def run(ns: Any) -> int:
    relay = Relay(ns.jdwp_join or None, port=ns.port, token=ns.token, name=ns.name, read_only=ns.read_only)

    async def main() -> int:
        try:
            port = await relay.start()
        except (ShareError, OSError) as e:
            print(f"tracepilot jdwp: {e}", file=sys.stderr)
            return 1
        print(f"tracepilot: JDWP on {HOST}:{port} for the session — attach IntelliJ (Remote JVM Debug), Eclipse "
              f"(Remote Java Application) or `jdb -attach {HOST}:{port}`", flush=True)
        try:
            await relay.serve_forever()
        finally:
            await relay.close()
        return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 0
