"""A TCP relay that hands on what a JVM sends in chunks, as a port forward does (`kubectl port-forward`, an ssh
tunnel): bytes that arrive within `every` seconds of each other reach the debugger in one read. A reply and the
events the JVM sends just after it then come together, which the loopback socket does only now and then."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


@contextlib.asynccontextmanager
async def coalescing_relay(target: str, every: float = 0.03) -> AsyncIterator[str]:
    """Listen on 127.0.0.1 (a free port) while the block runs; each connection is relayed to `target`
    ("host:port"). Yields the relay's address."""
    host, port = target.rsplit(":", 1)
    pumps: set[asyncio.Task[None]] = set()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        jvm_reader, jvm_writer = await asyncio.open_connection(host, int(port))
        pumps.update({asyncio.create_task(pump(reader, jvm_writer)),
                      asyncio.create_task(pump(jvm_reader, writer, every))})

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    try:
        yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, every: float = 0.0) -> None:
    """Copy reader to writer until the reader ends or a side breaks (then close writer); with `every`, what one read got waits
    that long for more before it is written. (Also the plain relay of tests/reliability/test_hostile_bytes.py.)"""
    try:
        while data := await reader.read(1 << 16):
            if every:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(every):
                        while more := await reader.read(1 << 16):
                            data += more
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()
