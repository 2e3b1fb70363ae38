"""The capture rule for JDK internals: a capture does not open the instance fields a class declares in, or
inherits from, a JDK class -- a class of a named module whose name starts with `java.` or `jdk.` -- beyond
those its logical view reads (a box's or an atomic's value, an enum's name and ordinal). java.base keeps such
fields closed to reflection (a ClassLoader's are even hidden from it), so the in-JVM copy cannot read them
while JDWP can: both paths leave them out and say so as one cut, and the capture taken in the JVM is the one a
held thread would show. `capture_limits jdk_internals=true` opens them again (those captures hold the thread).
The copier (java/CaptureCopy3__TracepilotProbe.java, `jdkModule`) applies the same rule in the JVM."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from ...jdwp import ModuleReference, ReferenceType
from ..evaluator.types import BOXES
from ..inspect import collections as _collections

JDK_MODULES = ("java.", "jdk.")
# JDK classes whose fields a capture shows: what their logical view reads (and what the copier copies).
SHOWN = frozenset(BOXES.values()) | {
    "java.lang.Enum", "java.util.Optional", "java.util.concurrent.atomic.AtomicInteger",
    "java.util.concurrent.atomic.AtomicLong", "java.util.concurrent.atomic.AtomicBoolean",
    "java.util.concurrent.atomic.AtomicReference"}

# JDK classes (by exact name) `inspect` shows by a view it reads from their fields: their summaries are not JDK
# internals to cut, and the copier, which does not copy them, lacks them (a capture of one holds the thread).
# The copier's VIEWED list is this one (tests/capture/test_copier_class.py).
_SHOWN_AS = _collections.Collections(None)  # (its is_list_like / is_map_like: by name alone)
VIEWED = frozenset(n for n in {*_collections._ELEMENT_READERS, *_collections._ENTRY_READERS, *_collections._DELEGATES,
                               *_collections._KEY_SETS}
                   if _SHOWN_AS.is_list_like(n) or _SHOWN_AS.is_map_like(n)) | {
    "java.util.Optional", "java.lang.StringBuilder", "java.lang.StringBuffer", "java.math.BigDecimal",
    "java.math.BigInteger", "java.util.UUID", "java.time.LocalDate", "java.time.LocalTime", "java.time.LocalDateTime",
    "java.time.OffsetDateTime", "java.time.ZonedDateTime", "java.time.ZoneOffset", "java.time.ZoneRegion",
    "java.time.Instant", "java.util.Date", "java.sql.Timestamp", "java.sql.Date", "java.time.Duration"}


class JdkFields:
    """Per JVM: which classes are JDK classes, and which of a class's instance fields a capture leaves closed
    (class, module and fields never change: asked once per class)."""

    def __init__(self, vm: Any) -> None:
        self.vm = vm
        self._jdk: dict[int, bool] = {}  # type id -> in a java.*/jdk.* module
        self._closed: dict[int, tuple[tuple[str, ...], frozenset[int]]] = {}  # type id -> (JDK classes, field ids)

    async def is_jdk(self, type_id: int) -> bool:
        found = self._jdk.get(type_id)
        if found is None:
            module = (await self.vm.send(ReferenceType.Module, type_id)).module
            name = (await self.vm.send(ModuleReference.Name, module)).name if module else ""
            found = self._jdk[type_id] = bool(name) and name.startswith(JDK_MODULES)
        return found

    async def closed(self, type_id: int) -> tuple[tuple[str, ...], frozenset[int]]:
        """The JDK classes (base first) whose instance fields an object of `type_id` has and a capture leaves
        closed, and those fields' ids; ((), ()) when a capture shows all its fields."""
        found = self._closed.get(type_id)
        if found is None:
            chain = list(reversed(await self.vm.hierarchy(type_id)))  # (each level's requests at once)
            declared = await asyncio.gather(*(self.vm.fields(t) for t in chain))
            levels = [(t, [f for f in fields if not f.is_static]) for t, fields in zip(chain, declared, strict=True)]
            levels = [(t, fields) for t, fields in levels if fields]
            infos, jdk = await asyncio.gather(asyncio.gather(*(self.vm.type(t) for t, _ in levels)),
                                              asyncio.gather(*(self.is_jdk(t) for t, _ in levels)))
            names: list[str] = []
            ids: set[int] = set()
            for (_, fields), info, in_jdk in zip(levels, infos, jdk, strict=True):
                if in_jdk and info.name not in SHOWN:
                    names.append(info.name)
                    ids.update(f.id for f in fields)
            found = self._closed[type_id] = (tuple(names), frozenset(ids))
        return found

    async def cut(self, type_id: int) -> str | None:
        """The cut a capture shows for an object of `type_id` (None: nothing closed)."""
        names, ids = await self.closed(type_id)
        if not names:
            return None
        return (f"{len(ids)} field{'s' if len(ids) != 1 else ''} of {', '.join(names)} not captured: JDK internals "
                "(capture_limits jdk_internals=true opens them, with the thread held)")


_BY_VM: weakref.WeakKeyDictionary[Any, JdkFields] = weakref.WeakKeyDictionary()


def jdk_fields(vm: Any) -> JdkFields:
    """The JVM's JdkFields (one per VM object: what it learns is kept for the session)."""
    found = _BY_VM.get(vm)
    if found is None:
        found = _BY_VM[vm] = JdkFields(vm)
    return found
