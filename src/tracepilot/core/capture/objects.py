"""What captures learn about objects over JDWP: what never changes is kept from one capture to the next (an
object's class, a class's fields and names, an array's length, a box's value, an enum's name; strings are
kept by `Objects`), and within one capture an object's fields are read once (`one_capture`)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from ...jdwp import JdwpError, Value
from ..evaluator.types import BOXES, signature_to_java_name
from ..inspect.objects import Objects
from ..vm import FieldInfo, Modifier
from .openings import Openings, consulted
from .prefetch import COPIED, copied_only, page

BOXED_TYPES = frozenset(BOXES.values())
_SYNTHETIC = int(Modifier.SYNTHETIC | Modifier.JDWP_SYNTHETIC)
FIELDS_READ_AHEAD = 20  # an object's fields read at its first read in a capture (the default `fields` limit)

# The field values one capture read, by object id and field id (see CaptureObjects.field_values).
_READ: contextvars.ContextVar[dict[int, dict[int, Value]] | None] = contextvars.ContextVar("tracepilot_capture_read",
                                                                                          default=None)


class CaptureObjects(Objects):
    """Objects as the captures of a session read them: an array's length never changes either, and what
    a level's values ask at once (the class of an object several of them hold) is asked once."""

    def __init__(self, vm: Any) -> None:
        super().__init__(vm)
        self._lengths: dict[int, int] = {}
        self._asking: dict[int, asyncio.Future[int]] = {}  # object id -> its class, being asked
        self._typed: dict[tuple[int, bool], list[tuple[FieldInfo, str]]] = {}  # (class, synthetic too) -> fields
        self._constants: dict[tuple[int, str], Value] = {}  # (object id, field) -> what never changes
        self._names: dict[int, str] = {}  # type id -> its name
        self._supers: dict[int, list[str]] = {}  # type id -> its class and superclasses' names
        # type id -> (name, simple name, has fields) of a class whose objects a nested summary shows as `Name @12`,
        # () when its objects have a view of their own (reader.py, _CaptureValues._short_view)
        self.short_shapes: dict[int, tuple[Any, ...]] = {}
        self.openings = Openings(vm)  # objects' openings a capture rendered from its in-JVM copy reuses

    async def type_id(self, object_id: int) -> int:
        known = self._type_of.get(object_id)
        if known is not None:
            return known
        asking = self._asking.get(object_id)
        if asking is not None:
            return await asyncio.shield(asking)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._asking[object_id] = future
        try:
            found = await super().type_id(object_id)
        except BaseException as exc:
            future.set_exception(exc if isinstance(exc, Exception) else JdwpError(0, "cancelled"))
            future.exception()  # (retrieved: only the waiters care)
            raise
        finally:
            self._asking.pop(object_id, None)
        future.set_result(found)
        return found

    async def get(self, object_id: int, *names: str) -> list[Value | None]:
        memo = _READ.get()
        if memo is None:
            return await super().get(object_id, *names)
        table = await self.fields_by_name(await self.type_id(object_id))
        wanted = [table.get(n) for n in names]
        present = [f for f in wanted if f is not None and not f.is_static]
        values = dict(zip((f.id for f in present), await self.field_values(object_id, present), strict=True))
        return [values.get(f.id) if f is not None else None for f in wanted]

    async def field_values(self, object_id: int, fields: list[FieldInfo]) -> list[Value]:
        """Within one capture an object's fields are read once: its summary, its opening and every other
        place that shows it read the same values (one request, and one moment, for all of them)."""
        memo = _READ.get()
        if memo is None or not fields:
            return await super().field_values(object_id, fields)
        consulted(object_id)
        known = memo.setdefault(object_id, {})
        missing = [f for f in fields if f.id not in known]
        if missing:
            copied_only(f"object {object_id}'s field {missing[0].name}")
            # The first read of an object asks its first fields too: what opening it shows next.
            asked = {f.id for f in missing}
            more = [f for f in (await self.instance_fields(await self.type_id(object_id)))[:FIELDS_READ_AHEAD]
                    if f.id not in known and f.id not in asked]
            asking = missing + more
            got = await super().field_values(object_id, asking)
            for f, v in zip(asking, got, strict=True):
                known.setdefault(f.id, v)
        return [known[f.id] for f in fields]

    async def typed_fields(self, type_id: int, synthetic: bool) -> list[tuple[FieldInfo, str]]:
        """Instance fields with their type names (as `instance_fields`), the synthetic ones left out unless
        asked: worked out once per class, not at every object's summary."""
        key = (type_id, synthetic)
        found = self._typed.get(key)
        if found is None:
            found = [(f, signature_to_java_name(f.signature)) for f in await self.instance_fields(type_id)
                     if synthetic or not f.mod_bits & _SYNTHETIC]
            self._typed[key] = found
        return found

    async def type_name(self, object_id: int) -> str:
        type_id = await self.type_id(object_id)
        found = self._names.get(type_id)
        if found is None:
            found = self._names[type_id] = (await self.vm.type(type_id)).name
        return found

    async def superclass_names(self, object_id: int) -> list[str]:
        type_id = await self.type_id(object_id)
        found = self._supers.get(type_id)
        if found is None:
            found = self._supers[type_id] = await super().superclass_names(object_id)
        return found

    async def get1(self, object_id: int, name: str) -> Value | None:
        """A field by name; a box's value and an enum constant's name are read once (they never change)."""
        key = (object_id, name)
        found = self._constants.get(key)
        if found is not None:
            return found
        value = await super().get1(object_id, name)
        if value is not None and await self._is_constant(object_id, name):
            if len(self._constants) > 200_000:
                self._constants.clear()
            self._constants[key] = value
        return value

    async def _is_constant(self, object_id: int, name: str) -> bool:
        type_id = await self.type_id(object_id)
        if name == "value" and (await self.vm.type(type_id)).name in BOXED_TYPES:
            return True
        field = (await self.fields_by_name(type_id)).get(name)
        return name == "name" and field is not None and (await self.vm.type(field.type_id)).name == "java.lang.Enum"

    def known_class(self, object_id: int) -> tuple[str, list[str], list[tuple[FieldInfo, str]]] | None:
        """(class name, superclass names, shown fields) of an object whose class is already known, else None."""
        type_id = self._type_of.get(object_id)
        if type_id is None:
            return None
        name, supers, typed = self._names.get(type_id), self._supers.get(type_id), self._typed.get((type_id, False))
        if name is None or supers is None or typed is None:
            return None
        return name, supers, typed

    async def elements(self, array_id: int, start: int = 0, count: int | None = None) -> list[Value]:
        """An array's elements; those the capture's in-JVM copy holds are not asked again."""
        copied = COPIED.get()
        consulted(array_id)
        if copied is not None:
            found = page(copied.arrays.get(array_id), start, count if count is not None else 1 << 30)
            if found is not None:
                return found[1]
        copied_only(f"array {array_id}'s elements")
        return await super().elements(array_id, start, count)

    async def length(self, array_id: int) -> int:
        found = self._lengths.get(array_id)
        if found is None:
            found = await super().length(array_id)
            if len(self._lengths) > 200_000:
                self._lengths.clear()
            self._lengths[array_id] = found
        return found


def field_memo() -> dict[int, dict[int, Value]] | None:
    """The field values the current capture read so far (its in-JVM copy fills it first)."""
    return _READ.get()


@contextlib.contextmanager
def one_capture() -> Iterator[None]:
    """The span of one capture's reading: objects' fields read in it are read once (CaptureObjects)."""
    token = _READ.set({})
    copied = COPIED.set(None)
    try:
        yield
    finally:
        COPIED.reset(copied)
        _READ.reset(token)
