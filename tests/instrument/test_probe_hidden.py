"""The in-JVM probe is invisible: steps, returns, stacks, class lists, heap counts and threads never show it
(issue 26 point 4)."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import NotFound

MAIN = "fixtures.HotCondition"


@pytest.mark.timeout(90)
async def test_steps_over_and_into_a_line_with_a_probe_show_only_the_program(jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "1000", "2")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        body = line_of("hc-body")
        bp = await d.breakpoint_set(f"{MAIN}:{body}", condition="i == 3 || i == 5")
        stop = await d.resume(timeout=30)
        assert stop.stopped and stop.stop.breakpoint_id == bp.id and bp.mode == "in-JVM"
        seen = []
        for kind in ("over", "over", "into", "into", "over", "into"):
            step = await d.step(kind, timeout=30)
            assert step.stopped, step.message
            seen.append(step.stop.describe() if hasattr(step.stop, "describe") else str(step.stop))
            assert step.stop.location.class_name == MAIN, step.stop.location
            assert step.stop.returned_from is None or "Probe" not in step.stop.returned_from, step.stop.returned_from
            assert step.stop.returned_from not in ("skipped", "check", "take", "count", "log"), seen
            assert all(f.location.class_name == MAIN for f in await d.stack())
        assert not [c for c in await d.classes("*") if "TracepilotProbe" in c.name]
        for pattern in ("*Probe*", "*TracepilotProbe*"):
            with pytest.raises(NotFound) as refused:
                await d.classes(pattern)
            assert "Probe_" not in str(refused.value)
            with pytest.raises(NotFound):
                await d.heap(pattern)
        assert not [t for t in await d.threads(include_system=True) if "Probe" in (t.name or "")]
        assert not [e for e in await d.events(limit=1000) if "Probe" in e.text or "skipped()" in e.text]
    finally:
        await d.close()


@pytest.mark.timeout(90)
async def test_an_exception_a_condition_throws_in_the_jvm_is_no_exception_stop(jvm_factory, line_of) -> None:
    """By round trip the debugger evaluates the condition: its exception is a condition error, never an
    exception breakpoint's stop. The same in the JVM, where the probe catches it."""
    jvm = jvm_factory(MAIN, "100", "1")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        caught = await d.exception_break("java.lang.ArithmeticException", caught=True, uncaught=True)
        bp = await d.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="10 / (i - 5) > 100")
        stop = await d.resume(timeout=30)
        assert bp.mode == "in-JVM"
        assert stop.stop.breakpoint_id == bp.id and "condition error" in (stop.stop.message or ""), stop.stop
        assert not (await d.resume(timeout=30)).stopped
        assert next(b for b in await d.breakpoint_list() if b.id == caught.id).hits == 0
    finally:
        await d.close()


@pytest.mark.timeout(90)
async def test_a_breakpoint_in_a_method_the_condition_calls_does_not_stop_for_the_condition(
        jvm_factory, line_of) -> None:
    jvm = jvm_factory("fixtures.ProbeCalls")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        inside = await d.breakpoint_set(f"fixtures.ProbeCalls:{line_of('pc-inside')}")
        bp = await d.breakpoint_set(f"fixtures.ProbeCalls:{line_of('pc-line')}", condition="interesting(i)")
        stop = await d.resume(timeout=30)
        assert bp.mode == "in-JVM", bp.mode
        assert stop.stop.breakpoint_id == bp.id, stop.stop
        assert {v.name: v.value.text for v in await d.locals()}["i"] == "7"
        assert not (await d.resume(timeout=30)).stopped
        assert next(b for b in await d.breakpoint_list() if b.id == inside.id).hits == 0
        jvm.wait(30)
        assert "sum 190 calls 20" in jvm.stdout_text()
    finally:
        await d.close()
