"""Capture points over MCP (issue 31): `capture` on breakpoint_set and method_break, the `captures` tool, the
captures in the next stop answer and in `events`."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(90)


async def test_capture_points_and_the_captures_tool(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Captured")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        line = line_of("captured-line")
        point = await s.ok("breakpoint_set", location=f"fixtures.Captured:{line}", condition="i == 3", capture=1,
                           expressions=["chain.next.label"], capture_limits={"items": 5})
        assert point.data["capture"]["limit"] == 1 and "capture 0/1" in point.text
        entry = await s.ok("method_break", method="fixtures.Captured.step", capture=2)
        write = await s.ok("watchpoint_set", field="fixtures.Captured.round", capture=1, expressions=["$new"])
        await s.err("breakpoint_set", location=f"fixtures.Captured:{line}", capture=1, log="x")
        await s.err("breakpoint_set", location=f"fixtures.Captured:{line}", capture=1, capture_limits={"deep": 3})
        await s.err("breakpoint_update", id=point.data["id"], suspend="all")
        await s.err("breakpoint_update", id=point.data["id"], log="x={i}")
        await s.ok("breakpoint_set", location=f"fixtures.Captured:{line_of('captured-end')}")
        stop = await s.ok("resume")
        assert stop.data["stop"]["location"]["line"] == line_of("captured-end"), stop.text
        # The stop answer tells what the points took on the way (as it tells log lines).
        assert f"capture {point.data['id']} #1 at Captured.step:{line}" in stop.text, stop.text
        taken = await s.ok("captures", id=point.data["id"])
        assert "names = ArrayList" in taken.text and "[5 of 25 elements]" in taken.text, taken.text
        assert 'chain.next.label = "b3"' in taken.text, taken.text
        assert taken.data["captures"][0]["frames"][0]["location"]["line"] == line
        entries = await s.ok("captures", id=entry.data["id"])
        assert [c["number"] for c in entries.data["captures"]] == [1, 2]
        assert all(c["frames"][0]["location"]["method"] == "step" for c in entries.data["captures"])
        written = await s.ok("captures", id=write.data["id"])
        assert "$new = 1" in written.text and written.data["captures"][0]["frames"][0]["location"]["method"] == "step"
        listed = await s.ok("breakpoint_list")
        assert "capture 1/1 done" in listed.text and "capture 2/2 done" in listed.text, listed.text
        events = await s.ok("events", kinds=["capture"])
        assert len(events.data["events"]) == 4
        none_yet = await s.ok("captures", id=point.data["id"], since=taken.data["captures"][-1]["seq"], wait=0.2)
        assert none_yet.data["captures"] == [] and "no captures yet" in none_yet.text
