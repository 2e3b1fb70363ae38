"""The deadlines of the calls waiting for a stop, kept by one event-loop timer.

A wait for a stop ends at its deadline ("still running after 10s") unless a stop comes first, as nearly every
one does. A timer per wait was made and cancelled on every resume -> stop (issue 32: ~100 of the ~5,200 Python
bytecodes of a stop). Here one timer stands for all of them: armed for the earliest deadline, it expires the
waits that are due when it fires and is armed again for the next; a wait that ends first only leaves the book.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

EXPIRED = object()  # what a waiting call's future gets when its time is up

# Seconds a deadline may be early when its timer fires (the event loop runs a timer up to its clock's resolution
# before its time): the wait is over then too.
_EARLY = 0.001


class Deadlines:
    def __init__(self) -> None:
        self._due: dict[asyncio.Future[Any], float] = {}  # waiter -> its deadline, on its loop's clock
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, waiter: asyncio.Future[Any], seconds: float) -> None:
        """`waiter` gets EXPIRED in `seconds` unless it is done (or discarded) before."""
        loop = waiter.get_loop()
        at = loop.time() + seconds
        self._due[waiter] = at
        if loop is not self._loop:  # (a session used from another event loop: its timer is that loop's)
            self._drop_timer()
            self._loop = loop
        if at < self._timer_at:
            self._arm(loop, at)

    def discard(self, waiter: asyncio.Future[Any]) -> None:
        self._due.pop(waiter, None)  # (the timer stays: when it fires, it is armed for whatever is left)

    def _arm(self, loop: asyncio.AbstractEventLoop, at: float) -> None:
        self._drop_timer()
        self._timer, self._timer_at = loop.call_at(at, self._fire), at

    def _drop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, math.inf

    def _fire(self) -> None:
        self._timer, self._timer_at = None, math.inf
        loop = self._loop
        if loop is None:
            return
        now = loop.time()
        for waiter, at in list(self._due.items()):
            if waiter.get_loop() is not loop:
                del self._due[waiter]  # (a wait of an event loop this session no longer runs in)
            elif at <= now + _EARLY:
                del self._due[waiter]
                if not waiter.done():
                    waiter.set_result(EXPIRED)
        if self._due:
            self._arm(loop, min(self._due.values()))
