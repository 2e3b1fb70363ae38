"""Logical contents of JDK collections read from their internal fields (no method invocation).

`elements(...)` pages List/Set/Queue/Deque implementations, `entries(...)` pages Map implementations;
both return (size, items) or None when the class is not one this module knows.
"""

from __future__ import annotations

import asyncio

from ...jdwp import Value
from .objects import Objects, obj, prim

Pair = tuple[Value, Value]

# Wrappers that only delegate to an inner collection/map field.
_DELEGATES = {
    "java.util.Collections$UnmodifiableCollection": "c",
    "java.util.Collections$UnmodifiableList": "list",
    "java.util.Collections$UnmodifiableRandomAccessList": "list",
    "java.util.Collections$UnmodifiableSet": "c",
    "java.util.Collections$UnmodifiableSortedSet": "c",
    "java.util.Collections$UnmodifiableNavigableSet": "c",
    "java.util.Collections$SynchronizedCollection": "c",
    "java.util.Collections$SynchronizedList": "list",
    "java.util.Collections$SynchronizedRandomAccessList": "list",
    "java.util.Collections$SynchronizedSet": "c",
    "java.util.Collections$UnmodifiableMap": "m",
    "java.util.Collections$UnmodifiableSortedMap": "m",
    "java.util.Collections$UnmodifiableNavigableMap": "m",
    "java.util.Collections$SynchronizedMap": "m",
    "java.util.Collections$SetFromMap": "m",
}

# Sets backed by a map's keys.
_KEY_SETS = {"java.util.HashSet": "map", "java.util.LinkedHashSet": "map", "java.util.TreeSet": "m",
             "java.util.concurrent.ConcurrentSkipListSet": "m"}


