"""A step right after a pause steps in the program's own frame (issue 29, points 1 and 13).

A pause lands wherever the thread is, mostly in the JDK's native Thread.sleep: the JVM never completes a
step over from a native frame, so the step ran on to the next breakpoint or exception. The debugger steps
out to the first frame of the program's code (the frame a person sees selected), then steps from there.
"""

from __future__ import annotations

import anyio
import pytest

from support.jvm import DEMO_SOURCE, demo_line_of

pytestmark = pytest.mark.timeout(60)


async def _pause_in_sleep_after(s, text: str) -> None:
    """Pause once the demo printed `text` (it then sleeps 1.5 s before the next order)."""
    with anyio.fail_after(20):
        while text not in (await s.ok("output")).text:
            await anyio.sleep(0.05)
    paused = await s.ok("pause")
    assert paused.data["stop"]["kind"] == "PAUSE", paused.text


def _in_main_loop(reply) -> None:
    stop = reply.data["stop"]
    assert stop["kind"] == "STEP", reply.text
    location = stop["location"]
    assert location["class_name"] == "ShopDemo" and location["method"] == "main", reply.text
    # the loop's header or body, not the NPE three orders later
    assert demo_line_of("process") - 1 <= location["line"] <= demo_line_of("ship") + 2, reply.text


async def test_step_over_and_into_after_a_pause_in_sleep_stop_in_main(mcp_session, default_jdk):
    async with mcp_session("memory") as s:
        await s.ok("launch", source=str(DEMO_SOURCE))
        await s.ok("exception_break", exception="java.lang.NullPointerException")
        await s.ok("resume", timeout=0)
        await _pause_in_sleep_after(s, "order #1")
        _in_main_loop(await s.ok("step", kind="over", timeout=10))
        assert "order #2" not in (await s.ok("output")).text

        await s.ok("resume", timeout=0)
        await _pause_in_sleep_after(s, "order #2")
        _in_main_loop(await s.ok("step", kind="into", timeout=10))
        assert "order #3" not in (await s.ok("output")).text
