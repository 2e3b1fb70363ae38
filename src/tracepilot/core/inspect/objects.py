"""Reading object state over JDWP by field name: the primitive every logical view is built on.

Field tables are cached per type; an object's type and an array's length are cached per object id (ids are
never reused while the object lives). Nothing here invokes a method in the target, so reading is fast and side-effect free.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...jdwp import (
    ArrayReference,
    ClassObjectReference,
    JdwpError,
    ObjectReference,
    ReferenceType,
    StringReference,
    Tag,
    Value,
)
from ..vm import FieldInfo, Vm


class Objects:
    def __init__(self, vm: Vm) -> None:
        self.vm = vm
        self._type_of: dict[int, int] = {}
        self._fields: dict[int, dict[str, FieldInfo]] = {}
        self._instance_fields: dict[int, list[FieldInfo]] = {}
        self._strings: dict[int, str] = {}
        self._lengths: dict[int, int] = {}

    async def type_id(self, object_id: int) -> int:
        type_id = self._type_of.get(object_id)
        if type_id is None:
            reply = await self.vm.send(ObjectReference.ReferenceType, object_id)
            type_id = reply.type_id
            await self.vm.type(type_id, reply.ref_type_tag)
            if len(self._type_of) > 200_000:
                self._type_of.clear()
            self._type_of[object_id] = type_id
        return type_id

    async def type_name(self, object_id: int) -> str:
        return (await self.vm.type(await self.type_id(object_id))).name

    def known_type_name(self, object_id: int) -> str | None:
        """type_name when the object's type and its name are cached (no request, no coroutine), else None."""
        type_id = self._type_of.get(object_id)
        info = self.vm.types.get(type_id) if type_id is not None else None
        return info.name if info is not None else None

    async def fields_by_name(self, type_id: int) -> dict[str, FieldInfo]:
        table = self._fields.get(type_id)
        if table is None:
            table = {}
            for f in await self.vm.all_fields(type_id):  # most derived first: it wins a name clash
                table.setdefault(f.name, f)
            self._fields[type_id] = table
        return table

    async def instance_fields(self, type_id: int) -> list[FieldInfo]:
        """Instance fields, inherited included, base class first (declaration order within a class)."""
        found = self._instance_fields.get(type_id)
        if found is None:
            chain = await self.vm.hierarchy(type_id)
            found = []
            for t in reversed(chain):
                found.extend(f for f in await self.vm.fields(t) if not f.is_static)
            self._instance_fields[type_id] = found
        return found

    async def get(self, object_id: int, *names: str) -> list[Value | None]:
        """Instance field values by name (None for a name the class does not have)."""
        table = await self.fields_by_name(await self.type_id(object_id))
        wanted = [table.get(n) for n in names]
        present = [f for f in wanted if f is not None and not f.is_static]
        if not present:
            return [None] * len(names)
        reply = await self.vm.send(ObjectReference.GetValues, object_id, [f.id for f in present])
        by_field = dict(zip((f.id for f in present), reply.values, strict=True))
        return [by_field.get(f.id) if f is not None else None for f in wanted]

    async def get1(self, object_id: int, name: str) -> Value | None:
        return (await self.get(object_id, name))[0]

    async def field_values(self, object_id: int, fields: list[FieldInfo]) -> list[Value]:
        if not fields:
            return []
        reply = await self.vm.send(ObjectReference.GetValues, object_id, [f.id for f in fields])
        return reply.values

    async def static_values(self, type_id: int, fields: list[FieldInfo]) -> list[Value]:
        if not fields:
            return []
        reply = await self.vm.send(ReferenceType.GetValues, type_id, [f.id for f in fields])
        return reply.values

    async def string(self, object_id: int) -> str:
        # Strings are immutable and JDWP never reuses an object id: one fetch per string is enough
        # (the same string shown in many frames or entries costs one round trip, not one each).
        text = self._strings.get(object_id)
        if text is None:
            text = (await self.vm.send(StringReference.Value, object_id)).string_value
            if len(text) <= 4096:
                if len(self._strings) > 20_000:
                    self._strings.clear()
                self._strings[object_id] = text
        return text

    async def length(self, array_id: int) -> int:
        # An array's length never changes and its id is never reused: asked once per array, not once per
        # look (a stop that shows `String[] args` would otherwise pay a round trip for it every time).
        length = self._lengths.get(array_id)
        if length is None:
            length = (await self.vm.send(ArrayReference.Length, array_id)).array_length
            if len(self._lengths) > 200_000:
                self._lengths.clear()
            self._lengths[array_id] = length
        return length

    def known_length(self, array_id: int) -> int | None:
        """length() when it is cached (no request, no coroutine), else None."""
        return self._lengths.get(array_id)

    async def elements(self, array_id: int, start: int = 0, count: int | None = None) -> list[Value]:
        length = self._lengths.get(array_id)
        if length is None:
            length = await self.length(array_id)
        start = max(0, min(start, length))
        n = length - start if count is None else max(0, min(count, length - start))
        if n == 0:
            return []
        return (await self.vm.send(ArrayReference.GetValues, array_id, start, n)).values

    async def reflected_type_name(self, class_object_id: int) -> str:
        reply = await self.vm.send(ClassObjectReference.ReflectedType, class_object_id)
        return (await self.vm.type(reply.type_id, reply.ref_type_tag)).name

    async def is_a(self, object_id: int, class_name: str) -> bool:
        return await self.vm.is_assignable(await self.type_id(object_id), class_name)

    async def superclass_names(self, object_id: int) -> list[str]:
        chain = await self.vm.hierarchy(await self.type_id(object_id))
        return [(await self.vm.type(t)).name for t in chain]

    async def gather_get(self, object_ids: list[int], *names: str) -> list[list[Value | None]]:
        """The same fields of many objects, pipelined."""
        return list(await asyncio.gather(*(self.get(o, *names) for o in object_ids)))


def obj(value: Value | None) -> int:
    """Object id of a value (0 for null / missing / primitive)."""
    if value is None or not value.is_object:
        return 0
    return value.value or 0


def prim(value: Value | None, default: Any = None) -> Any:
    return default if value is None else value.value


async def safe(coro: Any, default: Any = None) -> Any:
    try:
        return await coro
    except JdwpError:
        return default


__all__ = ["Objects", "obj", "prim", "safe", "Tag"]
