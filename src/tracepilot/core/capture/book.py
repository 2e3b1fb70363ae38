"""The session's captures, oldest first, bounded; a reader may wait for the next one."""

from __future__ import annotations

import asyncio
from collections import deque

from .model import Capture

CAPACITY = 2_000


class CaptureBook:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._captures: deque[Capture] = deque(maxlen=capacity)
        self._seq = 0
        self._waiters: list[asyncio.Future[None]] = []
        self.dropped = 0

    @property
    def last_seq(self) -> int:
        return self._seq

    def add(self, capture: Capture) -> None:
        """Numbered as added (not as started: captures read at once finish in any order), so a reader that
        continues after the last number it saw misses none."""
        self._seq += 1
        capture.seq = self._seq
        if len(self._captures) == self._captures.maxlen:
            self.dropped += 1
        self._captures.append(capture)
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    @property
    def waited_on(self) -> bool:
        """A reader waits for the next capture (captures wait=...)."""
        return any(not waiter.done() for waiter in self._waiters)

    def select(self, bp_id: str | None = None, since: int = 0, limit: int | None = None) -> list[Capture]:
        found = [c for c in self._captures if c.seq > since and (bp_id is None or c.breakpoint_id == bp_id)]
        return found[:limit] if limit is not None else found

    async def wait(self, timeout: float) -> None:
        """Until a capture is added or `timeout` seconds pass. (Registered before the first await: a capture
        added after the caller's select() and before this wait is not missed.)"""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            pass

    def clear(self) -> None:
        self._captures.clear()

