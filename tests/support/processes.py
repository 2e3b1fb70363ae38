"""Whether a process (a launched JVM) still lives, and waiting, bounded, for it to be gone."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie no longer counts: it has ended, its parent has not reaped it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    with_state = stat.read_text().rsplit(")", 1)[-1].split() if stat.exists() else ["X"]
    return with_state[0] != "Z"


async def gone(pid: int, seconds: float = 15.0) -> bool:
    """Whether `pid` ends within `seconds` (another process's end has no event to await here: it is polled)."""
    for _ in range(int(seconds * 10)):
        if not alive(pid):
            return True
        await asyncio.sleep(0.1)
    return False


def kill_if_alive(pid: int | None) -> None:
    if pid is not None and alive(pid):
        os.kill(pid, signal.SIGKILL)
