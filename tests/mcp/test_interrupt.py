"""Thread.interrupt() over MCP: resume(interrupt=true) interrupts the thread before resuming it (the
REPL's `interrupt` command runs the same Debugger.interrupt)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(90)


async def test_resume_with_interrupt_wakes_a_sleeping_thread(mcp_session, jvm_factory):
    target = jvm_factory("Playground", "50")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("exception_break", exception="java.lang.InterruptedException")
        running = await s.ok("resume", timeout=0.3)
        assert "still running" in running.text
        await s.ok("pause")
        stop = await s.ok("resume", thread="main", interrupt=True, timeout=10)
        assert "InterruptedException" in stop.text
        events = await s.ok("events", kinds=["interrupt"])
        assert "interrupted thread main" in events.text


async def test_interrupt_is_refused_read_only(mcp_session, jvm_factory):
    target = jvm_factory("Playground", "50")
    async with mcp_session("memory", read_only=True) as s:
        await s.ok("attach", address=target.address)
        reply = await s.call("resume", thread="main", interrupt=True, timeout=0)
        assert reply.error and "interrupt" in reply.text
