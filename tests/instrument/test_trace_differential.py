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
from tracepilot.core.render import trace as render_trace
from tracepilot.core.trace.probe import RECORDED_CALLS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))
from test_trace_answers import C, expected_once, read_folded, trace_once  # noqa: E402

from .test_probe_sessions import listening_again  # noqa: E402

pytestmark = pytest.mark.timeout(120)


async def test_in_jvm_trace_answers_as_the_round_trip(jvm_factory, line_of, java_source_root, tmp_path):
    results = {}
    for label, in_jvm in (("in-JVM", True), ("round trip", False)):
        d = Debugger(sourcepath=[str(java_source_root)], redact=in_jvm)
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
    assert timed[f"{C}hot(int)"].own_ms is None  # a tiny leaf: counted, not timed (its time is its callers')
    assert round_trip.first_calls is None
    check_first_calls(in_jvm)


def check_first_calls(result) -> None:
    """The first calls recorded in the JVM: arguments, return values, exceptions, redaction, bounds."""
    calls: dict[str, list] = {}
    for c in result.first_calls:
        calls.setdefault(c.method, []).append(c)
    text = render_trace(result)
    fib = calls[f"{C}fib(int)"]
    assert len(fib) == RECORDED_CALLS, text  # 25 calls, the first 8 recorded
    assert (fib[0].arguments, fib[0].returned, fib[0].thread) == (["n=6"], "8", "main"), text
    assert [c.arguments for c in fib[:3]] == [["n=6"], ["n=5"], ["n=4"]]
    assert [(c.arguments, c.ended) for c in calls[f"{C}thrower(int)"]] == [
        (["depth=2"], "threw"), (["depth=1"], "threw"), (["depth=0"], "threw")]
    assert calls[f"{C}hot(int)"][0].arguments == ["i=0"] and calls[f"{C}hot(int)"][0].returned == "7"
    login = calls[f"{C}login(java.lang.String, java.lang.String)"][0]
    assert login.arguments[0] == 'user="ada"' and "s3cret" not in str(login.arguments), login
    assert login.returned == "true" and "s3cret" not in text
    assert any(c.thread == "worker" for c in calls[f"{C}chunk(int)"])
    assert f"  {C}fib(n=6) -> 8  [main]" in text and f"{C}thrower(depth=2) threw" in text, text


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
    d, _shop = await restored_by_a_new_session(jvm, java_source_root)
    await d.close()


async def restored_by_a_new_session(jvm, source_root: Path) -> tuple[Debugger, int]:  # noqa: ANN001
    """A new session attaches to the JVM a killed one left TraceShop instrumented in: it restores the class
    (no probe call left) and says so. The caller closes the session (attached) it gets with the class's id."""
    address = await listening_again(jvm)
    d = Debugger(sourcepath=[str(source_root)])
    try:
        await d.attach(address, timeout=10)
        vm = d.session.vm
        shop = (await vm.classes_by_name(C[:-1]))[0].id
        assert not await calls_a_probe(vm, shop)
        assert any("left instrumented: fixtures.TraceShop" in e.text for e in await d.events(limit=100))
    except BaseException:
        await d.close()
        raise
    return d, shop
