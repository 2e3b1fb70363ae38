"""Watch expressions: evaluated at every stop (or only at one breakpoint's stops), with a bounded history."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from ..errors import NotFound
from ..model import ValueView, WatchInfo, WatchSample

HISTORY = 100


@dataclass
class Watch:
    id: str
    expression: str
    breakpoint: str | None
    value: ValueView | None = None
    error: str | None = None
    changed: bool = False
    history: deque[WatchSample] = field(default_factory=lambda: deque(maxlen=HISTORY))

    def applies(self, breakpoint_ids: list[str]) -> bool:
        return self.breakpoint is None or self.breakpoint in breakpoint_ids

    def record(self, value: ValueView | None, error: str | None, stop_seq: int) -> None:
        text = error if error is not None else (value.text if value else "")
        previous = self.history[-1] if self.history else None
        self.changed = previous is not None and (previous.text != text or previous.error != (error is not None))
        self.value, self.error = value, error
        self.history.append(WatchSample(text, time.time(), stop_seq, error is not None))

    def info(self) -> WatchInfo:
        return WatchInfo(self.id, self.expression, self.breakpoint, self.value, self.error, self.changed,
                         list(self.history))


class Watchers:
    def __init__(self) -> None:
        self._watches: dict[str, Watch] = {}
        self._next = 1

    def add(self, expression: str, breakpoint: str | None) -> Watch:
        watch = Watch(f"w{self._next}", expression.strip(), breakpoint)
        self._next += 1
        self._watches[watch.id] = watch
        return watch

    def remove(self, id_or_expression: str) -> Watch:
        key = id_or_expression.strip()
        watch = self._watches.pop(key, None)
        if watch is None:
            for w in list(self._watches.values()):
                if w.expression == key:
                    watch = self._watches.pop(w.id)
                    break
        if watch is None:
            raise NotFound(f"no watch {key}", [w.id for w in self._watches.values()], "watches lists them")
        return watch

    def all(self) -> list[Watch]:
        return list(self._watches.values())

    def clear(self) -> None:
        self._watches.clear()
        self._next = 1
