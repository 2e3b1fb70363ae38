"""The session's captures, oldest first, bounded; a reader may wait for the next one.

Captures are listed in the order of their hits, not of their reading's end: a hit takes its place (`reserve`)
when it happens, and its capture is listed once every hit before it has its capture listed (or gave up its
place). A held hit is read while the probe's ring may already hold later hits of other threads, and two held
hits are read at once: either way the one hit first is listed first, in the JVM as by round trip."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from .model import Capture

CAPACITY = 2_000


class CaptureBook:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._captures: deque[Capture] = deque(maxlen=capacity)
        self._seq = 0
        self._waiters: list[asyncio.Future[None]] = []
        self.dropped = 0
        self._places = 0  # places handed out (reserve)
        self._settled = 0  # places up to which every capture is listed or given up, in order
        self._ready: dict[int, Capture | None] = {}  # place -> its capture (None: given up), waiting for earlier ones
        self.on_listed: Callable[[Capture], None] | None = None  # (the history's "capture" record)

    @property
    def last_seq(self) -> int:
        return self._seq

    def reserve(self) -> int:
        """A place in the order of hits, taken at the hit (its capture is read and added after)."""
        self._places += 1
        return self._places

    def add(self, capture: Capture, place: int | None = None) -> None:
        """The capture of the hit that took `place` (None: a place now). Numbered as listed, so a reader that
        continues after the last number it saw misses none."""
        self._settle(self.reserve() if place is None else place, capture)

    def give_up(self, place: int) -> None:
        """The hit that took `place` takes no capture (done meanwhile, rate-limited, unreadable); nothing once
        its capture was added."""
        if place not in self._ready:
            self._settle(place, None)

    def _settle(self, place: int, capture: Capture | None) -> None:
        if place <= self._settled:
            return  # (a place taken before clear())
        self._ready[place] = capture
        while self._settled + 1 in self._ready:
            self._settled += 1
            ready = self._ready.pop(self._settled)
            if ready is not None:
                self._list(ready)

    def _list(self, capture: Capture) -> None:
        self._seq += 1
        capture.seq = self._seq
        if len(self._captures) == self._captures.maxlen:
            self.dropped += 1
        self._captures.append(capture)
        if self.on_listed is not None:
            self.on_listed(capture)
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
        self._ready.clear()
        self._settled = self._places  # (captures of hits before the clear are not listed)
