"""A pure in-JVM condition is tested before the probe reads its SKIP gate (probe.build_probe: a false one then
reads no field). The call a stopped thread runs again must still find its SKIP slot: it does because PopFrames
gives it back the arguments of the call that stopped, so the condition answers true again, whatever the user
changed in the frame meanwhile. If the slot were left behind, the thread's next true hit would be skipped."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger

MAIN = "fixtures.HotCondition"


@pytest.mark.timeout(60)
async def test_a_local_changed_at_a_pure_conditions_stop_leaves_no_skip_behind(jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "1000", "2")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        round_end = await d.breakpoint_set(f"{MAIN}:{line_of('hc-round')}")
        bp = await d.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i == 100")
        stop = await d.resume(timeout=30)
        assert stop.stop.breakpoint_id == bp.id
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
        await d.set_value("i", "5")  # the loop goes through i == 100 again in this round
        stop = await d.resume(timeout=30)
        assert stop.stop.breakpoint_id == bp.id, "the second i == 100 of the round was skipped"
        assert {v.name: v.value.text for v in await d.locals()}["i"] == "100"
        assert stop.stop.hit_count == 2
        stop = await d.resume(timeout=30)
        assert stop.stop.breakpoint_id == round_end.id
    finally:
        await d.close()


@pytest.mark.timeout(60)
async def test_after_a_stop_a_false_condition_that_calls_reads_no_more_than_before(jvm_factory, line_of) -> None:
    """The stopped thread's call, run again, takes itself out and leaves the probe as before the stop: ANY
    (whose raising sends every call through the scan of SKIP, 25x on benchmarks' hot loop) stays down."""
    jvm = jvm_factory(MAIN, "1000", "2")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        round_end = await d.breakpoint_set(f"{MAIN}:{line_of('hc-round')}")
        bp = await d.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="Math.abs(i) == 100")
        for _ in range(2):  # each round: a stop at i == 100, then the round's end
            stop = await d.resume(timeout=30)
            assert stop.stop.breakpoint_id == bp.id
            assert {v.name: v.value.text for v in await d.locals()}["i"] == "100"
            stop = await d.resume(timeout=30)
            assert stop.stop.breakpoint_id == round_end.id
            assert await _probe_flags(d) == {"ANY": False, "FORCE": False}
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
    finally:
        await d.close()


async def _probe_flags(d: Debugger) -> dict[str, bool]:
    from tracepilot.jdwp import ReferenceType

    in_jvm = d.session.breakpoints.in_jvm
    vm = d.session.require_vm()
    (probe,) = [t for record in in_jvm.classes.values() for t in record.probe_types.values()]
    fields = {f.name: f.id for f in await vm.fields(probe)}
    values = (await vm.send(ReferenceType.GetValues, probe, [fields["ANY"], fields["FORCE"]])).values
    return {"ANY": bool(values[0].value), "FORCE": bool(values[1].value)}
