"""Runs the DAP adapter on stdio (the default, as editors launch adapters) or on a loopback TCP port.

On stdio the protocol owns file descriptor 1: it is duplicated for DAP and fd 1 is pointed at stderr, so a
stray print (ours or a library's) can never corrupt the message stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

from ..core.model import Actor
from ..core.secrets import RedactingFormatter
from .adapter import Adapter
from .framing import FramingError, encode_message, read_message

log = logging.getLogger("tracepilot.dap")


def _make_debugger(join: str | None, follow_only: bool, token: str | None, read_only: bool, redact: bool) -> Any:
    if join is None:
        from ..core.debugger import Debugger

        return Debugger(read_only=read_only, redact=redact, default_actor=Actor.PERSON)
    from ..share.client import RemoteDebugger

    return RemoteDebugger(join or None, actor=Actor.PERSON, follow_only=follow_only, client="dap", token=token)


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, debugger: Any, *, joined: bool = False,
                follow_only: bool = False) -> None:
    """One DAP client: read requests until disconnect or end of stream, then release the debugger."""

    def send(message: dict[str, Any]) -> None:
        log.debug("-> %s", message)
        if not writer.is_closing():
            writer.write(encode_message(message))

    adapter = Adapter(debugger, send, joined=joined, follow_only=follow_only)
    try:
        if joined:
            await debugger.connect()
        while not adapter.finished.is_set():
            try:
                message = await read_message(reader)
            except FramingError as exc:
                log.error("closing the DAP connection: %s", exc)
                break
            if message is None:
                break
            log.debug("<- %s", message)
            await adapter.handle(message)
            await writer.drain()
    finally:
        await adapter.close()
        try:
            await debugger.close()
        finally:
            try:
                await writer.drain()
                writer.close()
            except (ConnectionError, RuntimeError):
                pass


async def _stdio_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    dap_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, dap_out)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return reader, writer


async def main_async(port: int | None, join: str | None, follow_only: bool, token: str | None,
                     read_only: bool, redact: bool) -> int:
    joined = join is not None
    if port is None:
        reader, writer = await _stdio_streams()
        await serve(reader, writer, _make_debugger(join, follow_only, token, read_only, redact), joined=joined,
                    follow_only=follow_only)
        return 0

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await serve(reader, writer, _make_debugger(join, follow_only, token, read_only, redact), joined=joined,
                        follow_only=follow_only)
        except Exception:
            log.exception("DAP client failed")

    server = await asyncio.start_server(on_client, "127.0.0.1", port, limit=1 << 24)
    bound = server.sockets[0].getsockname()[1]
    print(f"tracepilot dap: listening on 127.0.0.1:{bound}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()
    return 0


def run(ns: Any) -> int:
    # TRACEPILOT_DAP_TRACE=1 logs every message both ways on stderr (editors show it in their adapter log).
    logging.basicConfig(level=logging.DEBUG if os.environ.get("TRACEPILOT_DAP_TRACE") else logging.WARNING, stream=sys.stderr,
                        format="tracepilot dap: %(levelname)s %(message)s")
    for handler in logging.getLogger().handlers:  # under --redact, logged messages hide what is secret too
        handler.setFormatter(RedactingFormatter("tracepilot dap: %(levelname)s %(message)s"))
    try:
        return asyncio.run(main_async(ns.port, ns.join, ns.follow_only, ns.token, ns.read_only, ns.redact))
    except KeyboardInterrupt:
        return 130
