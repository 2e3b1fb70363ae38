"""The MCP server itself: the tool contract, errors without a JVM, start-up cost, stdout hygiene,
read-only mode, resources and their update notifications, progress, pause during a wait, cancellation."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import anyio
import mcp_types as types
import pytest
from mcp.client import Client
from mcp_harness import REPO, server_command

pytestmark = pytest.mark.timeout(90)

# ../shared/DESIGN.md: tool names and their main argument names are a contract.
CONTRACT = {
    "attach": {"address", "timeout"},
    "launch": {"main", "classpath", "jar", "source", "args", "jvm_args", "cwd", "env", "sourcepath", "suspend"},
    "detach": {"terminate"},
    "status": set(),
    "reset": set(),
    "diagnose": set(),
    "resume": {"thread", "timeout"},
    "pause": {"thread"},
    "step": {"kind", "thread", "count", "timeout"},
    "run_to": {"location", "thread", "timeout"},
    "wait_for_stop": {"timeout"},
    "breakpoint_set": {"location", "condition", "hit_count", "log", "thread", "temporary", "suspend", "after", "enabled",
                       "capture", "expressions"},
    "breakpoint_list": set(),
    "breakpoint_update": {"id", "condition", "hit_count", "log", "thread", "temporary", "suspend", "after", "enabled"},
    "breakpoint_remove": {"id"},
    "exception_break": {"exception", "caught", "uncaught", "condition", "log", "capture", "expressions"},
    "watchpoint_set": {"field", "access", "modify", "instance", "condition", "log", "capture", "expressions"},
    "method_break": {"method", "on", "condition", "log", "capture", "expressions"},
    "events": {"since", "kinds", "limit"},
    "captures": {"id", "wait", "limit"},  # issue 31
    "output": {"stream", "since"},
    "trace": {"pattern", "duration", "max_calls", "resume", "folded", "folded_by"},
    "snapshot": {"thread"},
    "threads": {"thread"},
    "stack": {"thread", "start", "count", "locals"},
    "locals": {"frame", "thread"},
    "inspect": {"target", "frame", "start", "count"},
    "evaluate": {"expression", "frame", "thread"},
    "set_value": {"target", "value", "frame", "thread"},
    "source": {"location", "context"},
    "classes": {"pattern", "members"},
    "locks": set(),
    "heap": {"pattern"},
    "referrers": {"target", "limit"},
    "watch_add": {"expression", "breakpoint"},
    "watch_remove": {"id"},
    "mark": {"target", "label"},
    "unmark": {"label"},
    "hotswap": {"path", "since"},
    "pop_frames": {"frame", "thread"},
    "force_return": {"value", "thread"},
}


async def test_tools_match_the_design_contract(mcp_session):
    async with mcp_session("memory") as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
    assert set(tools) == set(CONTRACT)
    for name, args in CONTRACT.items():
        schema = tools[name].input_schema
        props = schema.get("properties", {})
        assert args <= set(props), f"{name} lacks {args - set(props)}"
        assert "ctx" not in props
        assert tools[name].description and len(tools[name].description) > 10
        for arg in props.values():
            assert arg.get("description") or arg.get("title") in ("Enabled", "Temporary", "Suspend", "Stream"), (name, arg)


async def _errors_without_a_jvm(s) -> None:
    status = await s.ok("status")
    assert status.data["state"] == "DISCONNECTED"
    assert "attach or launch" in status.text
    snap = await s.call("snapshot")
    assert "attach" in snap.text or "launch" in snap.text, snap.text
    for tool, args in [("step", {}), ("locals", {}), ("resume", {}),
                       ("breakpoint_update", {"id": "bp-9"})]:
        reply = await s.err(tool, **args)
        assert "attach" in reply.text or "launch" in reply.text or "bp-9" in reply.text, reply.text
    waited = await s.ok("wait_for_stop", timeout=0.2)
    assert waited.data["stopped"] is False and "attach" in waited.text
    # invalid arguments are answered, never crash the server
    bad = await s.err("step", kind="sideways")
    assert "over" in bad.text
    bad = await s.err("locals", frame=-1)
    assert "frame" in bad.text
    bad = await s.err("attach", address="localhost:notaport", timeout=0.5)
    assert "port" in bad.text.lower() or "address" in bad.text.lower()
    assert (await s.ok("status")).data["state"] == "DISCONNECTED"


async def _attached_and_running(s, target) -> None:
    await s.ok("attach", address=target.address)
    await s.ok("resume", timeout=0)


async def _progress_notifications_while_waiting(s) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    reply = await s.call("wait_for_stop", progress=on_progress, timeout=2.5)
    assert not reply.error and reply.data["stopped"] is False
    assert progress, "no progress notification arrived"
    assert progress[0][1] == 2.5 and "waiting" in (progress[0][2] or "")


async def _a_cancelled_wait_leaves_the_program_running(s) -> None:
    with anyio.move_on_after(1.0):
        await s.call("wait_for_stop", timeout=60)
    status = await s.ok("status")
    assert status.data["state"] == "RUNNING"


async def _pause_answers_while_another_call_waits(s) -> None:
    results = {}

    async def wait() -> None:
        results["wait"] = await s.ok("wait_for_stop", timeout=60)

    async with anyio.create_task_group() as tg:
        tg.start_soon(wait)
        await anyio.sleep(0)  # let the wait be sent first
        started = time.monotonic()
        paused = await s.ok("pause")
    assert paused.data["stopped"] is True and paused.data["stop"]["kind"] == "PAUSE"
    assert results["wait"].data["stopped"] is True
    assert results["wait"].data["stop"]["kind"] == "PAUSE"
    assert time.monotonic() - started < 10


async def test_errors_without_a_jvm_say_what_to_do(mcp_session):
    async with mcp_session("memory") as s:
        await _errors_without_a_jvm(s)


async def test_pause_answers_while_another_call_waits(mcp_session, jvm_factory):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await _attached_and_running(s, target)
        await _pause_answers_while_another_call_waits(s)


async def test_progress_notifications_while_waiting(mcp_session, jvm_factory):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s:
        await _attached_and_running(s, target)
        await _progress_notifications_while_waiting(s)


async def test_one_stdio_server_errors_progress_a_cancelled_wait_pause_and_its_log(mcp_session, jvm_factory):
    """Over a real `tracepilot --mcp` process, one after the other (a server start each cost 2-4 s): the errors
    without a JVM; then, attached and running, progress while waiting, a cancelled wait that leaves the server
    usable, a pause answering while another call waits; and the log went to its file, not stdout."""
    target = jvm_factory("Playground")
    async with mcp_session("stdio") as s:
        await _errors_without_a_jvm(s)
        await _attached_and_running(s, target)
        await _progress_notifications_while_waiting(s)
        await _a_cancelled_wait_leaves_the_program_running(s)
        await _pause_answers_while_another_call_waits(s)
        log_file = s.log_file
    assert "MCP server starting" in log_file.read_text()


async def test_attach_to_a_closed_port_is_a_clear_error(mcp_session, free_port):
    async with mcp_session("memory") as s:
        started = time.monotonic()
        reply = await s.err("attach", address=f"127.0.0.1:{free_port()}", timeout=1)
        assert time.monotonic() - started < 5
        assert "127.0.0.1" in reply.text
        diag = await s.ok("diagnose")
        assert diag.data["server"]["version"]
        assert diag.data["session"]["last_error"]


# Loaded at start on purpose: the log formatter's redaction rules, plain Python with no imports of ours but
# each other (log lines are redacted from the first one on).
LIGHT_CORE = ("tracepilot.core", "tracepilot.core.secrets", "tracepilot.core.java_escape")


def test_start_path_loads_no_core_jdwp_or_ui():
    code = ("import sys; from tracepilot.mcp.server import build_server; build_server(); "
            "heavy = [m for m in sys.modules if m.startswith(('tracepilot.core', 'tracepilot.jdwp', "
            f"'tree_sitter', 'textual', 'prompt_toolkit')) and m not in {LIGHT_CORE!r}]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout


async def test_initialize_is_about_as_fast_as_importing_the_sdk(tmp_path):
    def bare() -> float:
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "import mcp.server"], check=True)
        return time.monotonic() - started

    baseline = min(bare() for _ in range(2))
    timings = []
    for _ in range(2):
        started = time.monotonic()
        async with Client(server_command(log_file=tmp_path / "init.log"), mode="legacy"):
            timings.append(time.monotonic() - started)
    # generous bound for noisy machines; the benchmark suite holds the 1.2x aim
    assert min(timings) < baseline * 1.6 + 0.3, (timings, baseline)


async def test_read_only_refuses_side_effects(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    async with mcp_session("memory", read_only=True) as s:
        launch = await s.err("launch", main="fixtures.Playground", classpath=".")
        assert "read-only" in launch.text
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-body')}")
        await s.ok("resume")
        refused = await s.err("set_value", target="i", value="5")
        assert "read-only" in refused.text
        for tool, args in [("pop_frames", {}), ("force_return", {"value": "0"}), ("hotswap", {"path": "/nonexistent"})]:
            reply = await s.err(tool, **args)
            assert "read-only" in reply.text, (tool, reply.text)


async def test_session_and_events_resources_with_legacy_subscriptions(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Playground")
    updated: list[str] = []
    got_update = asyncio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))
            got_update.set()

    async with mcp_session("memory", mode="legacy", message_handler=on_message) as s:
        listed = {str(r.uri) for r in (await s.client.list_resources()).resources}
        assert {"tracepilot://session", "tracepilot://events", "tracepilot://breakpoints"} <= listed
        before = await s.client.read_resource("tracepilot://session")
        assert "attach or launch" in before.contents[0].text
        assert s.client.server_capabilities.resources.subscribe is True
        await s.client.session.subscribe_resource("tracepilot://session")
        await s.client.session.subscribe_resource("tracepilot://events")
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Playground:{line_of('loop-body')}")
        await asyncio.wait_for(got_update.wait(), 10)
        await s.ok("resume")
        session = await s.client.read_resource("tracepilot://session")
        assert "STOPPED" in session.contents[0].text and "bp-1" in session.contents[0].text
        events = await s.client.read_resource("tracepilot://events")
        assert "breakpoint_set" in events.contents[0].text and "[agent]" in events.contents[0].text
    assert "tracepilot://session" in updated and "tracepilot://events" in updated


async def test_resource_updates_reach_listen_streams(mcp_session, jvm_factory):
    target = jvm_factory("Playground")
    async with mcp_session("memory") as s, s.client.listen(resource_subscriptions=["tracepilot://session"]) as sub:
        await s.ok("attach", address=target.address)
        with anyio.fail_after(10):
            async for event in sub:
                assert event.uri == "tracepilot://session"
                break
