"""A program that ends during an in-JVM trace: its counts live in the target, so they would go with it. A
VM_DEATH request with suspend policy ALL holds the dying VM (JDWP sends that event before its unsolicited
one, and waits for a resume): the trace reads its trees there, then lets the VM go.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...jdwp import EventKind, EventRequest, SuspendPolicy, VirtualMachine


class DeathWatch:
    def __init__(self, session: Any, vm: Any) -> None:
        self.session, self.vm = session, vm
        self.request = 0
        self.died: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.undo: Any = None

    def tap(self, composite: Any) -> bool:
        if not any(getattr(e, "request_id", None) == self.request for e in composite.events):
            return False
        if not self.died.done():
            self.died.set_result(None)
        return True  # (the session hears of the death from the unsolicited event that follows the resume)

    async def start(self) -> None:
        self.undo = self.session.add_event_tap(self.tap)
        self.request = (await self.vm.send(EventRequest.Set, EventKind.VM_DEATH, SuspendPolicy.ALL, [])).request_id

    async def release(self) -> None:
        """Clear the request; if the VM is dying, let it go."""
        if self.undo is not None:
            self.undo()
            self.undo = None
        if self.died.done():
            with contextlib.suppress(Exception):
                await self.vm.send(VirtualMachine.Resume)
        elif self.request:
            with contextlib.suppress(Exception):
                await self.vm.send(EventRequest.Clear, EventKind.VM_DEATH, self.request)
