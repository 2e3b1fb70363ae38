"""jdb driven over stdin as a person would: attached to a JDWP port, a breakpoint set and hit, cleared, left."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from .lines import LineProcess, line_process


def jdb_of(jdk_tools: Sequence[str]) -> str:
    """The jdb beside a JDK's tools (java, javac)."""
    return str(Path(jdk_tools[1]).with_name("jdb"))


@contextlib.asynccontextmanager
async def jdb_attached(jdb: str, port: int) -> AsyncIterator[LineProcess]:
    """jdb attached to 127.0.0.1:port, its banner read (killed on the way out if still running)."""
    async with line_process(jdb, "-attach", f"127.0.0.1:{port}", stderr_to_stdout=True) as person:
        await person.expect("Initializing jdb")
        yield person


async def stop_at(person: LineProcess, location: str) -> str:
    """`stop at location`, then its hit: returns jdb's "Breakpoint hit:" line."""
    await person.send(f"stop at {location}")
    return await person.expect("Breakpoint hit:")


async def clear(person: LineProcess, location: str) -> None:
    await person.send(f"clear {location}")
    await person.expect("Removed:")


async def quit_cleanly(person: LineProcess, *, cont: bool = True) -> None:
    """(cont, then) quit; jdb must end with 0."""
    if cont:
        await person.send("cont")
    await person.send("quit")
    assert await person.proc.wait() == 0
