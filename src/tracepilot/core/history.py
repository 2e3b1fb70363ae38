"""The event history: one bounded ring of everything that happened, with sequence numbers and actors.

Front ends subscribe to see new records as they arrive (the TUI's event log, the share socket).
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from .inspect.threads import is_system
from .model import Actor, EventRecord, StopReason

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
        self.dropped = 0  # records pushed out of the ring
        self._read_up_to: dict[str, int] = {}  # reader -> last sequence number it was given

    @property
    def last_seq(self) -> int:
        return self._seq

    def advance_to(self, seq: int) -> None:
        """Number the next record after `seq` at least: a mirror of another session's history (share/client.py)
        continues that session's numbering, so cursors handed out there stay valid here."""
        self._seq = max(self._seq, seq)

    def add(self, kind: str, text: str, actor: Actor = Actor.TARGET, **data: Any) -> EventRecord:
        self._seq += 1
        return self._push(EventRecord(self._seq, time.time(), kind, actor, text, data))

    def add_stop(self, stop: StopReason) -> EventRecord:
        """add("stop", stop.headline(), stop=stop.to_dict()), its text and plain form made when first read
        (StopRecord): the same record, made off the way from the stop's event to the waiting call."""
        self._seq += 1
        return self._push(StopRecord(self._seq, time.time(), stop=stop))

    def _push(self, record: EventRecord) -> EventRecord:
        if len(self._ring) == self._ring.maxlen:
            self.dropped += 1
        record = self._redact(record)
        self._ring.append(record)
        for listener in list(self._listeners):
            try:
                listener(record)
            except Exception:  # a broken listener must not break the debugger
                self._listeners.remove(listener)
        return record

    def since(self, seq: int = 0, kinds: Iterable[str] | None = None, limit: int | None = None) -> list[EventRecord]:
        wanted = set(kinds) if kinds else None
        records = [r for r in self._ring if r.seq > seq and (wanted is None or r.kind in wanted)]
        if limit is not None and len(records) > limit:
            records = records[:limit]
        return self._redact(records)

    def unseen(self, reader: str, kinds: Iterable[str] = NOTABLE_KINDS) -> tuple[int, list[EventRecord]]:
        """Records of `kinds` since `reader` last asked, and mark everything up to now as seen by it: what
        happened between two answers of one front end. Returns (the cursor it started from, the records)."""
        start = self._read_up_to.get(reader, 0)
        self._read_up_to[reader] = self._seq
        return start, [r for r in self.since(start, kinds) if not _jvm_thread_event(r)]

    def clear(self) -> None:
        self._ring.clear()

    @property
    def followed(self) -> bool:
        """Someone follows the records as they come (a TUI, REPL, DAP or share front end subscribed)."""
        return any(id(listener) not in self._internal for listener in self._listeners)

    def subscribe(self, listener: Listener, follows: bool = True) -> Callable[[], None]:
        """`follows` False: the debugger's own bookkeeping, not a reader of the records as they come (the
        capture ring is read at once only for those, see capture/in_probe.py)."""
        self._listeners.append(listener)
        if not follows:
            self._internal.add(id(listener))

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
            if listener not in self._listeners:
                self._internal.discard(id(listener))

        return unsubscribe


class StopRecord(EventRecord):
    """A stop's record ("stop", the stop's headline, data {"stop": its plain form}) whose text and data are made
    when first read, from a copy of the stop taken as it was recorded: the same record as the eager one, with the
    headline and the plain form (~0.4 of the ~5,800 Python bytecodes per resume -> stop) made after the waiting
    call has its answer, or never when nobody reads the record."""

    def __init__(self, seq: int, time: float, kind: str = "stop", actor: Actor = Actor.TARGET,
                 text: str | None = None, data: dict[str, Any] | None = None, *, stop: StopReason | None = None) -> None:
        # (the fields' signature too: dataclasses.replace and redaction make records with it)
        self.seq, self.time, self.kind, self.actor = seq, time, kind, actor
        self._text, self._data = text, data
        self._stop = _copy_of(stop) if stop is not None else None

    @property  # type: ignore[override]
    def text(self) -> str:
        if self._text is None:
            self._text = self._stop.headline() if self._stop is not None else ""
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value

    @property  # type: ignore[override]
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {"stop": self._stop.to_dict()} if self._stop is not None else {}
        return self._data

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self._data = value


def _copy_of(stop: StopReason) -> StopReason:
    """The stop as it is now (its fields are replaced later, never changed in place: a pop moves the current
    stop's location, several targets name its target)."""
    copy = StopReason.__new__(StopReason)
    copy.__dict__.update(stop.__dict__)
    return copy


_THREAD_EVENT = re.compile(r"thread (.+) (?:started|ended)$")


def _jvm_thread_event(record: EventRecord) -> bool:
    """The JVM's own threads starting and ending (Common-Cleaner, Notification Thread) are not news."""
    if record.kind not in ("thread_start", "thread_death"):
        return False
    found = _THREAD_EVENT.match(record.text)
    return found is not None and is_system(found.group(1), None)
