"""Hold the dying VM until what only it knows is read: counts and records kept in the JVM by in-JVM probes.

A VM_DEATH request with suspend policy ALL holds the exiting VM (JDWP sends that event before its unsolicited
one, and waits for a resume). One request per VM, shared by every reader that needs it -- the capture ring's
last records, then the hits probes counted that the debugger never heard of (a hit rule that did not let them
by): two requests would come as one event, and the first tap to take it would leave the other's reader out.
Readers run in their `order`, then the VM is let go; the session hears of the death from the unsolicited
event that follows."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ...jdwp import EventKind, EventRequest, SuspendPolicy, VirtualMachine

log = logging.getLogger(__name__)

Reader = Callable[[], Awaitable[Any]]


class DeathHold:
    def __init__(self, host: Any) -> None:
        self.host = host  # has .session
        self.readers: dict[Reader, int] = {}  # reader -> its order (lower first)
        self.vm: Any = None  # the VM held at its death (its request is set)
        self.request = 0
        self.last: asyncio.Task[None] | None = None  # the readers at the death, running
        self._undo: Any = None

    async def hold(self, vm: Any, reader: Reader, order: int = 0) -> None:
        """Run `reader` when `vm` dies, before it goes (the request is set once per VM)."""
        self.readers.setdefault(reader, order)
        if self.vm is vm:
            return
        self.vm = vm  # (first: hits of several threads ask at once)
        if self._undo is None:
            self._undo = self.host.session.add_event_tap(self._tap)
        try:
            self.request = (await vm.send(EventRequest.Set, EventKind.VM_DEATH, SuspendPolicy.ALL, [])).request_id
        except Exception:
            self.vm = None
            raise

    def drop(self, reader: Reader) -> None:
        """`reader` is not run at the death any more (the request stays: the next reader needs no new one)."""
        self.readers.pop(reader, None)

    def _tap(self, composite: Any) -> bool:
        if not self.request or not any(getattr(e, "request_id", None) == self.request for e in composite.events):
            return False
        self.request = 0
        self.last = asyncio.get_running_loop().create_task(self._read(self.vm))
        return True

    async def _read(self, vm: Any) -> None:
        try:
            for reader in sorted(self.readers, key=self.readers.__getitem__):
                try:
                    await reader()
                except Exception as exc:  # noqa: BLE001 - the VM goes whatever happened; the next reader reads
                    log.debug("reading at the VM's death: %s", exc)
        finally:
            with contextlib.suppress(Exception):
                await vm.send(VirtualMachine.Resume)

    def forget_vm(self) -> None:
        """The VM is gone (its request with it): the next one is held anew."""
        self.vm, self.request = None, 0
