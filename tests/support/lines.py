"""A subprocess read line by line (jdb, a JDI program, a relay), awaiting lines: nothing is slept on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class LineProcess:
    """A subprocess whose stdout is read line by line, awaiting lines (nothing is slept on)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seen: list[str] = []

    async def expect(self, needle: str, timeout: float = 20.0) -> str:
        """Lines up to and including the first one containing `needle`; returns that line."""
        try:
            return await asyncio.wait_for(self._expect(needle), timeout)
        except TimeoutError:
            raise AssertionError(f"no {needle!r} within {timeout:g}s; output:\n" + "\n".join(self.seen)) from None

    async def _expect(self, needle: str) -> str:
        while True:
            raw = await self.proc.stdout.readline()
            if not raw:
                errors = (await self.proc.stderr.read()).decode(errors="replace") if self.proc.stderr else ""
                raise AssertionError(f"ended before {needle!r}; output:\n" + "\n".join(self.seen) + "\n" + errors)
            line = raw.decode(errors="replace").rstrip("\n")
            self.seen.append(line)
            if needle in line:
                return line

    async def lines_so_far(self, timeout: float = 1.0) -> list[str]:
        """Every line read, after reading what the process printed meanwhile (for a failure's message: `seen`
        alone holds only the lines an `expect` read)."""
        with contextlib.suppress(TimeoutError, AssertionError):
            await asyncio.wait_for(self._expect("\0never"), timeout)
        return self.seen

    def value(self, key: str) -> str:
        for line in self.seen:
            if line.startswith(key + " "):
                return line[len(key) + 1:]
        raise AssertionError(f"no {key} line in:\n" + "\n".join(self.seen))

    async def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        await self.proc.wait()


@contextlib.asynccontextmanager
async def line_process(*cmd: str, stderr_to_stdout: bool = False) -> AsyncIterator[LineProcess]:
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if stderr_to_stdout else asyncio.subprocess.PIPE)
    lines = LineProcess(proc)
    try:
        yield lines
    finally:
        await lines.close()
