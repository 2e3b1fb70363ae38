"""Issue 17, point 17: argument checking over MCP on a real JVM. JSON true is not thread 1; an unknown thread
name on pause is an error; type errors read in the tools' own words (no pydantic text, no link); a
3,000-deep expression is refused cleanly; logpoint templates are checked at set time like conditions."""

from __future__ import annotations

import pytest
from mcp_harness import open_session

pytestmark = pytest.mark.timeout(90)


def _plain(text: str) -> None:
    assert "pydantic" not in text.lower() and "http" not in text, text
    assert "validation error" not in text.lower(), text


@pytest.fixture
async def stopped_in_compute(tmp_path, jvm_factory, default_jdk, java_source_root, line_of):
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    async with open_session("memory", tmp_path) as s:
        await s.ok("attach", address=jvm.address, sourcepath=[str(java_source_root)])
        await s.ok("breakpoint_set", location=f"fixtures.Findings:{line_of('findings-compute')}")
        reply = await s.ok("resume", timeout=30)
        assert "STOPPED" in reply.text
        yield s


async def test_json_true_is_not_thread_one(stopped_in_compute):
    s = stopped_in_compute
    for tool, extra in (("stack", {}), ("locals", {}), ("evaluate", {"expression": "x"}), ("resume", {"timeout": 0})):
        reply = await s.err(tool, thread=True, **extra)
        _plain(reply.text)
        assert "thread=true" in reply.text and "thread id or name" in reply.text, reply.text
    reply = await s.err("locals", frame=True)
    assert "frame=true" in reply.text


async def test_type_errors_in_the_tools_own_words(stopped_in_compute):
    s = stopped_in_compute
    reply = await s.err("step", count=0)
    _plain(reply.text)
    assert reply.text.startswith("step: count") and "(got 0)" in reply.text, reply.text
    reply = await s.err("stack", count="many")
    _plain(reply.text)
    assert "count" in reply.text and "'many'" in reply.text
    reply = await s.err("breakpoint_set")
    _plain(reply.text)
    assert "location is required" in reply.text


async def test_pause_with_an_unknown_thread_name_is_an_error(stopped_in_compute):
    reply = await stopped_in_compute.err("pause", thread="no-such-thread")
    assert "no thread named 'no-such-thread'" in reply.text
    assert "STOPPED" not in reply.text


async def test_a_very_deep_expression_is_refused_cleanly(stopped_in_compute):
    s = stopped_in_compute
    reply = await s.err("evaluate", expression="+".join(["x"] * 3000))
    assert "RecursionError" not in reply.text and "recursion" not in reply.text.lower()
    assert "levels deep" in reply.text, reply.text
    nested = await s.err("evaluate", expression="(" * 3000 + "x" + ")" * 3000)
    assert "levels deep" in nested.text
    fine = await s.ok("evaluate", expression="+".join(["1"] * 100))
    assert "100" in fine.text


async def test_logpoint_templates_are_checked_at_set_time(stopped_in_compute, line_of):
    s = stopped_in_compute
    reply = await s.err("breakpoint_set", location=f"fixtures.Findings:{line_of('findings-inner')}", log="{i > }")
    assert "log message" in reply.text and "does not parse" in reply.text, reply.text
    reply = await s.err("breakpoint_set", location=f"fixtures.Findings:{line_of('findings-inner')}", log="x={x")
    assert "never closed" in reply.text, reply.text
    listed = await s.ok("breakpoint_list")
    assert [bp["id"] for bp in listed.data["breakpoints"]] == ["bp-1"]  # nothing half-set, no id used up
    bp = await s.ok("breakpoint_set", location=f"fixtures.Findings:{line_of('findings-inner')}", log="y={y}")
    bp_id = bp.data["id"]
    assert bp_id == "bp-2"
    bad = await s.err("breakpoint_update", id=bp_id, log="{y +}")
    assert "does not parse" in bad.text
    after = await s.ok("breakpoint_list")
    assert "y={y}" in after.text  # the failed update changed nothing
