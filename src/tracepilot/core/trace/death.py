"""A program that ends during an in-JVM trace: its counts live in the target, so they would go with it. The
dying VM is held (instrument/death_hold.py: one VM_DEATH request per VM, suspend policy ALL, shared with the
capture ring's and the probes' last reads) until the trace has read its trees; then it is let go.
"""

from __future__ import annotations

import asyncio
from typing import Any

READ_ORDER = 2  # after the capture ring's records and the probes' hits (death_hold.py readers)


class DeathWatch:
    def __init__(self, session: Any, vm: Any) -> None:
        self.session, self.vm = session, vm
        loop = asyncio.get_running_loop()
        self.died: asyncio.Future[None] = loop.create_future()
        self._read: asyncio.Future[None] = loop.create_future()  # the trace has read what it needs: let it go
        self._hold: Any = None

    async def _at_death(self) -> None:
        if not self.died.done():
            self.died.set_result(None)
        await self._read

    async def start(self) -> None:
        self._hold = self.session.breakpoints.in_jvm.at_death
        await self._hold.hold(self.vm, self._at_death, order=READ_ORDER)

    async def release(self) -> None:
        """The trace is done with the VM: no longer read at its death; if it is dying, it goes on."""
        if self._hold is not None:
            self._hold.drop(self._at_death)
            self._hold = None
        if not self._read.done():
            self._read.set_result(None)
