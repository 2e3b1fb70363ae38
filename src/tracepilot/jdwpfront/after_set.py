"""A guest's events wait a moment after the reply to its EventRequest.Set: JDI, what IntelliJ and Eclipse are
built on, loses an event that comes right behind that reply.

JDI's reader thread looks an event's request up as it reads the packet, while the thread that made the request
files the id only once it has woken up with the reply. An event read just after the reply (in the same segment)
is then nobody's to JDI, and dropped: a breakpoint with a pass count of 1 never stops. A JDI program attached
straight to a JVM through a port forward that coalesces (kubectl, ssh) misses it too. Through the front end it
would be the rule: the session holds events that come while a Set is in flight (jdwp/connection.py) and hands
them over right after its reply, so the guest's reply and its first event leave together. Events written within
AFTER_SET of such a reply go out when it has passed, in order, whatever they are (their suspensions are counted
at once: only the writing waits).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

AFTER_SET = 0.01  # seconds: JDI's requester wakes and files the id in well under a millisecond


class EventsAfterSet:
    """Writes a guest's event frames with `write` (which never raises), none sooner than AFTER_SET after its
    last Set's reply."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._not_before = 0.0
        self._waiting: list[bytes] = []
        self._timer: asyncio.TimerHandle | None = None

    def set_answered(self) -> None:
        """The reply to one of the guest's Sets is being written now."""
        self._not_before = asyncio.get_running_loop().time() + AFTER_SET

    def send(self, frame: bytes) -> None:
        loop = asyncio.get_running_loop()
        if not self._waiting and loop.time() >= self._not_before:
            self._write(frame)
            return
        self._waiting.append(frame)
        if self._timer is None:
            self._timer = loop.call_at(self._not_before, self._send_waiting)

    def _send_waiting(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        if loop.time() < self._not_before:  # (another Set answered meanwhile)
            self._timer = loop.call_at(self._not_before, self._send_waiting)
            return
        waiting, self._waiting = self._waiting, []
        for frame in waiting:
            self._write(frame)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting.clear()
