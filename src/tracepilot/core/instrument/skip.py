"""A probe's WAITER and SKIP slots, over JDWP: the threads whose next call of the probe returns at once.

A thread the probe stopped is popped back to the user's line, so the inserted call runs again when it
resumes; the debugger first makes the thread the WAITER (or, when another thread is, puts it in SKIP) so that
call does not evaluate (and count) again. Any
number of threads may be held at one probe at once (a hot line in a thread pool): when every slot is taken,
the array is replaced by one twice as long. That happens with every thread suspended and none inside the
probe's skipped() (the only code that reads the array), so no thread can take itself out of the old array
after it was copied.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...jdwp import (
    ArrayReference,
    ArrayType,
    ClassType,
    JdwpError,
    ObjectReference,
    ReferenceType,
    Tag,
    ThreadReference,
    Value,
    VirtualMachine,
)

QUIET_ATTEMPTS = 50  # times to let the threads run on (10 ms each) until none is inside skipped()


async def skip_once(vm: Any, probe_type: int, thread: int) -> None:
    """Make `thread` the probe's WAITER, or when another thread is, put it in the SKIP slots and raise ANY: its
    re-run call returns at once. (Only the debugger sets WAITER, when null; only the waiting thread clears it.)"""
    fields = {f.name: f.id for f in await vm.fields(probe_type)}
    if "WAITER" in fields:  # (a probe of an older version has only SKIP)
        waiter = (await vm.send(ReferenceType.GetValues, probe_type, [fields["WAITER"]])).values[0].value
        if not waiter:
            await vm.send(ClassType.SetValues, probe_type, [(fields["WAITER"], Value.object(thread, Tag.THREAD))])
            return
    skip = (await vm.send(ReferenceType.GetValues, probe_type, [fields["SKIP"]])).values[0].value
    slots = await _slots(vm, skip)
    free = next((i for i, v in enumerate(slots) if not v.value), None)
    if free is None:
        skip, free = await _grow(vm, probe_type, fields["SKIP"], skip), len(slots)
    await vm.send(ArrayReference.SetValues, skip, free, [Value.object(thread, Tag.THREAD)])
    await vm.send(ClassType.SetValues, probe_type, [(fields["ANY"], Value.boolean(True))])


async def waiting(vm: Any, probe_type: int) -> bool:
    """Does a thread wait in the probe's WAITER or SKIP (stopped, its call still to run again)?"""
    fields = {f.name: f.id for f in await vm.fields(probe_type)}
    if "WAITER" in fields and (await vm.send(ReferenceType.GetValues, probe_type, [fields["WAITER"]])).values[0].value:
        return True
    skip = (await vm.send(ReferenceType.GetValues, probe_type, [fields["SKIP"]])).values[0].value
    return any(v.value for v in await _slots(vm, skip))


async def _slots(vm: Any, array: int) -> list[Value]:
    length = (await vm.send(ArrayReference.Length, array)).array_length
    return (await vm.send(ArrayReference.GetValues, array, 0, length)).values if length else []


async def _grow(vm: Any, probe_type: int, field_id: int, old: int) -> int:
    """Replace SKIP by an array twice as long holding the same threads; the new array."""
    await vm.send(VirtualMachine.Suspend)
    try:
        for _ in range(QUIET_ATTEMPTS):
            if not await _inside_skipped(vm, probe_type):
                break
            await vm.send(VirtualMachine.Resume)
            await asyncio.sleep(0.01)
            await vm.send(VirtualMachine.Suspend)
        slots = await _slots(vm, old)  # again: a thread may have taken itself out meanwhile
        signature = "[Ljava/lang/Thread;"
        type_id = (await vm.send(VirtualMachine.ClassesBySignature, signature)).classes[0].type_id
        new = (await vm.send(ArrayType.NewInstance, type_id, max(2 * len(slots), 16))).new_array.value
        await vm.send(ObjectReference.DisableCollection, new)
        try:
            for i, v in enumerate(slots):
                if v.value:
                    await vm.send(ArrayReference.SetValues, new, i, [Value.object(v.value, Tag.THREAD)])
            await vm.send(ClassType.SetValues, probe_type, [(field_id, Value.object(new, Tag.ARRAY))])
        finally:
            await vm.send(ObjectReference.EnableCollection, new)
        return new
    finally:
        await vm.send(VirtualMachine.Resume)


async def _inside_skipped(vm: Any, probe_type: int) -> bool:
    skipped = {m.id for m in await vm.methods(probe_type) if m.name == "skipped"}
    for thread in (await vm.send(VirtualMachine.AllThreads)).threads:
        try:
            frames = (await vm.send(ThreadReference.Frames, thread, 0, 2)).frames
        except JdwpError:
            continue  # not started, or gone
        if any(f.location.class_id == probe_type and f.location.method_id in skipped for f in frames):
            return True
    return False
