"""A DAP client scenario (a node script from tests/dap) run beside the test: it prints one word per milestone
("joined", "stepped") and reads commands ("leave") on stdin. Lines are awaited, each within a bound."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path


class NodeScenario:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def line(self, wanted: str, timeout: float = 30.0) -> None:
        """Read lines until one is exactly `wanted`; the scenario's stderr if it ends first."""
        while True:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
            if not raw:
                err = (await self.proc.stderr.read()).decode(errors="replace")
                raise AssertionError(f"the DAP scenario ended before '{wanted}':\n{err}")
            if raw.decode().strip() == wanted:
                return

    async def tell(self, text: str) -> None:
        self.proc.stdin.write(text.encode() + b"\n")
        await self.proc.stdin.drain()

    async def leave(self, timeout: float = 30.0) -> None:
        """Tell the scenario to leave; it must end cleanly."""
        await self.tell("leave")
        rc = await asyncio.wait_for(self.proc.wait(), timeout)
        assert rc == 0, (await self.proc.stderr.read()).decode(errors="replace")


@contextlib.asynccontextmanager
async def node_scenario(script: Path, env: dict[str, str]) -> AsyncIterator[NodeScenario]:
    """Runs `node script` in its directory; killed on the way out if still running."""
    proc = await asyncio.create_subprocess_exec(
        "node", str(script), cwd=script.parent, env=env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        yield NodeScenario(proc)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
