"""Load: a logpoint in a hot loop is throttled (not a round trip per hit forever), stops still arrive,
history stays a bounded ring, a 1,000,000-event trace keeps memory bounded, and breakpoint/resume
cycles in a serving program do not grow the debugger's memory.

The long soak (10 minutes of cycles) is benchmarks/soak_serving.py; the suite runs a bounded version.
"""

from __future__ import annotations

import gc
import os
import time

import pytest
from reliability_support import rss_bytes

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState, StopKind

pytestmark = pytest.mark.timeout(120)


async def test_hot_logpoint_is_throttled_and_stops_still_arrive(jvm_factory, line_of):
    d = Debugger(logpoint_rate=100)
    try:
        jvm = jvm_factory("HotLoop", "1000000")
        await d.attach(jvm.address, timeout=10)
        logpoint = await d.breakpoint_set(f"HotLoop:{line_of('hot-body')}", log="i={i} sum={sum}")
        done = await d.breakpoint_set(f"HotLoop:{line_of('hot-done')}")
        started = time.monotonic()
        result = await d.resume(timeout=90)
        elapsed = time.monotonic() - started
        assert result.stopped and result.stop.breakpoint_id == done.id, result
        throttled = await d.events(kinds=["breakpoint_throttled"], limit=1000)
        assert throttled, "a logpoint firing 1,000,000 times was never throttled"
        assert "lines/s" in throttled[0].text and logpoint.id in throttled[0].text
        info = next(b for b in await d.breakpoint_list() if b.id == logpoint.id)
        assert info.sampled and info.sampled > 1 and "throttled" in info.describe()
        logs = await d.events(kinds=["log"], limit=1_000_000)
        # bounded by the rate (plus the one-second burst), not by the million hits
        assert len(logs) <= 100 * (elapsed + 2), (len(logs), elapsed)
        assert logs and logs[0].text.startswith("i=")
        assert len(d.history.since(0, limit=None)) <= d.history._ring.maxlen
        # the program ran to the end under a throttled logpoint: all 1,000,000 iterations
        value = await d.evaluate("sum")
        assert value.text == str(sum(range(1_000_000)))
        # changing the logpoint starts its throttle afresh
        info = await d.breakpoint_update(logpoint.id, log="again {i}")
        assert info.sampled is None
    finally:
        await d.close()


async def test_million_trace_events_keep_memory_bounded(debugger, jvm_factory, line_of):
    jvm = jvm_factory("HotLoop", "600000")
    debugger.session.breakpoints.in_jvm.enabled = False  # the round trip's events (in the JVM: no events)
    await debugger.attach(jvm.address, timeout=10)
    done = await debugger.breakpoint_set(f"HotLoop:{line_of('hot-done')}")
    await debugger.resume()
    gc.collect()
    before = rss_bytes()
    # 500,000 calls of step() = 1,000,000 method entry/exit events
    result = await debugger.trace("fixtures.HotLoop", duration=90, max_calls=500_000)
    gc.collect()
    grown = rss_bytes() - before
    assert result.calls >= 500_000, result
    assert grown < 64 * 1024 * 1024, f"tracing grew this process by {grown / 2**20:.0f} MiB"
    assert len(debugger.history.since(0, limit=None)) <= debugger.history._ring.maxlen
    stop = await debugger.wait_for_stop(60)
    assert stop.stopped and stop.stop.breakpoint_id == done.id


async def test_history_is_a_bounded_ring(debugger):
    history = debugger.history
    capacity = history._ring.maxlen
    for i in range(capacity * 3):
        history.add("log", f"line {i}")
    records = history.since(0, limit=None)
    assert len(records) == capacity and history.dropped == capacity * 2
    assert records[-1].seq == capacity * 3 and records[0].seq == capacity * 2 + 1


SOAK_SECONDS = float(os.environ.get("TRACEPILOT_SOAK_SECONDS", "0"))  # 600 = the 10 minutes
SOAK_CYCLES = 2_000


@pytest.mark.timeout(max(120, SOAK_SECONDS * 1.5 + 60))
async def test_breakpoint_resume_cycles_in_a_serving_program_do_not_grow_memory(debugger, jvm_factory, line_of):
    """Bounded in the suite (2,000 cycles or 60 s); TRACEPILOT_SOAK_SECONDS=600 (benchmarks/soak_serving.py)
    runs the 10-minute soak."""
    jvm = jvm_factory("Serving")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"Serving:{line_of('handle')}")
    budget = SOAK_SECONDS or 60.0
    cycles_wanted = None if SOAK_SECONDS else SOAK_CYCLES

    async def cycle() -> None:
        result = await debugger.resume(timeout=10)
        assert result.stopped and result.stop.breakpoint_id == bp.id, result
        await debugger.stack(count=5)
        await debugger.locals()

    for _ in range(200):  # warm-up: caches, handles, the allocator's arenas
        await cycle()
    gc.collect()
    before = rss_bytes()
    jvm_before = rss_bytes(jvm.pid)
    started = time.monotonic()
    cycles = 0
    while time.monotonic() - started < budget and (cycles_wanted is None or cycles < cycles_wanted):
        await cycle()
        cycles += 1
    gc.collect()
    after = rss_bytes()
    assert cycles >= 200, f"only {cycles} cycles in {budget:g}s"
    assert after < before * 1.10, f"RSS grew {before / 2**20:.1f} -> {after / 2**20:.1f} MiB over {cycles} cycles"
    assert len(debugger.history.since(0, limit=None)) <= debugger.history._ring.maxlen
    # the target's own memory (JIT, heap) may move a little; our requests must not make it balloon
    assert rss_bytes(jvm.pid) < jvm_before * 1.5 + 32 * 2**20
    assert (await debugger.status()).state is SessionState.STOPPED
    assert (await debugger.status()).stop.kind is StopKind.BREAKPOINT
