"""Who refers to an object, by name: the field, array slot or static field that holds it, and for a library
object (a lock, a sync inside a lock) the application object it belongs to.

"ReentrantLock in Jobs$Account{id="savings"}.lock" tells a reader which lock it is; "ReentrantLock$NonfairSync
@4" does not. Referring objects come from ObjectReference.ReferringObjects (canGetInstanceInfo); a static
field's holder shows up there as the class object, whose static fields are then searched.
"""

from __future__ import annotations

from ...jdwp import ClassObjectReference, JdwpError, Tag, Value
from ..vm import Vm
from .heap import referring
from .objects import obj
from .stack import is_library
from .values import Values, simple

REFERRERS_ASKED = 20  # per step: a lock is referred to by its owner, its sync, parked threads, queue nodes
STEPS = 3  # Sync -> ReentrantLock -> owner object; deeper chains are not worth the heap walks


async def via(values: Values, ref: Value, target_id: int) -> list[str]:
    """How `ref` refers to the target: field names, array indices ("[3]"), or "static Foo.bar" when `ref` is
    a class object (the holder of a static field)."""
    o = values.objects
    try:
        if ref.tag == Tag.CLASS_OBJECT:
            type_id = await _reflected(values.vm, ref.value)
            info = await values.vm.type(type_id)
            statics = [f for f in await values.vm.fields(type_id) if f.is_static and f.signature[0] in "L["]
            found = await o.static_values(type_id, statics)
            return [f"static {simple(info.name)}.{f.name}" for f, v in zip(statics, found, strict=True)
                    if obj(v) == target_id]
        if (await o.type_name(ref.value)).endswith("[]"):
            return [f"[{i}]" for i, v in enumerate(await o.elements(ref.value, 0, 10_000)) if obj(v) == target_id][:5]
        fields = [f for f in await o.instance_fields(await o.type_id(ref.value)) if f.signature[0] in "L["]
        found = await o.field_values(ref.value, fields)
        return [f.name for f, v in zip(fields, found, strict=True) if obj(v) == target_id]
    except JdwpError:
        return []


async def _reflected(vm: Vm, class_object_id: int) -> int:
    return (await vm.send(ClassObjectReference.ReflectedType, class_object_id)).type_id


async def owner_name(values: Values, object_id: int) -> str | None:
    """A name for a library object by what holds it: "ReentrantLock in Jobs$Account{…}.lock", "Object in
    static Deadlocks.MONITOR_A". None for an application object (its own summary names it) or when
    nothing names it."""
    vm, o = values.vm, values.objects
    if not vm.capabilities.get("can_get_instance_info"):
        return None
    try:
        if not is_library(await o.type_name(object_id)):
            return None
        current = object_id
        label = simple(await o.type_name(object_id))
        for _ in range(STEPS):
            refs = await referring(vm, current, REFERRERS_ASKED)
            wrapper: tuple[int, str] | None = None
            for ref in refs:
                if not ref.is_object or ref.is_null or ref.tag == Tag.THREAD:
                    continue  # a parked thread's parkBlocker names the lock it waits for, not its owner
                names = await via(values, ref, current)
                if not names:
                    continue
                if ref.tag == Tag.CLASS_OBJECT:
                    return f"{label} in {names[0]}"
                type_name = await o.type_name(ref.value)
                if not is_library(type_name) and not type_name.endswith("[]"):
                    holder = (await values.view(ref, None, 1)).text
                    return f"{label} in {holder}.{names[0]}"
                if wrapper is None and not type_name.endswith("[]") and not type_name.endswith("$Node") \
                        and "ConditionNode" not in type_name and "ExclusiveNode" not in type_name:
                    wrapper = (ref.value, simple(type_name))
            if wrapper is None:
                return None
            current, label = wrapper  # e.g. the NonfairSync's ReentrantLock: name that instead
        return None
    except JdwpError:
        return None
