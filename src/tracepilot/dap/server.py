"""Runs the DAP adapter on stdio (the default, as editors launch adapters) or on a loopback TCP port.

On stdio the protocol owns file descriptor 1: it is duplicated for DAP and fd 1 is pointed at stderr, so a
stray print (ours or a library's) can never corrupt the message stream. stdin and stdout may be pipes,
sockets or plain files (`tracepilot dap < requests > replies`).

On a TCP port anyone on the machine can connect, so the adapter serves only whoever knows its token: the
token is printed on stderr and written to a file only its owner can read (in the private session
directory), and a client must send it as `"token"` in its launch or attach arguments before anything else
is done (see auth.py). SIGTERM and SIGHUP end the adapter as a closed connection does: a launched JVM is
ended, a joined session left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
from pathlib import Path
from typing import Any

from ..core.model import Actor
from ..core.secrets import RedactingFormatter
from ..signals import on_signals
from .adapter import Adapter
from .auth import TokenFile
from .framing import BadMessage, FramingError, encode_message, read_message

log = logging.getLogger("tracepilot.dap")
JOINED_TARGET: str | None = None  # `--join --target NAME`: the one JVM of a shared session this adapter debugs
READ_LIMIT = 1 << 24  # bytes of one header line


def _make_debugger(join: str | None, follow_only: bool, token: str | None, read_only: bool, redact: bool) -> Any:
    if join is None:
        from ..core.debugger import Debugger

        return Debugger(read_only=read_only, redact=redact, default_actor=Actor.PERSON)
    from ..share.client import RemoteDebugger

    # The joining front end's own --read-only and --redact hold on top of whatever the host allows.
    return RemoteDebugger(join or None, actor=Actor.PERSON, follow_only=follow_only, client="dap", token=token,
                          read_only=read_only, redact=redact, target=JOINED_TARGET)


async def serve(reader: asyncio.StreamReader, writer: Any, debugger: Any, *, joined: bool = False,
                follow_only: bool = False, token: str | None = None) -> None:
    """One DAP client: read requests until disconnect or end of stream, then release the debugger."""

    def send(message: dict[str, Any]) -> None:
        log.debug("-> %s", message)
        if not writer.is_closing():
            writer.write(encode_message(message))

    adapter = Adapter(debugger, send, joined=joined, follow_only=follow_only, token=token)
    try:
        while not adapter.finished.is_set():
            try:
                message = await read_message(reader)
            except FramingError as exc:
                log.error("closing the DAP connection: %s", exc)
                adapter.event("output", {"category": "important", "output": f"tracepilot dap: {exc}\n"})
                break
            except BadMessage as exc:
                log.error("ignored a DAP message: %s", exc)
                adapter.event("output", {"category": "important",
                                         "output": f"tracepilot dap: ignored a message: {exc}\n"})
                continue
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
            with contextlib.suppress(ConnectionError, RuntimeError, OSError):
                await writer.drain()
                writer.close()


class _FileWriter:
    """The writer side of `serve` on a plain file (asyncio's pipe transports refuse regular files)."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self._closed = False

    def write(self, data: bytes) -> None:
        self._file.write(data)

    async def drain(self) -> None:
        await asyncio.to_thread(self._file.flush)

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._file.close()


def _is_regular(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


async def _stdio_streams() -> tuple[asyncio.StreamReader, Any]:
    loop = asyncio.get_running_loop()
    dap_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    reader = asyncio.StreamReader(limit=READ_LIMIT)
    if _is_regular(0):  # `tracepilot dap < file`: fed from a thread
        loop.create_task(_feed_from_file(reader, sys.stdin.buffer))
    else:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    if _is_regular(dap_out.fileno()):  # `tracepilot dap > file`
        return reader, _FileWriter(dap_out)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, dap_out)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


async def _feed_from_file(reader: asyncio.StreamReader, file: Any) -> None:
    while chunk := await asyncio.to_thread(file.read1, 65536):
        reader.feed_data(chunk)
    reader.feed_eof()


async def main_async(port: int | None, join: str | None, follow_only: bool, token: str | None,
                     read_only: bool, redact: bool) -> int:
    joined = join is not None
    received: list[int] = []
    main = asyncio.current_task()
    clients: set[asyncio.Task[Any]] = set()

    def on_signal(signum: int) -> None:
        received.append(signum)
        log.warning("signal %d: closing (a launched JVM is ended)", signum)
        for task in (*clients, main):
            if task is not None:
                task.cancel()

    with on_signals(on_signal):
        try:
            if port is None:
                reader, writer = await _stdio_streams()
                await serve(reader, writer, _make_debugger(join, follow_only, token, read_only, redact),
                            joined=joined, follow_only=follow_only)
            else:
                await _serve_tcp(port, join, follow_only, token, read_only, redact, clients)
        except asyncio.CancelledError:
            if not received:
                raise
            if clients:  # each client's serve() closes its debugger as it is cancelled
                await asyncio.gather(*clients, return_exceptions=True)
    return 128 + received[0] if received else 0


async def _serve_tcp(port: int, join: str | None, follow_only: bool, token: str | None, read_only: bool,
                     redact: bool, clients: set[asyncio.Task[Any]]) -> None:
    joined = join is not None
    secret = TokenFile.create()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            clients.add(task)
        try:
            await serve(reader, writer, _make_debugger(join, follow_only, token, read_only, redact), joined=joined,
                        follow_only=follow_only, token=secret.token)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("DAP client failed")
        finally:
            if task is not None:
                clients.discard(task)

    server = await asyncio.start_server(on_client, "127.0.0.1", port, limit=READ_LIMIT)
    bound = server.sockets[0].getsockname()[1]
    try:
        path: Path | None = secret.write(bound)
    except OSError as exc:
        log.warning("the token file could not be written: %s", exc)
        path = None
    where = f" (also in {path}, readable only by you)" if path else ""
    print(f"tracepilot dap: listening on 127.0.0.1:{bound}; a client must send \"token\": \"{secret.token}\" "
          f"in its launch or attach arguments{where}", file=sys.stderr, flush=True)
    try:
        async with server:
            await server.serve_forever()
    finally:
        secret.remove()


def run(ns: Any) -> int:
    # TRACEPILOT_DAP_TRACE=1 logs every message both ways on stderr (editors show it in their adapter log).
    logging.basicConfig(level=logging.DEBUG if os.environ.get("TRACEPILOT_DAP_TRACE") else logging.WARNING, stream=sys.stderr,
                        format="tracepilot dap: %(levelname)s %(message)s")
    for handler in logging.getLogger().handlers:  # under --redact, logged messages hide what is secret too
        handler.setFormatter(RedactingFormatter("tracepilot dap: %(levelname)s %(message)s"))
    global JOINED_TARGET  # noqa: PLW0603  (one adapter process follows one target)
    JOINED_TARGET = getattr(ns, "target", None)
    try:
        return asyncio.run(main_async(ns.port, ns.join, ns.follow_only, ns.token, ns.read_only, ns.redact))
    except KeyboardInterrupt:
        return 130
