"""Method-call tracing without stopping the program: MethodEntry/MethodExit requests with SuspendPolicy
NONE for classes matching a pattern. Memory stays bounded however many calls happen: per-method counters,
and per-thread call trees aggregated by call path with a cap on nodes and depth.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from ...jdwp import EventKind, EventRequest, JdwpError, Mod, SuspendPolicy
from ..instrument.naming import EXCLUDE_PATTERN as PROBE_EXCLUDE
from ..model import CallNode, MethodStats, TraceResult
from ..vm import Vm

MAX_METHODS = 5_000
MAX_NODES = 20_000
MAX_DEPTH = 256
TREE_DEPTH_SHOWN = 12
TREE_CHILDREN_SHOWN = 15
METHODS_SHOWN = 50

Key = tuple[int, int]  # (class id, method id)


class _Node:
    __slots__ = ("calls", "total", "children")

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0
        self.children: dict[Key, _Node] = {}


class Tracer:
    def __init__(self, vm: Vm, patterns: list[str], max_calls: int) -> None:
        self.vm = vm
        self.patterns = patterns
        self.max_calls = max_calls
        self.request_ids: set[int] = set()
        self.calls = 0
        self.stats: dict[Key, list[int]] = {}  # key -> [calls, completed, total ns]
        self.roots: dict[int, _Node] = {}  # thread -> root of its call tree
        self.stacks: dict[int, list[tuple[_Node | None, int, Key]]] = {}
        self.per_thread: dict[int, int] = {}
        self.nodes = 0
        self.dropped = 0
        self.done = asyncio.Event()
        self.stopped_by = "duration"
        self.closed = False
        self.names: dict[Key, str] = {}
        self.thread_names: dict[int, str] = {}
        self._lookups: set[asyncio.Future[None]] = set()

    async def install(self) -> None:
        for pattern in self.patterns:
            for kind in (EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT):
                # A pattern over a package would match the in-JVM probes beside its classes: never trace those.
                reply = await self.vm.send(EventRequest.Set, kind, SuspendPolicy.NONE,
                                           [Mod.ClassMatch(pattern), Mod.ClassExclude(PROBE_EXCLUDE)])
                self.request_ids.add(reply.request_id)

    async def uninstall(self) -> None:
        self.closed = True
        for rid in list(self.request_ids):
            for kind in (EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT):
                try:
                    await self.vm.send(EventRequest.Clear, kind, rid)
                except JdwpError:
                    pass
                except Exception:
                    return  # the VM is gone

    def owns(self, composite: Any) -> bool:
        return bool(composite.events) and all(getattr(e, "request_id", None) in self.request_ids
                                              for e in composite.events)

    def handle(self, composite: Any) -> None:
        now = time.perf_counter_ns()
        if self.closed:
            return
        for event in composite.events:
            kind = type(event).KIND
            loc = event.location
            key = (loc.class_id, loc.method_id)
            if kind == EventKind.METHOD_ENTRY:
                self._enter(event.thread, key, now)
            else:
                self._exit(event.thread, key, now)
        if self.calls >= self.max_calls and not self.done.is_set():
            self.stopped_by = "max_calls"
            self.done.set()

    def _enter(self, thread: int, key: Key, now: int) -> None:
        self.calls += 1
        if thread not in self.per_thread:
            self.per_thread[thread] = 0
            self._lookup(self._resolve_thread(thread))
        self.per_thread[thread] += 1
        stat = self.stats.get(key)
        if stat is None:
            if len(self.stats) >= MAX_METHODS:
                self.dropped += 1
            else:
                stat = self.stats[key] = [0, 0, 0]
                self._lookup(self._resolve_name(key))
        if stat is not None:
            stat[0] += 1
        stack = self.stacks.setdefault(thread, [])
        parent = stack[-1][0] if stack else self.roots.setdefault(thread, _Node())
        node = None
        if parent is not None and len(stack) < MAX_DEPTH:
            node = parent.children.get(key)
            if node is None and self.nodes < MAX_NODES:
                node = parent.children[key] = _Node()
                self.nodes += 1
            elif node is None:
                self.dropped += 1
        if node is not None:
            node.calls += 1
        stack.append((node, now, key))

    def _exit(self, thread: int, key: Key, now: int) -> None:
        stack = self.stacks.get(thread)
        if not stack:
            return  # the call began before tracing did
        # Unwind to the matching frame (exits of untraced or exception-popped frames can be missing).
        while stack:
            node, start, k = stack.pop()
            elapsed = now - start
            if node is not None:
                node.total += elapsed
            if k == key:
                stat = self.stats.get(k)
                if stat is not None:
                    stat[1] += 1
                    stat[2] += elapsed
                return

    def _lookup(self, coro: Any) -> None:
        # Names are looked up while the VM lives: a short trace may outlive its program.
        task = asyncio.ensure_future(coro)
        self._lookups.add(task)
        task.add_done_callback(self._lookups.discard)

    async def _resolve_name(self, key: Key) -> None:
        try:
            info = await self.vm.type(key[0])
            method = await self.vm.method(key[0], key[1])
            self.names[key] = f"{info.name}.{method.display()}"
        except Exception:
            pass

    async def _resolve_thread(self, thread: int) -> None:
        try:
            self.thread_names[thread] = await self.vm.thread_name(thread)
        except Exception:
            pass

    async def settle(self) -> None:
        if self._lookups:
            await asyncio.wait(list(self._lookups), timeout=5)

    async def _name(self, key: Key, cache: dict[Key, str]) -> str:
        return self.names.get(key, f"<method {key[1]}>")

    async def result(self, pattern: str, duration_ms: float) -> TraceResult:
        await self.settle()
        names: dict[Key, str] = {}
        ranked = sorted(self.stats.items(), key=lambda kv: (-kv[1][2], -kv[1][0]))[:METHODS_SHOWN]
        methods = []
        for key, (calls, completed, total) in ranked:
            mean = total / completed / 1000 if completed else 0.0
            methods.append(MethodStats(await self._name(key, names), calls, round(total / 1e6, 3), round(mean, 3)))
        busiest = max(self.per_thread, key=lambda t: self.per_thread[t], default=None)
        tree: list[CallNode] = []
        thread_name = None
        if busiest is not None:
            thread_name = self.thread_names.get(busiest, f"thread-{busiest}")
            root = self.roots.get(busiest)
            if root is not None:
                tree = await self._tree(root, names, 0)
        return TraceResult(pattern, self.calls, round(duration_ms, 1), methods, thread_name, tree, self.stopped_by,
                           self.dropped)

    async def _tree(self, node: _Node, names: dict[Key, str], depth: int) -> list[CallNode]:
        if depth >= TREE_DEPTH_SHOWN:
            return []
        kids = sorted(node.children.items(), key=lambda kv: (-kv[1].total, -kv[1].calls))[:TREE_CHILDREN_SHOWN]
        return [CallNode(await self._name(k, names), child.calls, round(child.total / 1e6, 3),
                         await self._tree(child, names, depth + 1)) for k, child in kids]


def tap_events(session: Any, tracer: Tracer) -> Callable[[], None]:
    """Route the tracer's events to it, ahead of the session's own handling; returns the undo."""
    add_tap = getattr(session, "add_event_tap", None)
    if add_tap is not None:
        return add_tap(lambda composite: tracer.owns(composite) and (tracer.handle(composite) or True))
    # Fallback until the session offers taps: wrap its per-composite handler on this instance.
    original = session._process_composite

    async def process(composite: Any) -> None:
        if tracer.owns(composite):
            tracer.handle(composite)  # SuspendPolicy NONE: nothing to resume
            return
        await original(composite)

    session._process_composite = process

    def undo() -> None:
        if session.__dict__.get("_process_composite") is process:
            del session._process_composite

    return undo
