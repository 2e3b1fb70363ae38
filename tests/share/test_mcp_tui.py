"""Pair-debugging end to end: an agent's `tracepilot --mcp` subprocess watched (and joined) from the TUI,
and `tracepilot --mcp --join` driving a session a person has open in the TUI."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor, SessionState
from tracepilot.share import registry
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import published
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.watch import WatchApp
from tui.helpers import stopped_at, type_text, wait_for

from .conftest import agent_session

SIZE = (140, 40)


@pytest.mark.timeout(120)
async def test_agent_session_followed_and_joined_from_the_tui(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000")
    loop_body, loop_static = line_of("loop-body"), line_of("loop-static")
    async with contextlib.AsyncExitStack() as agent_scope:
        agent = await agent_scope.enter_async_context(agent_session())
        await agent.ok("attach", address=target.address, sourcepath=[str(java_source_root)])
        [info] = registry.list_sessions()
        assert info.frontend == "mcp" and info.target == target.address

        remote = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
        app = WatchApp(remote, clock=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="the first view")
            assert app.view.status.state is SessionState.STOPPED  # VM start, from the snapshot

            # the agent works; the person's screen follows
            await agent.ok("breakpoint_set", location=f"fixtures.Playground:{loop_body}")

            async def on_screen() -> float:
                await wait_for(pilot, lambda: stopped_at(app, loop_body), what="the watcher shows the agent's stop",
                               interval=0.002)
                return time.time()

            reply, screen_at = await asyncio.gather(agent.ok("resume", timeout=10), on_screen())
            assert "STOPPED" in reply
            stop = next(r for r in reversed(remote.history.since(0)) if r.kind == "stop")
            print(f"\nstop in the host -> watcher: record {1000 * (remote.arrived[stop.seq] - stop.time):.2f} ms, "
                  f"screen (source line, stack, locals) {1000 * (screen_at - stop.time):.0f} ms")
            # (the breakpoints pane refreshes on its own event, which may come just after the stop's repaint)
            await wait_for(pilot, lambda: [bp.spec for bp in app.view.breakpoints] == [f"fixtures.Playground:{loop_body}"],
                           what="the agent's breakpoint in the watcher's list")

            # the person takes part: F10 and a breakpoint from the command line, attributed to them
            await pilot.press("f10")
            await wait_for(pilot, lambda: stopped_at(app, loop_static), what="the person's step")
            await pilot.press("colon")
            await type_text(pilot, f"stop at fixtures.Playground:{line_of('loop-print')}")
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.view.breakpoints) == 2, what="the person's breakpoint")
            history = await agent.ok("events")
            assert "[person] step" in history and "[person] breakpoint_set" in history
            assert "[agent] breakpoint_set" in history
            status = await agent.ok("status")
            assert f":{loop_static}" in status, status

            # the agent's server ends: the watcher is told and keeps its last view
            last_breakpoints = list(app.view.breakpoints)
            await agent_scope.aclose()
            await wait_for(pilot, lambda: remote.ended.is_set(), what="the host's goodbye")
            await wait_for(pilot, lambda: any(r.kind == "session_ended" for r in app.view.events),
                           what="the session_ended event on screen")
            assert "MCP server ended" in (remote.end_reason or "")
            seqs = [r.seq for r in app.view.events]
            assert len(seqs) == len(set(seqs)), "every event shown once"
            assert app.view.status is not None and app.view.breakpoints == last_breakpoints
            assert app.is_running
            await pilot.press("f5")  # an action now explains itself instead of crashing
            await pilot.app.workers.wait_for_complete()
            assert app.is_running
        assert registry.list_sessions() == []


@pytest.mark.timeout(120)
async def test_mcp_join_drives_a_tui_hosted_session(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000")
    loop_body, loop_static = line_of("loop-body"), line_of("loop-static")
    debugger = Debugger(sourcepath=[str(java_source_root)])

    async def attach(app: TracepilotApp) -> None:
        await app.debugger.attach(target.address, 10.0)

    app = TracepilotApp(debugger, attach, sourcepath=[str(java_source_root)], clock=False)
    async with app.run_test(size=SIZE) as pilot, published(debugger, "tui") as host:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        async with agent_session("--join", host.info.id) as agent:
            await agent.ok("breakpoint_set", location=f"fixtures.Playground:{loop_body}")
            reply = await agent.ok("resume", timeout=10)
            assert "STOPPED" in reply and f"Playground.java:{loop_body}" in reply
            await wait_for(pilot, lambda: stopped_at(app, loop_body), what="the person's TUI shows the agent's stop")
            assert any(r.kind == "breakpoint_set" and r.actor is Actor.AGENT for r in debugger.history.since(0))
            assert app.refresher.driving == "agent"  # (the status bar says who drives)

            # the person steps in their own TUI; the agent's next look shows it, attributed
            await pilot.press("f10")
            await wait_for(pilot, lambda: stopped_at(app, loop_static), what="the person's step")
            history = await agent.ok("events")
            assert "[person] step" in history and "[agent] breakpoint_set" in history
            assert f":{loop_static}" in await agent.ok("status")
            value = await agent.ok("evaluate", expression="p.counter")
            assert "1" in value
        # the agent left: nothing changed in the host
        await host.wait_clients(0)
        assert debugger.session.state is SessionState.STOPPED
        assert len(await debugger.breakpoint_list()) == 1
        assert [s.id for s in registry.list_sessions()] == [host.info.id]


@pytest.mark.timeout(60)
async def test_follow_only_watcher_in_the_tui(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000")
    debugger = Debugger(sourcepath=[str(java_source_root)], default_actor=Actor.AGENT)
    await debugger.attach(target.address, 10.0)
    try:
        async with published(debugger, "mcp") as host:
            remote = await RemoteDebugger.join(host.info.id, follow_only=True)
            app = WatchApp(remote, clock=False)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="the first view")
                assert "follow-only" in app.sub_title
                await pilot.press("f5")
                await pilot.app.workers.wait_for_complete()
                assert debugger.session.state is SessionState.STOPPED  # refused: still at VM start
                assert not [r for r in debugger.history.since(0) if r.actor is Actor.PERSON]
                await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
                await debugger.resume()
                await wait_for(pilot, lambda: stopped_at(app, line_of("loop-body")), what="following the agent")
            await remote.close()
    finally:
        await debugger.close()


@pytest.mark.timeout(60)
async def test_mcp_join_without_a_session_explains() -> None:
    async with agent_session("--join") as agent:
        text, _, error = await agent.call("status")
        assert error and "no live tracepilot session" in text and "tracepilot attach" in text
        # a session that appears later is found on the next call
        debugger = Debugger()
        async with published(debugger, "repl") as host:
            text = await agent.ok("status")
            assert "DISCONNECTED" in text
            await host.wait_clients(1)
        await debugger.close()
