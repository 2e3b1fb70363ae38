"""Every tool's happy path and its main error path, against real JVMs.

Most run in memory (the transport is covered by the scenario tests); one pass runs over stdio.
"""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.timeout(120)


async def _stopped_in_compute(s, target, line_of, **attach_args) -> None:
    await s.ok("attach", address=target.address, **attach_args)
    await s.ok("breakpoint_set", location=f"fixtures.Playground:{line_of('compute-body')}", hit_count=3)
    stop = await s.ok("resume")
    assert stop.data["stop"]["kind"] == "BREAKPOINT", stop.text


async def test_breakpoint_tools(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        pending = await s.ok("breakpoint_set", location="fixtures.LaterLoadedTarget:5")
        assert pending.data["verified"] is False and "not loaded yet" in pending.text
        await s.ok("breakpoint_remove", id=pending.data["id"])
        await s.ok("breakpoint_set", location=f"Playground:{line_of('main-start')}", temporary=True)
        await s.ok("resume")  # fixtures.Playground is loaded from here on: unknown members are errors
        bad = await s.err("breakpoint_set", location="no line here")
        assert "location" in bad.text.lower() or "line" in bad.text.lower()

        bp = await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-print')}", condition="i == 1")
        assert bp.data["condition"] == "i == 1"
        updated = await s.ok("breakpoint_update", id=bp.data["id"], condition="i == 2", enabled=True)
        assert updated.data["condition"] == "i == 2"
        assert "if i == 2" in updated.text
        await s.err("breakpoint_update", id="bp-99", enabled=False)

        method = await s.ok("method_break", method="fixtures.Playground.compute", on="exit")
        assert method.data["kind"] in ("method_exit", "method")
        watch = await s.ok("watchpoint_set", field="fixtures.Playground.staticCounter")
        assert watch.data["kind"] == "watchpoint"
        exc = await s.ok("exception_break", exception="java.lang.IllegalStateException", caught=False)
        assert exc.data["caught"] is False

        listed = await s.ok("breakpoint_list")
        assert len(listed.data["breakpoints"]) == 4, listed.text
        assert bp.data["id"] in listed.text and "staticCounter" in listed.text

        # the watchpoint fires first (staticCounter++ before compute() returns)
        stop = await s.ok("resume")
        assert stop.data["stop"]["kind"] == "WATCHPOINT_MODIFY", stop.text
        removed = await s.ok("breakpoint_remove", id=watch.data["id"])
        assert removed.data["removed"] == [watch.data["id"]]
        stop = await s.ok("resume")
        assert stop.data["stop"]["kind"] == "METHOD_EXIT", stop.text
        await s.ok("breakpoint_remove", id=method.data["id"])
        stop = await s.ok("resume")
        assert stop.data["stop"]["breakpoint_id"] == bp.data["id"]
        assert "i = 2" in stop.text

        await s.err("breakpoint_remove", id="bp-77")
        gone = await s.ok("breakpoint_remove", id="all")
        assert len(gone.data["removed"]) == 2
        assert (await s.ok("breakpoint_list")).text == "no breakpoints"


async def test_failed_breakpoint_requests_leave_nothing_behind(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Playground:{line_of('main-start')}", temporary=True)
        await s.ok("resume")
        await s.err("method_break", method="fixtures.Playground.nosuchmethod")
        await s.err("watchpoint_set", field="fixtures.Playground.nosuchfield")
        assert (await s.ok("breakpoint_list")).text == "no breakpoints"


async def test_exception_break_by_simple_name(mcp_session, jvm_factory, line_of):
    """Agents type "NullPointerException"; it must match java.lang.NullPointerException."""
    target = jvm_factory("Playground", "10", "throw")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("exception_break", exception="NullPointerException")
        stop = await s.ok("resume")
        assert stop.data["stop"]["kind"] == "EXCEPTION", stop.text


async def test_execution_tools(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Playground:{line_of('main-start')}", temporary=True)
        await s.ok("resume")
        to = await s.ok("run_to", location=f"Playground:{line_of('loop-call')}")
        assert to.data["stop"]["location"]["line"] == line_of("loop-call")
        await s.err("run_to", location="Playground:99999")
        into = await s.ok("step", kind="into")
        assert into.data["stop"]["location"]["method"] == "compute"
        out = await s.ok("step", kind="out")
        assert out.data["stop"]["location"]["method"] == "main"
        over = await s.ok("step", kind="over", count=2)
        assert over.data["stop"]["kind"] == "STEP"
        running = await s.ok("resume", timeout=0)
        assert running.data["state"] == "RUNNING" and "RUNNING" in running.text
        refused = await s.err("step")
        assert "running" in refused.text.lower() and ("pause" in refused.text or "wait_for_stop" in refused.text)
        paused = await s.ok("pause")
        assert paused.data["stop"]["kind"] == "PAUSE"
        await s.err("resume", thread="no-such-thread")
        events = await s.ok("events", since=0, kinds=["stop"], limit=10)
        kinds = {e["kind"] for e in events.data["events"]}
        assert kinds == {"stop"}
        newer = await s.ok("events", since=events.data["events"][-1]["seq"])
        assert all(e["seq"] > events.data["events"][-1]["seq"] for e in newer.data["events"])
        reset = await s.ok("reset")
        assert reset.data["breakpoints"] == 0
        detached = await s.ok("detach")
        assert detached.data["state"] == "DISCONNECTED"


async def test_inspection_tools(mcp_session, jvm_factory, line_of, java_source_root):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await _stopped_in_compute(s, target, line_of, sourcepath=[str(java_source_root)])
        snap = await s.ok("snapshot")
        assert "x = 2" in snap.text and "stack:" in snap.text
        assert snap.data["stop"]["kind"] == "BREAKPOINT"

        threads = await s.ok("threads")
        assert any(t["name"] == "main" for t in threads.data["threads"])
        only_main = await s.ok("threads", thread="main")
        assert [t["name"] for t in only_main.data["threads"]] == ["main"]

        stack = await s.ok("stack", locals=True)
        assert stack.data["frames"][0]["location"]["method"] == "compute"
        assert stack.data["frames"][1]["location"]["method"] == "main"
        await s.err("stack", thread="nope")

        locals_ = await s.ok("locals", frame=1)
        assert "i = 2" in locals_.text
        await s.err("locals", frame=42)

        this = await s.ok("locals")
        handle = next(v["value"]["handle"] for v in this.data["variables"] if v["name"] == "this")
        opened = await s.ok("inspect", target=handle)
        assert "counter" in opened.text and "name" in opened.text
        await s.err("inspect", target="@99999")

        value = await s.ok("evaluate", expression="x * 10 + counter")
        assert value.data["text"] == str(20 + 3)
        bad = await s.err("evaluate", expression="nosuchvar + 1")
        assert "nosuchvar" in bad.text

        changed = await s.ok("set_value", target="x", value="41")
        assert changed.data["text"] == "41"
        assert (await s.ok("evaluate", expression="x")).data["text"] == "41"
        await s.err("set_value", target="x", value='"not an int"')

        src = await s.ok("source", context=2)
        assert "int doubled = x * 2;" in src.text
        await s.err("source", location="com.nowhere.Nothing:3")

        classes = await s.ok("classes", pattern="fixtures.Play*", members=True)
        assert "fixtures.Playground" in classes.text and "compute" in classes.text
        none = await s.call("classes", pattern="com.nowhere.*")
        assert none.error or "no" in none.text.lower()

        heap = await s.ok("heap", pattern="fixtures.Playground")
        assert "fixtures.Playground" in heap.text
        refs = await s.ok("referrers", target=handle)
        assert "objects referring to" in refs.text
        await s.err("referrers", target="@99999")
        locks = await s.ok("locks")
        assert "deadlock" in locks.text.lower()


async def test_watchers_marks_and_frames(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await _stopped_in_compute(s, target, line_of)
        watch = await s.ok("watch_add", expression="x + 1")
        assert watch.data["id"] and watch.data["expression"] == "x + 1"
        listed = await s.ok("watch_add")
        assert "x + 1" in listed.text
        await s.err("watch_remove", id="w-404")
        await s.ok("watch_remove", id=watch.data["id"])

        this = await s.ok("locals")
        handle = next(v["value"]["handle"] for v in this.data["variables"] if v["name"] == "this")
        marked = await s.ok("mark", target=handle, label="pg")
        assert "$pg" in marked.text
        assert (await s.ok("evaluate", expression="$pg.counter")).data["text"] == "3"
        assert "$pg" in (await s.ok("mark")).text
        await s.err("mark", target=handle)
        await s.ok("unmark", label="$pg")
        await s.err("unmark", label="pg")

        popped = await s.ok("pop_frames", frame=0)
        assert "main" in popped.text
        await s.err("pop_frames", frame=50)
        into = await s.ok("step", kind="into")
        assert into.data["stop"]["location"]["method"] == "compute"
        forced = await s.ok("force_return", value="1000")
        assert "1000" in forced.text
        await s.err("force_return", value='"a string"')


async def test_launch_output_trace_and_hotswap(mcp_session, java_classes, line_of):
    async with mcp_session("memory") as s:
        await s.err("launch")  # nothing to run
        launched = await s.ok("launch", main="fixtures.Playground", classpath=[str(java_classes)],
                              args=["100000"])  # (runs for hours: the trace below sees it run)
        assert launched.data["launched"] is True
        await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-print')}", hit_count=3)
        await s.ok("resume")
        out = await s.ok("output", stream="stdout")
        assert "playground started" in out.text and "iteration 1" in out.text
        end = out.data["chunks"][0]["end"] if "chunks" in out.data else out.data["result"][0]["end"]
        await s.ok("breakpoint_remove", id="all")
        await s.err("output", stream="sideways")

        swapped = await s.ok("hotswap", path=str(java_classes), since=time.time() - 10 ** 6)
        assert "redefined" in swapped.text
        await s.err("hotswap", path="/nonexistent/classes")

        await s.ok("resume", timeout=0)
        traced = await s.ok("trace", pattern="fixtures.*", duration=1.0)
        assert "compute" in traced.text
        await s.err("trace", pattern="", duration=0.5)
        more = await s.ok("output", since=end)
        assert more.data is not None


async def test_tool_round_over_stdio(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("stdio") as s:
        await _stopped_in_compute(s, target, line_of)
        for tool, args in [("snapshot", {}), ("threads", {}), ("stack", {}), ("locals", {}),
                           ("evaluate", {"expression": "x"}), ("source", {}), ("breakpoint_list", {}),
                           ("events", {}), ("classes", {"pattern": "fixtures.*"}), ("diagnose", {})]:
            await s.ok(tool, **args)
        await s.err("inspect", target="@12345")
        await s.ok("detach", terminate=True)