class Collections:
    def __init__(self, objects: Objects) -> None:
        self.o = objects
        self._node_cache: dict[tuple[int, int], list[int]] = {}
        self.generation = 0  # set by the owner: node lists are reused only within one stop

    def _cache(self, key: int) -> list[int] | None:
        return self._node_cache.get((key, self.generation))

    def _store(self, key: int, nodes: list[int]) -> None:
        if len(self._node_cache) > 64:
            self._node_cache.clear()
        self._node_cache[(key, self.generation)] = nodes

    # -- lists, sets, queues -------------------------------------------------------------------------

    def is_list_like(self, type_name: str) -> bool:
        return type_name in _ELEMENT_READERS or type_name in _KEY_SETS or (
            type_name in _DELEGATES and _DELEGATES[type_name] in ("c", "list"))

    def is_map_like(self, type_name: str) -> bool:
        return type_name in _ENTRY_READERS or (type_name in _DELEGATES and _DELEGATES[type_name] == "m"
                                               and type_name != "java.util.Collections$SetFromMap")

    async def elements(self, oid: int, type_name: str, start: int, count: int) -> tuple[int, list[Value]] | None:
        if type_name in _DELEGATES:
            inner = obj(await self.o.get1(oid, _DELEGATES[type_name]))
            if not inner:
                return None
            inner_type = await self.o.type_name(inner)
            if type_name == "java.util.Collections$SetFromMap":
                got = await self.entries(inner, inner_type, start, count)
                return None if got is None else (got[0], [k for k, _ in got[1]])
            return await self.elements(inner, inner_type, start, count)
        if type_name in _KEY_SETS:
            inner = obj(await self.o.get1(oid, _KEY_SETS[type_name]))
            if not inner:
                return 0, []
            got = await self.entries(inner, await self.o.type_name(inner), start, count)
            return None if got is None else (got[0], [k for k, _ in got[1]])
        reader = _ELEMENT_READERS.get(type_name)
        if reader is None:
            return None
        return await reader(self, oid, start, count)

    async def _array_backed(self, oid: int, array_field: str, size_field: str | None, start: int,
                            count: int) -> tuple[int, list[Value]]:
        if size_field:
            arr, size = await self.o.get(oid, array_field, size_field)
            size = prim(size, 0)
        else:
            (arr,) = await self.o.get(oid, array_field)
            size = await self.o.length(obj(arr)) if obj(arr) else 0
        if not obj(arr) or start >= size:
            return size, []
        return size, await self.o.elements(obj(arr), start, min(count, size - start))

    async def _array_list(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "elementData", "size", start, count)

    async def _vector(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "elementData", "elementCount", start, count)

    async def _cow(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "array", None, start, count)

    async def _arrays_as_list(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "a", None, start, count)

    async def _list_n(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "elements", None, start, count)

    async def _priority_queue(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return await self._array_backed(oid, "queue", "size", start, count)

    async def _set_n(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        arr = obj(await self.o.get1(oid, "elements"))
        items = [v for v in await self.o.elements(arr) if not v.is_null] if arr else []
        return len(items), items[start:start + count]

    async def _pair12(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        e0, e1 = await self.o.get(oid, "e0", "e1")
        items = [e0] if e0 is not None else []
        # The second slot holds a plain java.lang.Object sentinel (EMPTY) when there is one element.
        if e1 is not None and not e1.is_null and await self.o.type_name(e1.value) != "java.lang.Object":
            items.append(e1)
        return len(items), items[start:start + count]

    async def _singleton(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        e = await self.o.get1(oid, "element")
        return 1, ([e] if e is not None and start == 0 and count > 0 else [])

    async def _empty(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        return 0, []

    async def _array_deque(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        arr, head, tail = await self.o.get(oid, "elements", "head", "tail")
        if not obj(arr):
            return 0, []
        n = await self.o.length(obj(arr))
        head, tail = prim(head, 0), prim(tail, 0)
        size = (tail - head) % n if n else 0
        wanted = range(start, min(size, start + count))
        if not wanted:
            return size, []
        first = (head + wanted.start) % n
        chunk = await self.o.elements(obj(arr), first, min(len(wanted), n - first))
        if len(chunk) < len(wanted):
            chunk += await self.o.elements(obj(arr), 0, len(wanted) - len(chunk))
        return size, chunk

    async def _linked_list(self, oid: int, start: int, count: int) -> tuple[int, list[Value]]:
        first, size = await self.o.get(oid, "first", "size")
        size = prim(size, 0)
        node, index, items = obj(first), 0, []
        while node and index < start + count:
            item, nxt = await self.o.get(node, "item", "next")
            if index >= start:
                items.append(item)
            node, index = obj(nxt), index + 1
        return size, items

    # -- maps ----------------------------------------------------------------------------------------

    async def entries(self, oid: int, type_name: str, start: int, count: int) -> tuple[int, list[Pair]] | None:
        if type_name in _DELEGATES and _DELEGATES[type_name] == "m":
            inner = obj(await self.o.get1(oid, "m"))
            if not inner:
                return None
            return await self.entries(inner, await self.o.type_name(inner), start, count)
        reader = _ENTRY_READERS.get(type_name)
        if reader is None:
            return None
        return await reader(self, oid, start, count)

    async def _chained_nodes(self, table: int, need: int, next_field: str = "next") -> list[int]:
        """Nodes of a chained hash table in iteration order, walking only as many bins as `need` asks."""
        bins = [v.value for v in await self.o.elements(table) if not v.is_null]
        nodes: list[int] = []
        batch, i = 64, 0
        while i < len(bins):
            chains = [[b] for b in bins[i:i + batch]]
            i += batch
            frontier = list(range(len(chains)))
            while frontier:
                nexts = await asyncio.gather(*(self.o.get1(chains[c][-1], next_field) for c in frontier))
                frontier_next = []
                for c, nxt in zip(frontier, nexts, strict=True):
                    if obj(nxt):
                        chains[c].append(obj(nxt))
                        frontier_next.append(c)
                frontier = frontier_next
            for chain in chains:
                nodes.extend(chain)
            if len(nodes) >= need:
                break
            batch = min(batch * 4, 4096)
        return nodes

    async def _hash_map(self, oid: int, start: int, count: int, key: str = "key", value: str = "value",
                        size_field: str | None = "size") -> tuple[int, list[Pair]]:
        table, size = await self.o.get(oid, "table", size_field) if size_field else (
            await self.o.get1(oid, "table"), None)
        if not obj(table):
            return prim(size, 0), []
        nodes = self._cache(oid)
        if nodes is None or len(nodes) < start + count:
            nodes = await self._chained_nodes(obj(table), start + count)
            self._store(oid, nodes)
        total = prim(size, None)
        if total is None:  # ConcurrentHashMap: counting is a walk anyway
            nodes = await self._chained_nodes(obj(table), 1 << 62)
            self._store(oid, nodes)
            total = len(nodes)
        page = nodes[start:start + count]
        values = await asyncio.gather(*(self.o.get(n, key, value) for n in page))
        return total, [(k, v) for k, v in values]

    async def _concurrent_hash_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        return await self._hash_map(oid, start, count, value="val", size_field=None)

    async def _hashtable(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        return await self._hash_map(oid, start, count, size_field="count")

    async def _weak_hash_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        return await self._hash_map(oid, start, count, key="referent")

    async def _linked_hash_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        head, size = await self.o.get(oid, "head", "size")
        node, index, pairs = obj(head), 0, []
        while node and index < start + count:
            k, v, after = await self.o.get(node, "key", "value", "after")
            if index >= start:
                pairs.append((k, v))
            node, index = obj(after), index + 1
        return prim(size, 0), pairs

    async def _tree_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        root, size = await self.o.get(oid, "root", "size")
        nodes = self._cache(oid)
        if nodes is None:
            # Read the tree level by level (pipelined), then walk it in order locally.
            children: dict[int, tuple[int, int]] = {}
            level = [obj(root)] if obj(root) else []
            while level:
                got = await asyncio.gather(*(self.o.get(n, "left", "right") for n in level))
                nxt = []
                for n, (left, right) in zip(level, got, strict=True):
                    children[n] = (obj(left), obj(right))
                    nxt += [c for c in (obj(left), obj(right)) if c]
                level = nxt
            nodes, stack, node = [], [], obj(root)
            while stack or node:
                while node:
                    stack.append(node)
                    node = children[node][0]
                node = stack.pop()
                nodes.append(node)
                node = children[node][1]
            self._store(oid, nodes)
        page = nodes[start:start + count]
        values = await asyncio.gather(*(self.o.get(n, "key", "value") for n in page))
        return prim(size, len(nodes)), [(k, v) for k, v in values]

    async def _map_n(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        table = obj(await self.o.get1(oid, "table"))
        flat = await self.o.elements(table) if table else []
        pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2) if not flat[i].is_null]
        return len(pairs), pairs[start:start + count]

    async def _map1(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        k, v = await self.o.get(oid, "k0", "v0")
        return 1, ([(k, v)] if start == 0 and count > 0 and k is not None and v is not None else [])

    async def _identity_hash_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        table = obj(await self.o.get1(oid, "table"))
        flat = await self.o.elements(table) if table else []
        pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2) if not flat[i].is_null]
        return len(pairs), pairs[start:start + count]

    async def _empty_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        return 0, []

    async def _singleton_map(self, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
        k, v = await self.o.get(oid, "k", "v")
        return 1, ([(k, v)] if start == 0 and count > 0 and k is not None and v is not None else [])


_ELEMENT_READERS = {
    "java.util.ArrayList": Collections._array_list,
    "java.util.Vector": Collections._vector,
    "java.util.Stack": Collections._vector,
    "java.util.concurrent.CopyOnWriteArrayList": Collections._cow,
    "java.util.Arrays$ArrayList": Collections._arrays_as_list,
    "java.util.ImmutableCollections$ListN": Collections._list_n,
    "java.util.ImmutableCollections$List12": Collections._pair12,
    "java.util.ImmutableCollections$SetN": Collections._set_n,
    "java.util.ImmutableCollections$Set12": Collections._pair12,
    "java.util.Collections$SingletonList": Collections._singleton,
    "java.util.Collections$SingletonSet": Collections._singleton,
    "java.util.Collections$EmptyList": Collections._empty,
    "java.util.Collections$EmptySet": Collections._empty,
    "java.util.LinkedList": Collections._linked_list,
    "java.util.ArrayDeque": Collections._array_deque,
    "java.util.PriorityQueue": Collections._priority_queue,
}

_ENTRY_READERS = {
    "java.util.HashMap": Collections._hash_map,
    "java.util.LinkedHashMap": Collections._linked_hash_map,
    "java.util.TreeMap": Collections._tree_map,
    "java.util.concurrent.ConcurrentHashMap": Collections._concurrent_hash_map,
    "java.util.Hashtable": Collections._hashtable,
    "java.util.Properties": None,  # JDK 9+ keeps a ConcurrentHashMap in field "map"; see below
    "java.util.WeakHashMap": Collections._weak_hash_map,
    "java.util.IdentityHashMap": Collections._identity_hash_map,
    "java.util.ImmutableCollections$MapN": Collections._map_n,
    "java.util.ImmutableCollections$Map1": Collections._map1,
    "java.util.Collections$EmptyMap": Collections._empty_map,
    "java.util.Collections$SingletonMap": Collections._singleton_map,
}


async def _properties(self: Collections, oid: int, start: int, count: int) -> tuple[int, list[Pair]]:
    inner = obj(await self.o.get1(oid, "map"))
    if not inner:
        return 0, []
    return await self._concurrent_hash_map(inner, start, count)


_ENTRY_READERS["java.util.Properties"] = _properties
