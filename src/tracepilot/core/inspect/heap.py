"""Heap questions: instance counts of classes, and the objects referring to one object."""

from __future__ import annotations

import fnmatch

from ...jdwp import ObjectReference, Value, VirtualMachine
from ..errors import NotFound, Unsupported
from ..model import CutList
from ..model_heap import HeapCount
from ..vm import TypeInfo, Vm


def match_classes(types: list[TypeInfo], pattern: str) -> list[TypeInfo]:
    pattern = pattern.strip() or "*"
    glob = any(c in pattern for c in "*?[")
    found = []
    for t in types:
        name = t.name
        if glob:
            if fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(t.simple_name, pattern):
                found.append(t)
        elif name == pattern or t.simple_name == pattern or name.endswith("." + pattern) or name.endswith("$" + pattern):
            found.append(t)
    return sorted(found, key=lambda t: t.name)


async def instance_counts(vm: Vm, pattern: str, limit: int = 200) -> list[HeapCount]:
    if not vm.capabilities.get("can_get_instance_info"):
        raise Unsupported("this JVM cannot count instances (canGetInstanceInfo is false)")
    types = await vm.acquire([t for t in match_classes(await vm.all_classes(refresh=True), pattern)
                              if not t.is_interface])
    if not types:
        from ..locations import suggest

        names = [t.name for t in await vm.all_classes()]
        raise NotFound(f"no loaded class matches '{pattern}'", suggest(pattern, names))
    counts = (await vm.send(VirtualMachine.InstanceCounts, [t.id for t in types])).counts
    result = [HeapCount(t.name, c) for t, c in zip(types, counts, strict=True)]
    result.sort(key=lambda h: (-h.count, h.class_name))
    return CutList(result[:limit], len(result)) if len(result) > limit else result


async def referring(vm: Vm, object_id: int, limit: int) -> list[Value]:
    if not vm.capabilities.get("can_get_instance_info"):
        raise Unsupported("this JVM cannot list referring objects (canGetInstanceInfo is false)")
    return (await vm.send(ObjectReference.ReferringObjects, object_id, limit)).referring_objects
