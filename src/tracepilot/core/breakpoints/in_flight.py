"""Requests made and not filed yet: an event may name a request before the debugger knows it.

A request set on a line running threads pass is hit as the JVM installs it. The JDWP agent writes its reply
from the command thread and the hit's event from the event thread, to one socket: the event can come just
before the reply, or in the same read, and a packet's events are handled as the packet is read (core/eager.py),
before the requester has taken the reply and filed the id. Such an event was taken for nobody's and resumed: a
hit lost, and for a request that fires once (`Count(1)`: a hit count of 1, a temporary breakpoint) the
breakpoint's only stop. The connection holds events that come while a Set is in flight and hands them over a
turn after its reply (jdwp/connection.py), which is enough for a requester that files the id in the step its
reply wakes it in, as every breakpoint's does; this makes it hold for breakpoints whatever the requester awaits
in between (a wait_for, a gather: more turns): an event whose request is not known waits until the requests in
flight are filed, then looks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class RequestsInFlight:
    """Counts the request makings under way (the request sent, its id not yet filed)."""

    def __init__(self) -> None:
        self._making = 0
        self._filed = asyncio.Event()
        self._filed.set()

    @contextmanager
    def making(self) -> Iterator[None]:
        """Around sending an EventRequest.Set and filing its id (no other wait in between: an event that
        waits for the filing waits for what is inside)."""
        self._making += 1
        self._filed.clear()
        try:
            yield
        finally:
            self._making -= 1
            if not self._making:
                self._filed.set()

    @property
    def any(self) -> bool:
        return self._making > 0

    async def filed(self) -> None:
        """Returns once no request is being made (at once when none is)."""
        if self._making:
            await self._filed.wait()
