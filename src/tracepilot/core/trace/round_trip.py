"""Method-call tracing by round trip: MethodEntry/MethodExit requests with SuspendPolicy NONE for classes
matching a pattern (the fallback of in-JVM tracing, core/trace/). Memory stays bounded however many calls
happen: per-method counters, and per-thread call trees aggregated by call path with a cap on nodes and depth.

What the events can tell, and what they cannot:
- Every call is counted while the requests are in place, whatever max_calls says (it bounds what is recorded
  with arguments, which events do not carry).
- A call tree needs each exit matched with its entry, per thread. The exit request is set before the entry
  request: an entry without its exit (set later) would leave a frame open for ever, and a leaf called from a
  loop would nest in itself. An exit of a method not entered while tracing (already on the stack when the
  trace began) is ignored.
- JDWP reports no MethodExit for a frame an exception pops: Exception events (caught or not) say where the
  exception is caught, and the frames above the catching method are closed there, counted as thrown out.
- Times are not measured: each event costs the program far more than a small method takes (the JVM waits
  for the debugger to read it), so the wall time between two events says how slow the round trip is, not the
  method. In-JVM tracing measures them in the target.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from ...jdwp import EventKind, EventRequest, Mod, SuspendPolicy, ThreadReference, VirtualMachine
from ..instrument.naming import EXCLUDE_PATTERN as PROBE_EXCLUDE
from ..vm import Vm
from .tree import Key, Node, Stat, Trees

MAX_METHODS = 5_000
MAX_NODES = 20_000
MAX_DEPTH = 256


class Tracer:
    def __init__(self, vm: Vm, patterns: list[str], max_calls: int) -> None:
        self.vm = vm
        self.patterns = patterns
        self.max_calls = max_calls
        self.requests: dict[int, int] = {}  # request id -> event kind
        self.calls = 0
        self.trees = Trees()
        self.stacks: dict[int, list[tuple[Node | None, Key]]] = {}
        self.nodes = 0
        self.dropped = 0
        self.closed = False
        self.deadline = float("inf")  # set when the requests are in (time.monotonic())
        self.names: dict[Key, str] = {}
        self.thread_names: dict[int, str] = {}
        self._lookups: set[asyncio.Future[None]] = set()

    @property
    def request_ids(self) -> set[int]:
        return set(self.requests)

    async def install(self) -> None:
        # Exits first (see the module's doc), the exceptions that pop frames without an exit, then entries.
        for kind in (EventKind.METHOD_EXIT, EventKind.METHOD_ENTRY):
            if kind == EventKind.METHOD_ENTRY:
                reply = await self.vm.send(EventRequest.Set, EventKind.EXCEPTION, SuspendPolicy.NONE,
                                           [Mod.ExceptionOnly(0, True, True)])
                self.requests[reply.request_id] = EventKind.EXCEPTION
            for pattern in self.patterns:
                # A pattern over a package would match the in-JVM probes beside its classes: never trace those.
                reply = await self.vm.send(EventRequest.Set, kind, SuspendPolicy.NONE,
                                           [Mod.ClassMatch(pattern), Mod.ClassExclude(PROBE_EXCLUDE)])
                self.requests[reply.request_id] = kind

    async def uninstall(self) -> None:
        """Clear the requests. While a hot method floods the connection with events, the JVM answers a Clear
        only after seconds (its event writers hold the lock the command needs): the program is held for
        the few milliseconds of the Clears, then released (its own suspend, undone at once)."""
        self.closed = True
        try:
            await self.vm.send(VirtualMachine.Suspend)
        except Exception:
            return  # the VM is gone
        try:
            await asyncio.gather(*(self.vm.send(EventRequest.Clear, kind, rid)
                                   for rid, kind in self.requests.items()), return_exceptions=True)
        finally:
            with contextlib.suppress(Exception):
                await self.vm.send(VirtualMachine.Resume)

    def owns(self, composite: Any) -> bool:
        return bool(composite.events) and all(getattr(e, "request_id", None) in self.requests
                                              for e in composite.events)

    def take(self, composite: Any) -> bool:
        """Handle the tracer's events of `composite`; True if it held nothing else. A packet can mix them with
        the session's (a method breakpoint reports its entry in the packet of the trace's MethodEntry): those
        are the session's to handle, which passes over the tracer's events (their requests are not its own)."""
        mine = [e for e in composite.events if getattr(e, "request_id", None) in self.requests]
        if mine:
            self.handle_events(mine)
        return bool(mine) and len(mine) == len(composite.events)

    def handle(self, composite: Any) -> None:
        self.handle_events(composite.events)

    def handle_events(self, events: Any) -> None:
        if self.closed:
            return  # after the deadline: events still in the pipe are not the trace's
        if time.monotonic() >= self.deadline:
            self.closed = True  # the event loop may see the deadline late under a flood of events
            return
        for event in events:
            kind = type(event).KIND
            loc = event.location
            if kind == EventKind.METHOD_ENTRY:
                self._enter(event.thread, (loc.class_id, loc.method_id))
            elif kind == EventKind.EXCEPTION:
                self._caught(event.thread, event.catch_location)
            else:
                self._exit(event.thread, (loc.class_id, loc.method_id))

    def _enter(self, thread: int, key: Key) -> None:
        self.calls += 1
        trees = self.trees
        if thread not in trees.per_thread:
            trees.per_thread[thread] = 0
            self._lookup(self._resolve_thread(thread))
        trees.per_thread[thread] += 1
        stat = trees.stats.get(key)
        if stat is None:
            if len(trees.stats) >= MAX_METHODS:
                self.dropped += 1
            else:
                stat = trees.stats[key] = Stat()
                self._lookup(self._resolve_name(key))
        if stat is not None:
            stat.calls += 1
        stack = self.stacks.setdefault(thread, [])
        parent = stack[-1][0] if stack else trees.roots.setdefault(thread, Node())
        node = None
        if parent is not None and len(stack) < MAX_DEPTH:
            node = parent.children.get(key)
            if node is None and self.nodes < MAX_NODES:
                node = parent.children[key] = Node()
                self.nodes += 1
            elif node is None:
                self.dropped += 1
        if node is not None:
            node.calls += 1
        stack.append((node, key))

    def _exit(self, thread: int, key: Key) -> None:
        stack = self.stacks.get(thread)
        if not stack or not any(k == key for _, k in stack):
            return  # a call that began before tracing did
        while stack:
            _, k = stack.pop()
            if k == key:
                return

    def _caught(self, thread: int, catch: Any) -> None:
        """An exception thrown in the thread: the traced frames above the catching method are popped (JDWP
        sends no exit for them). Caught in an untraced method: which traced frames lie above it is unknown,
        their exits' unwinding closes them later; uncaught: the thread's frames all end."""
        stack = self.stacks.get(thread)
        if not stack:
            return
        if catch is None or not catch.class_id:
            depth = 0
        else:
            key = (catch.class_id, catch.method_id)
            depth = next((i + 1 for i in range(len(stack) - 1, -1, -1) if stack[i][1] == key), None)
            if depth is None:
                return
        while len(stack) > depth:
            _, k = stack.pop()
            stat = self.trees.stats.get(k)
            if stat is not None:
                stat.thrown += 1

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
            await asyncio.wait(list(self._lookups), timeout=2)  # behind a flood of events: placeholders

    def name(self, key: Key) -> str:
        return self.names.get(key, f"<method {key[1]}>")

    def thread_name(self, thread: int) -> str:
        return self.thread_names.get(thread, f"thread-{thread}")


def tap_events(session: Any, tracer: Tracer) -> Callable[[], None]:
    """Route the tracer's events to it, ahead of the session's own handling; returns the undo."""

    def take(composite: Any) -> bool:
        if not tracer.take(composite):
            return False
        if composite.suspend_policy != SuspendPolicy.NONE:
            _release_share(session.conn, composite)
        return True

    add_tap = getattr(session, "add_event_tap", None)
    if add_tap is not None:
        return add_tap(take)
    # Fallback until the session offers taps: wrap its per-composite handler on this instance.
    original = session._process_composite

    async def process(composite: Any) -> None:
        if tracer.take(composite):
            return  # SuspendPolicy NONE: nothing to resume
        await original(composite)

    session._process_composite = process

    def undo() -> None:
        if session.__dict__.get("_process_composite") is process:
            del session._process_composite

    return undo


def _release_share(conn: Any, composite: Any) -> None:
    """The trace's events suspend nothing, but a packet they share with a guest debugger's suspending event (a
    method breakpoint's entry) comes with a suspension made for the session's share (core/foreign.py): the
    trace takes the packet, so it lets that go, or every thread stayed held once more after the guest resumed
    its own (the program never went on or exited)."""
    if conn is None or conn.is_closed:
        return
    if composite.suspend_policy == SuspendPolicy.ALL:
        conn.send_unanswered(VirtualMachine.Resume)
    else:
        thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
        if not thread:
            return
        conn.send_unanswered(ThreadReference.Resume, thread)
    conn.flush()
