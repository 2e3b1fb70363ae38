"""Who holds which lock and who waits for it: monitors and java.util.concurrent locks, and deadlock cycles.

Monitor edges come from CurrentContendedMonitor + MonitorInfo.owner; j.u.c. edges from a parked
thread's `parkBlocker` when it is an AbstractOwnableSynchronizer (its `exclusiveOwnerThread`).
The threads must be suspended to ask; the caller suspends the VM around `report()` when it runs.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...jdwp import ObjectReference, ThreadReference, Value
from ..model_heap import Deadlock, LockReport, ThreadLocks
from ..vm import Vm
from .objects import obj, safe
from .owners import owner_name
from .stack import is_library
from .threads import Threads, is_system
from .values import Values

APP_FRAME_SEARCH = 64  # frames searched for the first application frame (deep framework stacks)
MAX_NAMED_LOCKS = 16  # locks named by their owners per report (each name may walk the heap)


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
            idle_jvm_thread = is_system(entry.thread, None) and not entry.holds  # Finalizer waiting for work
            if (entry.holds or entry.waits_for is not None) and not idle_jvm_thread:
                report.threads.append(entry)
        # j.u.c. locks a thread holds are only visible from the waiting side: add them to the owner.
        for entry, _held, _waits, kind, owner in found:
            if kind == "park" and owner in by_id and entry.waits_for is not None:
                owner_entry = by_id[owner][0]
                if all(h.handle != entry.waits_for.handle for h in owner_entry.holds):
                    owner_entry.holds.append(entry.waits_for)
                if owner_entry not in report.threads:
                    report.threads.append(owner_entry)
        await self._name_locks(report)
        await asyncio.gather(*(self._where(entry) for entry in report.threads))
        report.deadlocks = self._cycles(edges, {e.thread_id: e for e, *_ in found})
        return report

    async def _name_locks(self, report: LockReport) -> None:
        """A lock object reads as what holds it ("ReentrantLock in Jobs$Account{…}.lock"), not as its class."""
        views = {v.handle: v for t in report.threads for v in [*t.holds, t.waits_for] if v is not None and v.handle}
        # Each name may cost heap walks (referring objects) while the VM is suspended: name the contended
        # locks first (a deadlock's), and only so many.
        contended = {t.waits_for.handle for t in report.threads if t.waits_for is not None}
        wanted = sorted(views, key=lambda h: h not in contended)[:MAX_NAMED_LOCKS]
        held = {h: self.values.handles.get(h) for h in wanted}
        names = await asyncio.gather(*(self._name(held[h]) for h in wanted))
        for handle, name in zip(wanted, names, strict=True):
            if name:
                for t in report.threads:
                    for v in [*t.holds, t.waits_for]:
                        if v is not None and v.handle == handle:
                            v.text = name

    async def _name(self, held: Any) -> str | None:
        name = await owner_name(self.values, held.object_id)
        if name is None:  # an application object names itself: show its fields, not just its class
            view = await self.values.view(Value(held.tag, held.object_id), None, 1)
            if view.kind in ("object", "record"):
                name = view.text.replace(f" {view.handle}", "") if view.handle else view.text
        return name

    async def _where(self, entry: ThreadLocks) -> None:
        """The thread's top frame in application code: where it holds or waits, in the program's terms."""
        frames = await safe(self.vm.send(ThreadReference.Frames, entry.thread_id, 0, -1))
        for f in (frames.frames if frames is not None else [])[:APP_FRAME_SEARCH]:
            loc = await safe(self.vm.code_location(f.location))
            if loc is not None and not is_library(loc.class_name):
                entry.at = loc
                return

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
