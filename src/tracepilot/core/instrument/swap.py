"""Hot swap of an instrumented class: the new bytes get the same probe calls, in the same redefinition.

Without this, a hot swap would throw the probe calls away with the old bytes and every in-JVM breakpoint
of the class would fall back to the round trip. Instead the new class file is instrumented with the
class's breakpoints (compiled against the new code: a condition may capture other slots now), and any
probe whose code changed is redefined in the same RedefineClasses as the class. A probe the new code would
need but that does not exist yet (its line now in a second method), or whose call signature changed, cannot
be redefined that way: then the class is swapped in as given and its breakpoints fall back, as before.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from ...jdwp import EventRequest, JdwpError
from .owner import InJvmHost
from .plan import Instrumentation, NotCompilable, instrument


@dataclass
class PendingSwap:
    data: bytes  # the new class file as given
    result: Instrumentation  # it, instrumented
    probes: set[int]  # probe classes redefined along with it


async def prepare(in_jvm: InJvmHost, type_id: int, data: bytes) -> list[tuple[str, int, bytes]] | None:
    """The redefinitions that swap `data` in with the class's probes (the class first), or None: swap
    `data` as it is (the class has no probes, or they cannot follow; see the module's docstring)."""
    record = in_jvm.classes.get(type_id)
    if record is None or not record.specs or record.current is None:
        return None
    vm = in_jvm.session.require_vm()
    try:
        result = await instrument(data, list(record.specs.values()), record.shapes(vm), {})
    except NotCompilable:
        return None
    old = {placed.probe.class_name: placed.probe for placed in record.current.probes}
    redefinitions = [(record.name.replace("/", "."), type_id, result.data)]
    probes = set()
    for placed in result.probes:
        name = placed.probe.class_name
        before = old.get(name)
        if name not in record.probe_types or before is None \
                or before.check_descriptor != placed.probe.check_descriptor:
            return None
        if before.data != placed.probe.data:
            redefinitions.append((name.replace("/", "."), record.probe_types[name], placed.probe.data))
            probes.add(record.probe_types[name])
    in_jvm.pending_swaps[type_id] = PendingSwap(data, result, probes)
    return redefinitions


async def finish(in_jvm: InJvmHost, type_id: int) -> bool:
    """After the redefinition: the record describes the new bytes, the redefined probes' event requests
    (which the JVM dropped) are made again. True when the class kept its probes."""
    pending = in_jvm.pending_swaps.pop(type_id, None)
    record = in_jvm.classes.get(type_id)
    if pending is None or record is None:
        return False
    vm = in_jvm.session.require_vm()
    record.original, record.current, record.compiled = pending.data, pending.result, {}
    record.original_array = None  # the bytes a later session would restore are the new ones now
    for probe_type in record.probe_types.values():
        vm.forget(probe_type)
        with contextlib.suppress(JdwpError):
            await in_jvm.mark_probe(record, probe_type)
    tracker = in_jvm.tracker
    for bp_id, spec in record.specs.items():
        bp = tracker.by_id.get(bp_id)
        if bp is None:
            continue
        stale = [r for r, p in in_jvm.requests.items()
                 if p.bp_id == bp_id and p.role in ("hit", "error", "handover") and p.probe_type in pending.probes]
        if not stale:
            continue
        for request_id in stale:
            in_jvm.requests.pop(request_id, None)
            tracker.by_request.pop(request_id, None)
            kind = bp.requests.pop(request_id, None)
            if kind is not None:
                with contextlib.suppress(JdwpError):
                    await vm.send(EventRequest.Clear, kind, request_id)
        await in_jvm.request_probe_events(bp, record, spec, only=pending.probes)
    return True


def discard(in_jvm: InJvmHost, type_id: int) -> None:
    """The redefinition was refused: nothing changed."""
    in_jvm.pending_swaps.pop(type_id, None)


