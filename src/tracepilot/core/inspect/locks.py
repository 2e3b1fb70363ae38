"""Who holds which lock and who waits for it: monitors and java.util.concurrent locks, and deadlock cycles.

Monitor edges come from CurrentContendedMonitor + MonitorInfo.owner; j.u.c. edges from a parked
thread's `parkBlocker` when it is an AbstractOwnableSynchronizer (its `exclusiveOwnerThread`).
The threads must be suspended to ask; the caller suspends the VM around `report()` when it runs.
"""

from __future__ import annotations

import asyncio

from ...jdwp import ObjectReference, ThreadReference, Value
from ..model import Deadlock, LockReport, ThreadLocks
from ..vm import Vm
from .objects import obj, safe
from .threads import Threads
from .values import Values


class Locks:
    def __init__(self, vm: Vm, threads: Threads, values: Values) -> None:
        self.vm = vm
        self.threads = threads
        self.values = values

    async def _one(self, tid: int) -> tuple[ThreadLocks, list[Value], Value | None, str | None, int | None] | None:
        vm, o = self.vm, self.values.objects
        try:
            name = await vm.thread_name(tid)
            state, _ = await self.threads.status(tid)
        except Exception:
            return None
        owned = await safe(vm.send(ThreadReference.OwnedMonitors, tid))
        held = list(owned.owned) if owned is not None else []
        waits: Value | None = None
        kind: str | None = None
        owner: int | None = None
        if state in ("blocked", "waiting"):
            contended = await safe(vm.send(ThreadReference.CurrentContendedMonitor, tid))
            if contended is not None and not contended.monitor.is_null:
                waits = contended.monitor
                kind = "monitor" if state == "blocked" else "wait"
                if kind == "monitor":
                    info = await safe(vm.send(ObjectReference.MonitorInfo, waits.value))
                    owner = info.owner if info is not None and info.owner else None
        if waits is None and state == "waiting":
            blocker = await safe(o.get1(tid, "parkBlocker"))
            if blocker is not None and obj(blocker):
                waits, kind = blocker, "park"
                if await o.is_a(obj(blocker), "java.util.concurrent.locks.AbstractOwnableSynchronizer"):
                    exclusive = await o.get1(obj(blocker), "exclusiveOwnerThread")
                    owner = obj(exclusive) or None
        entry = ThreadLocks(name, tid, state, wait_kind=kind, owner_id=owner)
        return entry, held, waits, kind, owner

    async def report(self) -> LockReport:
        ids = await self.threads.all_ids()
        found = [r for r in await asyncio.gather(*(self._one(t) for t in ids)) if r is not None]
        by_id = {r[0].thread_id: r for r in found}
        report = LockReport()
        edges: dict[int, int] = {}
        for entry, held, waits, _kind, owner in found:
            entry.holds = [await self.values.view(m, None, 2) for m in held]
            if waits is not None:
                entry.waits_for = await self.values.view(waits, None, 2)
            if owner:
                entry.owner = await self.vm.thread_name(owner)
                edges[entry.thread_id] = owner
            if entry.holds or entry.waits_for is not None:
                report.threads.append(entry)
        # j.u.c. locks a thread holds are only visible from the waiting side: add them to the owner.
        for entry, _held, _waits, kind, owner in found:
            if kind == "park" and owner in by_id and entry.waits_for is not None:
                owner_entry = by_id[owner][0]
                if all(h.handle != entry.waits_for.handle for h in owner_entry.holds):
                    owner_entry.holds.append(entry.waits_for)
                if owner_entry not in report.threads:
                    report.threads.append(owner_entry)
        report.deadlocks = self._cycles(edges, {e.thread_id: e for e, *_ in found})
        return report

    @staticmethod
    def _cycles(edges: dict[int, int], entries: dict[int, ThreadLocks]) -> list[Deadlock]:
        seen: set[int] = set()
        deadlocks = []
        for start in edges:
            if start in seen:
                continue
            path: list[int] = []
            node = start
            while node in edges and node not in path and node not in seen:
                path.append(node)
                node = edges[node]
            seen.update(path)
            if node in path:
                cycle = path[path.index(node):]
                deadlocks.append(Deadlock([entries[t].thread for t in cycle], _describe(cycle, edges, entries)))
        return deadlocks


def _describe(cycle: list[int], edges: dict[int, int], entries: dict[int, ThreadLocks]) -> str:
    parts = []
    for tid in cycle:
        me = entries[tid]
        owner = entries[edges[tid]]
        # What this thread holds that matters: the lock its predecessor in the cycle waits for.
        waiter = next(entries[t] for t in cycle if edges[t] == tid)
        holds = waiter.waits_for.text if waiter.waits_for else "a lock"
        wants = me.waits_for.text if me.waits_for else "a lock"
        parts.append(f"thread {me.thread} holds {holds}, waits for {wants} held by thread {owner.thread}")
    return "; ".join(parts)
