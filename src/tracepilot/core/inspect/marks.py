"""Marks: objects pinned under a label (`$order`), usable in every expression. Survive reset, not detach."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidArgument, NotFound
from .handles import HandleTable, Held

_LABEL = re.compile(r"^[A-Za-z_][\w]*$")


@dataclass
class Mark:
    label: str
    held: Held


class Marks:
    def __init__(self, handles: HandleTable) -> None:
        self.handles = handles
        self._marks: dict[str, Mark] = {}

    @staticmethod
    def clean(label: str) -> str:
        text = label.strip().removeprefix("$")
        if not _LABEL.match(text):
            raise InvalidArgument(f"'{label}' is not a mark label", "use letters, digits and _, e.g. order or $order")
        return text

    def add(self, label: str, held: Held) -> Mark:
        label = self.clean(label)
        old = self._marks.get(label)
        if old is not None:
            old.held.pinned -= 1
        held.pinned += 1
        mark = Mark(label, held)
        self._marks[label] = mark
        return mark

    def get(self, label: str) -> Mark:
        text = label.strip().removeprefix("$")
        mark = self._marks.get(text)
        if mark is None:
            from ..locations import suggest

            raise NotFound(f"no mark ${text}", [f"${s}" for s in suggest(text, list(self._marks))],
                           "" if self._marks else "mark an object first (mark TARGET LABEL)")
        return mark

    def remove(self, label: str) -> Mark:
        mark = self.get(label)
        del self._marks[mark.label]
        mark.held.pinned -= 1
        if mark.held.pinned <= 0:
            self.handles.release(mark.held.name)
        return mark

    def rename(self, old: str, new: str) -> Mark:
        mark = self.get(old)
        new = self.clean(new)
        if new in self._marks and new != mark.label:
            raise InvalidArgument(f"${new} already exists", "unmark it first or pick another label")
        del self._marks[mark.label]
        mark.label = new
        self._marks[new] = mark
        return mark

    def all(self) -> list[Mark]:
        return list(self._marks.values())

    def forget(self) -> None:
        self._marks.clear()
