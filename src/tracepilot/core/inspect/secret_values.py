"""Learning secrets from the target's objects, for --redact (the book and the output rules: core/secrets.py).

Two walks over objects, both read over JDWP (nothing runs in the target) and both bounded:

- `learn(value)`: the value was read under a secret-looking name, so every text in it is secret: a String,
  a char[], a StringBuilder, and the strings inside an object, array or collection held there.
- `reaches_secret(value)`: before a call, whether its receiver or an argument holds a secret anywhere a
  call could read it (a secret-looking field, a map entry under a secret-looking key, an object already
  known to be secret); every such secret is learned on the way, so whatever the call returns or throws is
  recognised at the output even when the call itself is allowed.
"""

from __future__ import annotations

from ...jdwp import JdwpError, Tag, Value
from ..secrets import KnownSecrets, is_secret_name
from .collections import Collections
from .objects import Objects, obj

MAX_DEPTH = 3  # object levels below the value walked
MAX_OBJECTS = 96  # objects read per walk: a huge graph is not searched to the end
MAX_ITEMS = 64  # elements of one array or collection, entries of one map


class SecretLearner:
    def __init__(self, objects: Objects, collections: Collections, book: KnownSecrets) -> None:
        self.objects = objects
        self.collections = collections
        self.book = book
        self._reached: dict[tuple[int, int], bool] = {}  # (stop generation, object id) -> holds a secret

    # -- a value under a secret-looking name ---------------------------------------------------------

    async def learn(self, value: Value | None) -> None:
        """Remember every text in `value` (and its object ids) as secret."""
        if value is None or not value.is_object or value.is_null:
            return
        try:
            await self._learn(value, 0, set())
        except JdwpError:  # collected meanwhile: nothing left to show either
            return

    async def _learn(self, value: Value, depth: int, seen: set[int]) -> None:
        oid = value.value
        if oid in seen or len(seen) >= MAX_OBJECTS:
            return
        seen.add(oid)
        o, c = self.objects, self.collections
        type_name = await o.type_name(oid)
        if value.tag == Tag.STRING or type_name == "java.lang.String":
            self.book.learn_object(oid)
            self.book.learn_text(await o.string(oid))
            return
        if type_name == "char[]":
            self.book.learn_object(oid)
            chars = await o.elements(oid, 0, min(await o.length(oid), 4096))
            self.book.learn_text("".join(v.value if isinstance(v.value, str) else chr(v.value) for v in chars))
            return
        container = type_name.endswith("[]") or c.is_map_like(type_name) or c.is_list_like(type_name) \
            or type_name == "java.util.Optional"
        if container:  # a list of tokens, a map of secrets: the whole of it is secret
            self.book.learn_object(oid)
        elif depth > 0:  # an object inside a secret is not secret as a whole (it may be shared); its texts are
            return      # learned only one level down (a `Credentials secret` holding `user` and `pass` strings)
        if depth >= MAX_DEPTH:
            return
        for inner in await self._inside(oid, type_name):
            if inner.is_object and not inner.is_null:
                await self._learn(inner, depth + 1, seen)

    async def _inside(self, oid: int, type_name: str) -> list[Value]:
        """The values an object holds: elements, map keys and values, or its instance fields."""
        o, c = self.objects, self.collections
        if type_name.endswith("[]"):
            if type_name[:-2] in _PRIMITIVE_ELEMENTS:
                return []
            return await o.elements(oid, 0, min(await o.length(oid), MAX_ITEMS))
        if type_name == "java.util.Optional":
            inner = await o.get1(oid, "value")
            return [inner] if inner is not None else []
        if c.is_map_like(type_name):
            got = await c.entries(oid, type_name, 0, MAX_ITEMS)
            if got is not None:
                return [v for pair in got[1] for v in pair]
        if c.is_list_like(type_name):
            got = await c.elements(oid, type_name, 0, MAX_ITEMS)
            if got is not None:
                return got[1]
        fields = await o.instance_fields(await o.type_id(oid))
        return await o.field_values(oid, fields) if fields else []

    # -- what a call could read ----------------------------------------------------------------------

    async def reaches_secret(self, value: Value | None) -> bool:
        """Whether `value` holds a secret within MAX_DEPTH levels; learns each one found."""
        if value is None or not value.is_object or value.is_null:
            return False
        key = (self.collections.generation, value.value)  # objects change while the program runs: per stop
        if key in self._reached:
            return self._reached[key] or self.book.is_secret_object(value.value)
        try:
            found = await self._reaches(value, 0, set())
        except JdwpError:
            return False
        if len(self._reached) > 256:
            self._reached.clear()
        self._reached[key] = found
        return found

    async def _reaches(self, value: Value, depth: int, seen: set[int]) -> bool:
        oid = value.value
        if self.book.is_secret_object(oid):
            return True
        if oid in seen or len(seen) >= MAX_OBJECTS:
            return False
        seen.add(oid)
        o, c = self.objects, self.collections
        type_name = await o.type_name(oid)
        if value.tag in (Tag.STRING, Tag.CLASS_OBJECT, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER) \
                or type_name == "java.lang.String":
            return False
        found = False
        inner: list[Value] = []
        if type_name.endswith("[]"):
            if type_name[:-2] in _PRIMITIVE_ELEMENTS:
                return False
            inner = await o.elements(oid, 0, min(await o.length(oid), MAX_ITEMS))
        elif c.is_map_like(type_name) and (got := await c.entries(oid, type_name, 0, MAX_ITEMS)) is not None:
            for key, val in got[1]:
                if obj(key) and await o.type_name(obj(key)) == "java.lang.String" \
                        and is_secret_name(await o.string(obj(key))):
                    await self.learn(val)
                    found = True
                else:
                    inner.append(val)
        elif c.is_list_like(type_name) and (got := await c.elements(oid, type_name, 0, MAX_ITEMS)) is not None:
            inner = got[1]
        else:
            fields = await o.instance_fields(await o.type_id(oid))
            values = await o.field_values(oid, fields) if fields else []
            entry_value = await self.entry_secret([f.name for f in fields], values)
            for f, val in zip(fields, values, strict=True):
                if is_secret_name(f.name) or f.name == entry_value:
                    await self.learn(val)
                    found = True
                else:
                    inner.append(val)
        if depth < MAX_DEPTH:
            for val in inner:
                if val.is_object and not val.is_null and await self._reaches(val, depth + 1, seen):
                    found = True
        return found

    async def entry_secret(self, names: list[str], values: list[Value]) -> str | None:
        """A map's entry node (HashMap$Node, TreeMap$Entry, ...) under a secret-looking key: the name of the
        field holding its value (which is secret), else None."""
        fields = dict(zip(names, values, strict=True))
        key = fields.get("key")
        holder = next((n for n in ("value", "val") if n in fields), None)
        if holder is None or key is None or not obj(key) or await self.objects.type_name(obj(key)) != "java.lang.String":
            return None
        if not is_secret_name(await self.objects.string(obj(key))):
            return None
        await self.learn(fields[holder])
        return holder


_PRIMITIVE_ELEMENTS = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double"})
