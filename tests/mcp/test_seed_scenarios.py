"""Seed 001's eight testing scenarios, end to end through MCP (in memory and over stdio), on real JVMs.

Each scenario is its own test through the in-memory client. Over stdio the eight run one after the other through
one `tracepilot --mcp` process, a detach between them the clean slate the next starts from: the answers are the
same tool code either way, and a server process per scenario cost ~2-4 s of start-up each."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.timeout(90)


async def _attach(s, target) -> None:
    reply = await s.ok("attach", address=target.address)
    assert "VM start" in reply.text or "STOPPED" in reply.text


async def _scenario_1_basic_breakpoint_hit(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    line = line_of("loop-body")
    await _attach(s, target)
    bp = await s.ok("breakpoint_set", location=f"fixtures.Playground:{line}")
    assert bp.data["id"] == "bp-1"
    first = await s.ok("resume")
    assert first.data["stopped"] is True
    assert first.data["stop"]["kind"] == "BREAKPOINT"
    assert first.data["stop"]["location"]["line"] == line
    assert f"STOPPED at fixtures.Playground.main(Playground.java:{line}) — breakpoint bp-1 (hit 1), thread main" \
        in first.text
    status = await s.ok("status")
    assert status.data["state"] == "STOPPED" and status.data["stop"]["kind"] == "BREAKPOINT"
    locals_ = await s.ok("locals")
    assert "i = 0" in locals_.text and "p = " in locals_.text
    second = await s.ok("resume")
    assert second.data["stop"]["hit_count"] == 2
    assert "(hit 2)" in second.text
    status = await s.ok("status")
    assert status.data["stop"]["location"]["line"] == line


async def _scenario_2_step_operations(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    call_line = line_of("loop-call")
    await _attach(s, target)
    await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-static')}")
    await s.ok("resume")
    over = await s.ok("step", kind="over")
    assert over.data["stop"]["kind"] == "STEP"
    assert over.data["stop"]["location"]["line"] == call_line
    status = await s.ok("status")
    assert status.data["state"] == "STOPPED" and status.data["stop"]["kind"] == "STEP"
    into = await s.ok("step", kind="into")
    assert into.data["stop"]["kind"] == "STEP"
    assert into.data["stop"]["location"]["method"] == "compute"
    assert "compute" in into.text


async def _scenario_3_wait_for_stop(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    await _attach(s, target)
    await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-print')}", hit_count=2)
    running = await s.ok("resume", timeout=0)
    assert running.data["stopped"] is False
    stopped = await s.ok("wait_for_stop", timeout=10)
    assert stopped.data["stopped"] is True
    assert stopped.data["stop"]["kind"] == "BREAKPOINT"
    assert stopped.data["waited_ms"] < 10_000


async def _scenario_4_wait_for_stop_timeout(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    await _attach(s, target)
    await s.ok("resume", timeout=0)
    started = time.monotonic()
    reply = await s.ok("wait_for_stop", timeout=2)
    assert time.monotonic() - started >= 1.9
    assert reply.data["stopped"] is False
    assert reply.data["state"] == "RUNNING"
    assert reply.data["waited_ms"] >= 1900
    assert reply.text.startswith("still running")


async def _scenario_5_exception_breakpoint(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground", "10", "throw")
    await _attach(s, target)
    await s.ok("exception_break", exception="java.lang.NullPointerException", caught=True, uncaught=True)
    hit = await s.ok("resume")
    assert hit.data["stop"]["kind"] == "EXCEPTION"
    exc = hit.data["stop"]["exception"]
    assert exc["class_name"] == "java.lang.NullPointerException"
    assert exc["caught"] is True
    assert exc["thrown_at"]["line"] == line_of("risky-npe")
    # the handler starts on the `catch (...)` line, just above the marked first statement
    assert line_of("risky-catch") - 1 <= exc["catch_location"]["line"] <= line_of("risky-catch")
    status = await s.ok("status")
    assert status.data["state"] == "STOPPED" and status.data["stop"]["kind"] == "EXCEPTION"
    assert "NullPointerException" in status.text
    stack = await s.ok("stack")
    assert "risky" in stack.text and "main" in stack.text


async def _scenario_6_watchpoint_hit(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    await _attach(s, target)
    await s.ok("watchpoint_set", field="fixtures.Playground.counter", access=True, modify=False)
    hit = await s.ok("resume")
    assert hit.data["stop"]["kind"] == "WATCHPOINT_ACCESS"
    assert hit.data["stop"]["field"].endswith("counter")
    status = await s.ok("status")
    assert status.data["stop"]["kind"] == "WATCHPOINT_ACCESS"
    assert "read of" in status.text and "counter" in status.text


async def _scenario_7_monitor_events_do_not_stop(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    await _attach(s, target)
    await s.ok("resume", timeout=0)
    # the worker thread starts after ~3 iterations (600 ms): a thread start must not stop the program
    waited = await s.ok("wait_for_stop", timeout=2)
    assert waited.data["stopped"] is False
    status = await s.ok("status")
    assert status.data["state"] == "RUNNING"
    events = await s.ok("events", kinds=["thread_start"])
    assert "worker-1" in events.text
    assert any("worker-1" in e["text"] for e in events.data["events"])


async def _scenario_8_already_stopped(s, jvm_factory, line_of) -> None:
    target = jvm_factory("Playground")
    await _attach(s, target)
    await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-body')}")
    await s.ok("resume")
    started = time.monotonic()
    again = await s.ok("wait_for_stop", timeout=5)
    assert time.monotonic() - started < 1.0
    assert again.data["stopped"] is True
    assert again.data["waited_ms"] < 100


SCENARIOS = [
    _scenario_1_basic_breakpoint_hit,
    _scenario_2_step_operations,
    _scenario_3_wait_for_stop,
    _scenario_4_wait_for_stop_timeout,
    _scenario_5_exception_breakpoint,
    _scenario_6_watchpoint_hit,
    _scenario_7_monitor_events_do_not_stop,
    _scenario_8_already_stopped,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.removeprefix("_"))
async def test_scenario_in_memory(mcp_session, jvm_factory, line_of, scenario):
    async with mcp_session("memory") as s:
        await scenario(s, jvm_factory, line_of)


@pytest.mark.timeout(240)
async def test_the_eight_scenarios_over_one_stdio_server(mcp_session, jvm_factory, line_of):
    async with mcp_session("stdio") as s:
        for scenario in SCENARIOS:
            try:
                await scenario(s, jvm_factory, line_of)
            except AssertionError as e:
                raise AssertionError(f"over stdio, {scenario.__name__.lstrip('_')}: {e}") from e
            await s.ok("detach", terminate=True)
            assert (await s.ok("status")).data["state"] == "DISCONNECTED"
