"""Calls the in-JVM path makes into the target have a deadline and a way back (issue 25 point 7)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger


@pytest.mark.timeout(90)
async def test_a_condition_set_while_threads_are_held_by_other_stops_is_answered(jvm_factory, line_of) -> None:
    jvm = jvm_factory("fixtures.Storm", "12", "400")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", suspend="all")
        first = await d.resume(timeout=30)
        assert first.stopped
        await d.resume(timeout=0)  # answered with another thread's waiting stop (or none yet)
        await d.wait_for_stop(10)
        bp = await asyncio.wait_for(d.breakpoint_set(f"fixtures.Storm:{line_of('storm-after')}",
                                                     condition="v % 7 == 0 && id % 2 == 0"), 40)
        assert bp.mode == "in-JVM" or bp.mode.startswith("round trip ("), bp.mode
    finally:
        await d.close()


@pytest.mark.timeout(90)
async def test_a_probe_that_cannot_be_defined_in_time_falls_back_with_the_reason(jvm_factory, line_of) -> None:
    """The class's loader is locked by a running thread: defining the probe blocks; the call has a deadline."""
    jvm = jvm_factory("fixtures.ProbeLocks", suspend=False)
    await asyncio.to_thread(jvm.wait_for_output, "probe locks started", 30)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        d.session.breakpoints.in_jvm.call_timeout = 2.0
        held = "fixtures.ProbeLocks$Held"
        plain = await d.breakpoint_set(f"{held}:{line_of('pl-work')}", suspend="all")
        stop = await d.wait_for_stop(30)
        assert stop.stopped and stop.stop.breakpoint_id == plain.id
        bp = await asyncio.wait_for(d.breakpoint_set(f"{held}:{line_of('pl-cond')}", condition="v % 5 == 0"), 30)
        assert bp.mode.startswith("round trip (could not prepare the probe"), bp.mode
        assert "did not return within 2s" in bp.mode, bp.mode
        # The thread stays inside that call: the next condition says so at once instead of waiting again.
        other = await asyncio.wait_for(d.breakpoint_set(f"{held}:{line_of('pl-call')}", condition="v > 3"), 1.5)
        assert other.mode.startswith("round trip (could not prepare the probe: thread main is inside a call"), \
            other.mode
    finally:
        await d.close()


@pytest.mark.timeout(120)
async def test_more_than_sixteen_threads_stopped_at_one_probe_each_evaluate_once(jvm_factory, line_of) -> None:
    """Every thread a probe stops re-runs the probe's call on resume, which must not evaluate again: with
    20 threads held at one probe at once (their events handled concurrently, more than the probe's first 16
    skip slots), each hit is counted and stops once (issue 26 point 6)."""
    jvm = jvm_factory("fixtures.Storm", "20", "1")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", condition="id >= 0 && round == 0",
                                   suspend="thread")
        stop = await d.resume(timeout=30)
        assert bp.mode == "in-JVM"
        seen = set()
        while stop.stopped:
            assert stop.stop.breakpoint_id == bp.id
            seen.add(stop.stop.thread_id)
            if len(seen) == 20:
                break
            stop = await d.session.wait_for_stop(30, new_only=True)  # the others' stops, none resumed
        assert len(seen) == 20  # all twenty held at the probe at once
        done = await d.resume(timeout=30)
        assert not done.stopped, done.stop
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).hits == 20
    finally:
        await d.close()
