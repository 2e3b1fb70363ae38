"""Tracing in the JVM answers what the round trip answers (issue 32): the same calls per call path of every
thread on a deterministic program (tests/java/fixtures/TraceShop.java, "once": recursion, a leaf in a loop, a
method already on the stack when the trace starts, a thread started during the trace, an exception unwinding
three frames), the same exceptions thrown out; the classes are restored afterwards."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.instrument.leftovers import calls_a_probe

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))
from test_trace_answers import C, expected_once, read_folded, trace_once  # noqa: E402

from .test_probe_sessions import listening_again  # noqa: E402

pytestmark = pytest.mark.timeout(120)


async def test_in_jvm_trace_answers_as_the_round_trip(jvm_factory, line_of, java_source_root, tmp_path):
    results = {}
    for label, in_jvm in (("in-JVM", True), ("round trip", False)):
        d = Debugger(sourcepath=[str(java_source_root)])
        d.session.breakpoints.in_jvm.enabled = in_jvm
        try:
            out = tmp_path / label.replace(" ", "-")
            out.mkdir()
            result = await trace_once(d, jvm_factory, line_of, out)
            results[label] = result
            assert result.mode == label, result.mode_reason
            classes = await d.session.vm.classes_by_name(C[:-1])
            assert not await calls_a_probe(d.session.vm, classes[0].id)  # restored
        finally:
            await d.close()
    in_jvm, round_trip = results["in-JVM"], results["round trip"]
    assert read_folded(in_jvm.folded) == read_folded(round_trip.folded) == expected_once()
    thrown = {m.method: m.thrown for m in in_jvm.methods}
    assert thrown == {m.method: m.thrown for m in round_trip.methods}
    assert thrown[f"{C}thrower(int)"] == 3
    timed = {m.method: m for m in in_jvm.methods}
    assert timed[f"{C}fib(int)"].own_ms is not None and timed[f"{C}fib(int)"].total_ms > 0


async def test_a_killed_trace_is_restored_by_the_next_session(jvm_factory, line_of, java_source_root):
    jvm = jvm_factory("TraceShop", "hot")
    d = Debugger(sourcepath=[str(java_source_root)])
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.breakpoint_set(f"{C[:-1]}:{line_of('trace-chunk')}")
        stop = await d.resume(timeout=20)
        while stop.stopped and stop.stop.breakpoint_id != bp.id:  # the VM's start
            stop = await d.resume(timeout=20)
        await d.breakpoint_remove(bp.id)
        trace = asyncio.create_task(d.trace(C[:-1], duration=60, resume=True))
        vm = d.session.vm
        shop = (await vm.classes_by_name(C[:-1]))[0].id
        deadline = time.monotonic() + 20
        while not await calls_a_probe(vm, shop):
            assert time.monotonic() < deadline and not trace.done(), "never instrumented"
            await asyncio.sleep(0.05)
        d.session.vm.conn._writer.transport.abort()  # as if killed: nothing restored
        result = await trace
        assert result.stopped_by == "vm_death"
    finally:
        await d.close()
    address = await listening_again(jvm)
    d = Debugger(sourcepath=[str(java_source_root)])
    try:
        await d.attach(address, timeout=10)
        vm = d.session.vm
        shop = (await vm.classes_by_name(C[:-1]))[0].id
        assert not await calls_a_probe(vm, shop)
        assert any("left instrumented: fixtures.TraceShop" in e.text for e in await d.events(limit=100))
    finally:
        await d.close()
