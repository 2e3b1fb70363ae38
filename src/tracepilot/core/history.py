"""The event history: one bounded ring of everything that happened, with sequence numbers and actors.

Front ends subscribe to see new records as they arrive (the TUI's event log, the share socket).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from .inspect.threads import is_system
from .model import Actor, EventRecord

Listener = Callable[[EventRecord], None]

# What a stop answer reports of the way to the stop: what the program logged and what happened to it,
# not the debugger's own bookkeeping (breakpoints set, resumes, evaluations).
NOTABLE_KINDS = frozenset({
    "log", "capture", "exception", "thread_start", "thread_death", "breakpoint_throttled", "condition_hot",
    "breakpoint_armed", "stop_queued", "suppressed", "error", "vm_death",
})


class EventHistory:
    def __init__(self, capacity: int = 10_000, redactor: Callable[[Any], Any] | None = None) -> None:
        # --redact: a record is redacted as it is added (what listeners get) and again as it is read (a secret
        # learned since may occur in an older record)
        self._redact = redactor or (lambda value: value)
        self._ring: deque[EventRecord] = deque(maxlen=capacity)
        self._seq = 0
        self._listeners: list[Listener] = []
        self._internal: set[int] = set()  # ids of listeners that only keep the debugger's books (subscribe)
        self._dropped = 0  # records pushed out of the ring
        self._read_up_to: dict[str, int] = {}  # reader -> last sequence number it was given
        # Records made just after the moment they record (add_soon), in order; added before anything else
        # adds, reads or subscribes: nobody ever sees the history without them, or them out of order.
        self._pending: list[tuple[str, Callable[[], tuple[str, dict[str, Any]]], Actor, float]] = []

    @property
    def last_seq(self) -> int:
        if self._pending:
            self.flush()
        return self._seq

    @property
    def dropped(self) -> int:
        if self._pending:
            self.flush()
        return self._dropped

    def advance_to(self, seq: int) -> None:
        """Number the next record after `seq` at least: a mirror of another session's history (share/client.py)
        continues that session's numbering, so cursors handed out there stay valid here."""
        self.flush()
        self._seq = max(self._seq, seq)

    def add(self, kind: str, text: str, actor: Actor = Actor.TARGET, **data: Any) -> EventRecord:
        if self._pending:
            self.flush()
        return self._add(kind, text, actor, data, time.time())

    def add_soon(self, kind: str, make: Callable[[], tuple[str, dict[str, Any]]], actor: Actor = Actor.TARGET) -> None:
        """A record whose text and data are made a moment later: as soon as the code now running yields to the
        event loop, or before the next add, read or subscription, whichever comes first. A stop's record
        (its headline, its data, every listener's work) costs ~0.02 ms that the call waiting for the stop
        need not wait for (issue 32, resume -> stop)."""
        if not self._pending:
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:  # (no loop: now)
                text, data = make()
                self._add(kind, text, actor, data, time.time())
                return
        self._pending.append((kind, make, actor, time.time()))

    def flush(self) -> None:
        """Add the records add_soon deferred, in their order."""
        while self._pending:
            kind, make, actor, when = self._pending.pop(0)
            try:
                text, data = make()
            except Exception as exc:  # (made outside the handler that would have said so: said here)
                text, data, kind = f"internal error while recording a {kind}: {exc!r}", {}, "error"
            self._add(kind, text, actor, data, when)

    def _add(self, kind: str, text: str, actor: Actor, data: dict[str, Any], when: float) -> EventRecord:
        self._seq += 1
        if len(self._ring) == self._ring.maxlen:
            self._dropped += 1
        record = self._redact(EventRecord(self._seq, when, kind, actor, text, data))
        self._ring.append(record)
        for listener in list(self._listeners):
            try:
                listener(record)
            except Exception:  # a broken listener must not break the debugger
                self._listeners.remove(listener)
        return record

    def since(self, seq: int = 0, kinds: Iterable[str] | None = None, limit: int | None = None) -> list[EventRecord]:
        if self._pending:
            self.flush()
        wanted = set(kinds) if kinds else None
        records = [r for r in self._ring if r.seq > seq and (wanted is None or r.kind in wanted)]
        if limit is not None and len(records) > limit:
            records = records[:limit]
        return self._redact(records)

    def unseen(self, reader: str, kinds: Iterable[str] = NOTABLE_KINDS) -> tuple[int, list[EventRecord]]:
        """Records of `kinds` since `reader` last asked, and mark everything up to now as seen by it: what
        happened between two answers of one front end. Returns (the cursor it started from, the records)."""
        start = self._read_up_to.get(reader, 0)
        self._read_up_to[reader] = self.last_seq
        return start, [r for r in self.since(start, kinds) if not _jvm_thread_event(r)]

    def clear(self) -> None:
        self.flush()  # (what came before the clear goes with it, to its listeners first)
        self._ring.clear()

    @property
    def followed(self) -> bool:
        """Someone follows the records as they come (a TUI, REPL, DAP or share front end subscribed)."""
        return any(id(listener) not in self._internal for listener in self._listeners)

    def subscribe(self, listener: Listener, follows: bool = True) -> Callable[[], None]:
        """`follows` False: the debugger's own bookkeeping, not a reader of the records as they come (the
        capture ring is read at once only for those, see capture/in_probe.py)."""
        self.flush()  # (a new listener starts after what happened before it)
        self._listeners.append(listener)
        if not follows:
            self._internal.add(id(listener))

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if listener not in self._listeners:
                self._internal.discard(id(listener))

        return unsubscribe


_THREAD_EVENT = re.compile(r"thread (.+) (?:started|ended)$")


def _jvm_thread_event(record: EventRecord) -> bool:
    """The JVM's own threads starting and ending (Common-Cleaner, Notification Thread) are not news."""
    if record.kind not in ("thread_start", "thread_death"):
        return False
    found = _THREAD_EVENT.match(record.text)
    return found is not None and is_system(found.group(1), None)
