"""Issue 17, points 9, 10 and 14 (first half) over MCP on a real JVM: `source` of a method shows the method
(qualified or simple class name, loaded or not); a cut list says so and how to get the rest; a near miss
in `classes` gets "did you mean"; set_value reaches a static through a simple class name."""

from __future__ import annotations

import pytest
from mcp_harness import open_session

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def at_compute(tmp_path, jvm_factory, default_jdk, java_source_root, line_of):
    """Stopped in Findings.compute; FindingsLate is not loaded yet."""
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    async with open_session("memory", tmp_path) as s:
        await s.ok("attach", address=jvm.address, sourcepath=[str(java_source_root)])
        await s.ok("breakpoint_set", location=f"fixtures.Findings:{line_of('findings-compute')}")
        stopped = (await s.ok("resume", timeout=30)).text
        assert "STOPPED at fixtures.Findings.compute" in stopped, stopped  # the breakpoint, not the VM's start
        yield s


@pytest.mark.parametrize("location", ["fixtures.Findings.compute", "Findings.compute"])
async def test_source_of_a_method_shows_the_method(at_compute, line_of, location):
    reply = await at_compute.ok("source", location=location)
    body = line_of("findings-compute")
    assert f"{body - 1}" in reply.text and "int compute(int x) {" in reply.text, reply.text
    assert "value = x + 1;" in reply.text and "return value;" in reply.text
    assert "package fixtures;" not in reply.text
    assert "public static void main" not in reply.text  # the method, not the file


async def test_source_of_a_method_of_a_class_not_loaded_yet(at_compute):
    reply = await at_compute.ok("source", location="FindingsLate.hello")
    assert "static String hello(int n) {" in reply.text and 'return "hello " + n;' in reply.text, reply.text


async def test_source_of_an_unknown_method_says_what_exists(at_compute):
    reply = await at_compute.err("source", location="fixtures.Findings.compte")
    assert "no method compte" in reply.text and "compute" in reply.text


async def test_cut_class_list_says_how_many_more_and_how(at_compute, monkeypatch):
    import tracepilot.core.inspect.class_list as class_list

    monkeypatch.setattr(class_list, "MAX_CLASSES", 20)
    reply = await at_compute.ok("classes", pattern="java.*")
    assert "more class(es) not shown" in reply.text and "narrow the pattern" in reply.text, reply.text[-300:]
    complete = await at_compute.ok("classes", pattern="fixtures.*")
    assert "fixtures.Findings" in complete.text and "not shown" not in complete.text


async def test_cut_heap_list_says_how_many_more(at_compute):
    reply = await at_compute.ok("heap", pattern="java.*")
    assert "more class(es) not shown" in reply.text, reply.text[-300:]


async def test_classes_near_miss_gets_did_you_mean(at_compute):
    reply = await at_compute.err("classes", pattern="Findngs")
    assert "did you mean" in reply.text and "fixtures.Findings" in reply.text, reply.text


async def test_set_value_of_a_static_through_a_simple_class_name(at_compute):
    await at_compute.ok("set_value", target="Findings.counter", value="52")
    assert "52" in (await at_compute.ok("evaluate", expression="fixtures.Findings.counter")).text


def test_a_cut_list_of_locals_points_to_the_tool_that_lists_them_all():
    from tracepilot.core import render
    from tracepilot.core.model import ValueView, Variable

    many = [Variable(f"v{i}", ValueView("int", str(i))) for i in range(20)]
    assert "... 8 more: locals lists them all" in render.variables(many)
    assert "more" not in render.all_variables(many) and "v19 = 19" in render.all_variables(many)
