"""`tracepilot jdwp --join ...` in another process (the relay a person starts for their IDE), and the port it
announces on stdout."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PORT_LINE = re.compile(r"JDWP on 127\.0\.0\.1:(\d+)")


async def start_relay(*args: str) -> asyncio.subprocess.Process:
    """`tracepilot jdwp --join *args`, this tree's sources first on its path."""
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tracepilot.cli", "jdwp", "--join", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)


async def announced_port(relay: asyncio.subprocess.Process, timeout: float = 20.0) -> int:
    """The relay's port, from the first stdout line that carries it (other lines may come first), within `timeout`."""
    seen: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while raw := await relay.stdout.readline():
                seen.append(line := raw.decode(errors="replace").rstrip("\n"))
                if found := PORT_LINE.search(line):
                    return int(found.group(1))
    except TimeoutError:
        raise AssertionError(f"no port line from the relay within {timeout:g}s; stdout:\n" + "\n".join(seen)) from None
    err = (await relay.stderr.read()).decode(errors="replace")
    raise AssertionError("the relay ended before announcing its port; stdout:\n" + "\n".join(seen) + "\nstderr:\n" + err)
