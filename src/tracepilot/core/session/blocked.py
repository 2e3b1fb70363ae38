"""Why a thread resumed on its own does not get anywhere: it waits for a monitor whose owner the debugger holds
suspended. Resuming that thread alone can never let it run; the answer says so, and what to do, instead of a
plain "still running after N s"."""

from __future__ import annotations

import contextlib

from ...jdwp import JdwpTransportError, ObjectReference, ThreadReference, ThreadStatus, VirtualMachine
from ..vm import Vm


async def blocked_by_suspended(vm: Vm, thread_id: int) -> str | None:
    """'main waits for a lock held by helper, which is suspended: resume helper too, or resume all', or None
    when the thread is not blocked on a monitor, or its owner runs (or the JVM cannot tell)."""
    caps = vm.capabilities
    if not (caps.get("can_get_current_contended_monitor") and caps.get("can_get_monitor_info")):
        return None
    try:  # (Status needs no suspension: most resumed threads run, and cost this one round trip only)
        if (await vm.send(ThreadReference.Status, thread_id)).thread_status != ThreadStatus.MONITOR:
            return None
    except JdwpTransportError:  # the thread ended, the VM went: nothing to explain
        return None
    # The contended monitor can only be asked of a suspended thread: suspend every thread for the look and
    # resume exactly once (the pair leaves each count as it was; the owner's count reads one higher meanwhile).
    try:
        await vm.send(VirtualMachine.Suspend)
    except JdwpTransportError:
        return None
    try:
        status = await vm.send(ThreadReference.Status, thread_id)
        if status.thread_status != ThreadStatus.MONITOR:
            return None
        contended = (await vm.send(ThreadReference.CurrentContendedMonitor, thread_id)).monitor
        if contended.is_null:
            return None
        owner = (await vm.send(ObjectReference.MonitorInfo, contended.value)).owner
        if not owner or owner == thread_id:
            return None
        if (await vm.send(ThreadReference.SuspendCount, owner)).suspend_count <= 1:  # only the look's own
            return None
    except JdwpTransportError:  # the thread ended, the object went: nothing to explain
        return None
    finally:
        with contextlib.suppress(Exception):
            await vm.send(VirtualMachine.Resume)
    try:
        waiter, holder = await vm.thread_name(thread_id), await vm.thread_name(owner)
    except JdwpTransportError:
        return None
    return (f"{waiter} waits for a lock held by {holder}, which is suspended: resume {holder} too, "
            "or resume all")
