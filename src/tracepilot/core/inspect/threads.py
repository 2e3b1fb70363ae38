"""Threads: name, group, state, suspension, virtual or platform, location, monitors."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from ...jdwp import JdwpError, ThreadGroupReference, ThreadReference, ThreadStatus, VirtualMachine
from ...jdwp.errors import ErrorCode
from ..instrument.hidden import top_location
from ..model import ThreadInfo
from ..vm import Vm
from .objects import safe
from .values import Values

STATE_NAMES = {
    ThreadStatus.ZOMBIE: "zombie", ThreadStatus.RUNNING: "running", ThreadStatus.SLEEPING: "sleeping",
    ThreadStatus.MONITOR: "blocked", ThreadStatus.WAIT: "waiting", ThreadStatus.NOT_STARTED: "not started",
}

SYSTEM_NAMES = frozenset({
    "Reference Handler", "Finalizer", "Signal Dispatcher", "Common-Cleaner", "Notification Thread",
    "Attach Listener", "Service Thread", "Monitor Deflation Thread", "Sweeper thread", "DestroyJavaVM",
})


def is_system(name: str, group: str | None) -> bool:
    return group == "system" or name in SYSTEM_NAMES or name.startswith(("JDWP ", "C1 ", "C2 "))


class Threads:
    def __init__(self, vm: Vm) -> None:
        self.vm = vm
        self._group_names: dict[int, str] = {}
        self._virtual_supported: bool | None = None

    async def all_ids(self) -> list[int]:
        return (await self.vm.send(VirtualMachine.AllThreads)).threads

    async def group_name(self, thread_id: int) -> str | None:
        try:
            group = (await self.vm.send(ThreadReference.ThreadGroup, thread_id)).group
        except JdwpError:
            return None
        if not group:
            return None  # virtual threads and terminated ones have no group over JDWP
        name = self._group_names.get(group)
        if name is None:
            name = (await self.vm.send(ThreadGroupReference.Name, group)).group_name
            self._group_names[group] = name
        return name

    async def is_virtual(self, thread_id: int) -> bool:
        if self._virtual_supported is False:
            return False
        try:
            result = (await self.vm.send(ThreadReference.IsVirtual, thread_id)).is_virtual
            self._virtual_supported = True
            return result
        except JdwpError as exc:
            if exc.code in (ErrorCode.NOT_IMPLEMENTED, ErrorCode.INVALID_EVENT_TYPE) or self._virtual_supported is None:
                self._virtual_supported = False
            return False

    async def status(self, thread_id: int) -> tuple[str, bool]:
        reply = await self.vm.send(ThreadReference.Status, thread_id)
        try:
            state = STATE_NAMES[ThreadStatus(reply.thread_status)]
        except ValueError:
            state = f"status {reply.thread_status}"
        return state, bool(reply.suspend_status & 1)

    async def info(self, thread_id: int, values: Values, current: int | None, with_monitors: bool = True) -> ThreadInfo:
        name, group, (state, suspended), virtual = await asyncio.gather(
            self.vm.thread_name(thread_id), self.group_name(thread_id), self.status(thread_id),
            self.is_virtual(thread_id))
        info = ThreadInfo(thread_id, name, group, state, suspended, is_virtual=virtual,
                          is_system=is_system(name, group), current=thread_id == current)
        if suspended:
            top = await safe(top_location(self.vm, thread_id))  # (an in-JVM probe's frames are not the program's)
            if top is not None:
                info.location = await safe(self.vm.code_location(top))
            if with_monitors and self.vm.capabilities.get("can_get_owned_monitor_info"):
                owned = await safe(self.vm.send(ThreadReference.OwnedMonitors, thread_id))
                if owned is not None:
                    info.owned_monitors = [await values.view(m, None, 2) for m in owned.owned]
            if with_monitors and self.vm.capabilities.get("can_get_current_contended_monitor"):
                waiting = await safe(self.vm.send(ThreadReference.CurrentContendedMonitor, thread_id))
                if waiting is not None and not waiting.monitor.is_null:
                    info.waiting_for = await values.view(waiting.monitor, None, 2)
        return info

    async def list(self, values: Values, include_system: bool, current: int | None,
                   known: Iterable[int] = ()) -> list[ThreadInfo]:
        """Every thread JDWP lists, plus `known` ones it does not (virtual threads the debugger met in events:
        AllThreads leaves virtual threads out unless the agent runs with includevirtualthreads=y)."""
        ids = await self.all_ids()
        ids += [t for t in dict.fromkeys(known) if t not in ids]
        infos = await asyncio.gather(*(self._info_or_none(t, values, current) for t in ids))
        result = [i for i in infos if i is not None and (include_system or not i.is_system or i.current)]
        result.sort(key=lambda i: (not i.current, i.is_system, i.name))
        return result

    async def _info_or_none(self, thread_id: int, values: Values, current: int | None) -> ThreadInfo | None:
        try:
            return await self.info(thread_id, values, current)
        except JdwpError:
            return None  # the thread ended meanwhile
