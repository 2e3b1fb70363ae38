"""Numeric ids for DAP's frameId and variablesReference: valid while the program stays stopped.

DAP clients refer to frames and expandable values by small integers; the core names them by
(thread, frame index) and by object handle. A resume invalidates them all (the frames are gone), so the
table is cleared then and ids start again above the last one handed out (a stale id never aliases).
"""

from __future__ import annotations

from typing import Any


class Handles:
    def __init__(self) -> None:
        self._next = 1
        self._by_id: dict[int, Any] = {}
        self._by_key: dict[Any, int] = {}

    def get_id(self, key: Any) -> int:
        """The id of `key` (hashable), allocating one the first time."""
        if key in self._by_key:
            return self._by_key[key]
        handle = self._next
        self._next += 1
        self._by_id[handle] = key
        self._by_key[key] = handle
        return handle

    def lookup(self, handle: int) -> Any | None:
        return self._by_id.get(handle)

    def clear(self) -> None:
        self._by_id.clear()
        self._by_key.clear()
