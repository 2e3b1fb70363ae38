"""Stable object handles (`@12`) that survive resumes.

JDWP object ids stay valid only while the object lives; a handle pins its object with DisableCollection
while held and releases it (EnableCollection) when dropped, so `@12` means the same object until reset.
The table is bounded: past `capacity` the oldest unpinned handles are released.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ...jdwp import JdwpConnection, ObjectReference, Tag
from ..errors import NotFound


@dataclass
class Held:
    number: int
    object_id: int
    tag: Tag
    pinned: int = 0  # marks referring to it; pinned handles survive reset and eviction

    @property
    def name(self) -> str:
        return f"@{self.number}"


def _ignore_reply(future: Any) -> None:
    if not future.cancelled():
        future.exception()  # a collected object or a dead VM: nothing to do, but retrieve it


class HandleTable:
    def __init__(self, capacity: int = 20_000) -> None:
        self.capacity = capacity
        self._by_object: OrderedDict[int, Held] = OrderedDict()
        self._by_number: dict[int, Held] = {}
        self._next = 1
        self.conn: JdwpConnection | None = None

    def __len__(self) -> int:
        return len(self._by_number)

    def _send(self, command: Any, object_id: int) -> None:
        # Fire and forget: JDWP handles commands of one connection in order, so the pin lands before
        # any later request, and nobody waits on a round trip per object shown.
        conn = self.conn
        if conn is None or conn.is_closed:
            return
        try:
            conn.send_nowait(command, object_id).add_done_callback(_ignore_reply)
        except Exception:
            pass

    def handle(self, object_id: int, tag: Tag) -> Held:
        held = self._by_object.get(object_id)
        if held is not None:
            self._by_object.move_to_end(object_id)
            return held
        held = Held(self._next, object_id, tag)
        self._next += 1
        self._by_object[object_id] = held
        self._by_number[held.number] = held
        self._send(ObjectReference.DisableCollection, object_id)
        if len(self._by_object) > self.capacity:
            self._evict()
        return held

    def _evict(self) -> None:
        for object_id, held in list(self._by_object.items()):
            if len(self._by_object) <= self.capacity * 3 // 4:
                break
            if not held.pinned:
                self._drop(object_id)

    def _drop(self, object_id: int) -> None:
        held = self._by_object.pop(object_id, None)
        if held is not None:
            self._by_number.pop(held.number, None)
            self._send(ObjectReference.EnableCollection, object_id)

    def get(self, name: str) -> Held:
        text = name.strip().removeprefix("@")
        held = self._by_number.get(int(text)) if text.isdigit() else None
        if held is None:
            raise NotFound(f"no object handle {name}",
                           hint="handles come from values shown at a stop (e.g. @3); they are dropped on reset")
        return held

    def held(self, name: str) -> Held | None:
        """The handle named `name` exactly as shown (`@12`), or None: `get` without its forgiving parse."""
        number = name[1:]
        return self._by_number.get(int(number)) if name[:1] == "@" and number.isdigit() else None

    def by_object(self, object_id: int) -> Held | None:
        return self._by_object.get(object_id)

    def release(self, name: str) -> None:
        held = self.get(name)
        if not held.pinned:
            self._drop(held.object_id)

    def release_all(self) -> None:
        """Drop every handle not pinned by a mark (reset)."""
        for object_id, held in list(self._by_object.items()):
            if not held.pinned:
                self._drop(object_id)

    def forget(self) -> None:
        """The VM is gone: its ids mean nothing now; nothing to release. Numbering starts again at @1, so a
        new session's handles don't continue the last one's (no handle of the old VM can be confused with
        a new one: they were all dropped here)."""
        self._by_object.clear()
        self._by_number.clear()
        self._next = 1
        self.conn = None
