"""An object's opening reused from an earlier one while what it was made from is unchanged.

A capture rendered from its in-JVM copy (in_probe.py) opens the same objects again and again: a server's
`this` (its handler, its server, their fields) is the same object with the same fields at every hit, and one
capture may show one object under two names (Jetty's `baseRequest` and `request`). Opening it is most of a
capture's rendering (the debugger's CPU a live follower pays for each capture). So an opening (the
`Inspection` reader.py turns into a value's children) is kept with everything it was made from:

- the copied data it consulted: each object's copied fields, and the copied elements or entries of each
  array, collection and map (`consulted`). The rest of what a rendering reads never changes for an object
  id (its class, a string's text, an array's length, a box's value);
- the handles its summaries show (`@12`): the same numbers, still held.

It is reused only when all of that is equal now, so a reused opening is the one the rendering would make.
An opening that showed a thread or thread group (whose name is read over JDWP, and changes) is not kept, nor
any under --redact (what is redacted depends on what was learned since)."""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

from ...jdwp import Tag

CAPACITY = 4_096  # openings kept; past it they are all dropped (a new request's objects are new ids anyway)
_NOT_KEPT = (Tag.THREAD, Tag.THREAD_GROUP)


class _Trace:
    """What one opening consulted while it was made."""

    __slots__ = ("handles", "keep", "oids")

    def __init__(self) -> None:
        self.oids: set[int] = set()
        self.handles: dict[int, int] = {}  # object id -> its handle's number, the last shown last
        self.keep = True


_TRACE: contextvars.ContextVar[_Trace | None] = contextvars.ContextVar("tracepilot_opening_trace", default=None)


def consulted(object_id: int) -> None:
    """The copied data of `object_id` (its fields, or its elements or entries) is read now."""
    trace = _TRACE.get()
    if trace is not None:
        trace.oids.add(object_id)


class RecordingHandles:
    """The session's handle table, noting each handle an opening shows (see Openings)."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def held(self, name: str) -> Any:  # (called for every value opened: no __getattr__ on the way)
        return self._table.held(name)

    def by_object(self, object_id: int) -> Any:
        return self._table.by_object(object_id)

    def handle(self, object_id: int, tag: Tag) -> Any:
        held = self._table.handle(object_id, tag)
        trace = _TRACE.get()
        if trace is not None:  # (last shown last: replayed in the order the table's recency then had them)
            trace.handles.pop(object_id, None)
            trace.handles[object_id] = held.number
            if tag in _NOT_KEPT:
                trace.keep = False
        return held


class _Kept:
    __slots__ = ("handles", "inspection", "state")

    def __init__(self, inspection: Any, state: list[tuple[int, Any]], handles: dict[int, int]) -> None:
        self.inspection = inspection
        self.state = state  # (object id, its copied data then)
        self.handles = handles


def _data(object_id: int, memo: dict[int, dict[int, Any]], copied: Any) -> tuple[Any, ...]:
    """What the copy holds of `object_id` that may change from one capture to the next."""
    fields = memo.get(object_id)
    return (dict(fields) if fields is not None else None, copied.lists.get(object_id),
            copied.maps.get(object_id), copied.arrays.get(object_id))


def _same(object_id: int, data: tuple[Any, ...], memo: dict[int, dict[int, Any]], copied: Any) -> bool:
    fields, items, entries, elements = data
    return memo.get(object_id) == fields and copied.lists.get(object_id) == items \
        and copied.maps.get(object_id) == entries and copied.arrays.get(object_id) == elements


class Openings:
    """The openings (and summaries) of one VM's captures, by object and how it was shown."""

    def __init__(self, vm: Any) -> None:
        self.vm = vm
        self._kept: dict[tuple[Any, ...], _Kept] = {}
        self.reused = 0  # (for tests and benchmarks)

    async def inspect(self, values: Any, path: str, raw: Any, view: Any, per_page: int, name: str,
                      memo: dict[int, dict[int, Any]], copied: Any, jdk_internals: bool) -> Any:
        """values.inspect(...) of an object rendered from `copied` and `memo`, or the same opening again."""
        key = ("open", raw.value, raw.tag, view.type, view.kind, view.text, per_page, jdk_internals)
        return await self._kept_or_made(key, values.handles, memo, copied,
                                        lambda: values.inspect(path, raw, view.type, 0, per_page, name, known=view))

    async def view(self, values: Any, raw: Any, static: str | None, name: str,
                   memo: dict[int, dict[int, Any]], copied: Any, jdk_internals: bool) -> Any:
        """values.view(raw, static, 0, name): a variable's summary, or the same summary again."""
        # (An object's summary does not depend on its static type, which names only a null or an unreadable
        # value: `baseRequest` and `request`, one object, share theirs.)
        key = ("view", raw.value, raw.tag, jdk_internals)
        return await self._kept_or_made(key, values.handles, memo, copied,
                                        lambda: values.view(raw, static, 0, name))

    async def _kept_or_made(self, key: tuple[Any, ...], handles: Any, memo: dict[int, dict[int, Any]], copied: Any,
                            make: Callable[[], Awaitable[Any]]) -> Any:
        kept = self._kept.get(key)
        if kept is not None and self._still(kept, handles, memo, copied):
            self.reused += 1
            return kept.inspection
        trace = _Trace()
        token = _TRACE.set(trace)
        try:
            made = await make()
        finally:
            _TRACE.reset(token)
        if trace.keep and not getattr(made, "text", "").startswith("<unreadable"):
            if len(self._kept) >= CAPACITY:
                self._kept.clear()
            state = [(oid, _data(oid, memo, copied)) for oid in trace.oids]
            self._kept[key] = _Kept(made, state, trace.handles)
        return made

    @staticmethod
    def _still(kept: _Kept, handles: Any, memo: dict[int, dict[int, Any]], copied: Any) -> bool:
        for oid, data in kept.state:
            if not _same(oid, data, memo, copied):
                return False
        by_object = handles.by_object
        for oid, number in kept.handles.items():
            held = by_object(oid)
            if held is None or held.number != number:
                return False
        table = handles._table if isinstance(handles, RecordingHandles) else handles  # noqa: SLF001
        for oid in kept.handles:  # (shown again: as recently used as a new rendering would make them)
            table.handle(oid, by_object(oid).tag)
        return True
