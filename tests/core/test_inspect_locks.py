"""Deadlocks: two threads on synchronized monitors, and two on ReentrantLocks, both reported as cycles."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger

pytestmark = pytest.mark.timeout(90)


async def _deadlock_report(jvm_factory, mode: str, jdk: str):
    jvm = jvm_factory("Deadlocks", mode, jdk=jdk, suspend=False)
    jvm.wait_for_output("deadlock threads started")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        # The threads reach their second lock a moment after the latch opens; nothing signals that.
        for _ in range(100):
            report = await d.locks()
            if report.deadlocks:
                return report, await d.status()
            await asyncio.sleep(0.05)
        return report, await d.status()
    finally:
        await d.close()


@pytest.mark.parametrize("mode", ["monitor", "reentrant"])
async def test_two_thread_deadlock_is_reported_as_a_cycle(jvm_factory, jdk, mode):
    report, status = await _deadlock_report(jvm_factory, mode, jdk)
    assert len(report.deadlocks) == 1, report
    cycle = report.deadlocks[0]
    assert sorted(cycle.threads) == ["dl-a", "dl-b"]
    text = cycle.description
    assert "thread dl-a holds" in text and "held by thread dl-b" in text
    assert "thread dl-b holds" in text and "held by thread dl-a" in text
    by_name = {t.thread: t for t in report.threads}
    a, b = by_name["dl-a"], by_name["dl-b"]
    assert a.owner == "dl-b" and b.owner == "dl-a"
    assert a.waits_for is not None and b.waits_for is not None
    assert a.waits_for.handle in {h.handle for h in b.holds}
    assert b.waits_for.handle in {h.handle for h in a.holds}
    if mode == "monitor":
        assert a.wait_kind == "monitor" and a.state == "blocked"
    else:
        assert a.wait_kind == "park" and "ReentrantLock" in a.waits_for.type
    assert report.headline().startswith("DEADLOCK: ")
    assert status.state.value == "RUNNING"  # asking suspended the VM only for the question
