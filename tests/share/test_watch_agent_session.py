"""`tracepilot watch` beside an agent's MCP session (issue 29, points 2 and 6): a person's pause is a stop for
everyone (the agent's waiting resume is answered by it at once) and the watcher shows it as the agent's
snapshot does; the watcher's Console has the program's output, it names who drives from the start, and it
shows the session's end when the agent detaches."""

from __future__ import annotations

import asyncio
import time

import pytest

from tracepilot.core.model import SessionState, StopKind
from tracepilot.share import registry
from tracepilot.share.client import RemoteDebugger, wait_for_record
from tracepilot.tui.watch import WatchApp
from tracepilot.tui.widgets.status import StatusBar
from tui.helpers import wait_for

from .conftest import agent_session


def offered(app) -> set[str]:
    return {binding.action for (_, binding, enabled, _) in app.screen.active_bindings.values()
            if binding.show and enabled}


@pytest.mark.timeout(90)
async def test_a_pause_in_watch_answers_the_agent_and_shows_the_programs_frame(java_classes, java_source_root,
                                                                              default_jdk) -> None:
    from tracepilot.core.model import Actor

    async with agent_session() as agent:
        await agent.ok("launch", main="fixtures.Napper", classpath=str(java_classes),
                       sourcepath=[str(java_source_root)])
        [info] = registry.list_sessions()
        remote = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
        app = WatchApp(remote, clock=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="the first view")
            assert "driving: agent" in app.query_one(StatusBar).render_text().plain  # the agent launched

            resume = asyncio.ensure_future(agent.call("resume", timeout=30))
            await wait_for(pilot, lambda: "nap 1" in "".join(t for _s, t in app.view.output), timeout=20,
                           what="the program's output in the watcher's Console")
            paused_at = time.monotonic()
            await pilot.press("f6")
            text, data, error = await asyncio.wait_for(resume, 10)
            assert not error and data["stopped"] and data["stop"]["kind"] == "PAUSE", text
            assert time.monotonic() - paused_at < 5, "the pause answered the agent's resume at once"

            await wait_for(pilot, lambda: app.view.frames and app.view.frames[app.frame].location.method == "main"
                           and any(v.name == "i" for v in app.view.variables), what="main selected, with its locals")
            snapshot = await agent.ok("snapshot")
            assert "Napper.main" in snapshot and "i = " in snapshot
            assert app.view.status.stop.kind is StopKind.PAUSE

            await agent.ok("detach", terminate=True)
            await wait_for_record(remote, lambda r: r.kind == "detach")
            assert remote.state is SessionState.DISCONNECTED  # the record comes with the state it leaves
            await wait_for(pilot, lambda: app.view.status is not None
                           and app.view.status.state is not SessionState.STOPPED, what="the end in the watcher")
            await wait_for(pilot, lambda: not offered(app) & {"resume", "step_over", "step_into", "step_out"},
                           what="no step keys offered after the end")
            assert "STOPPED" not in app.query_one(StatusBar).render_text().plain
        await remote.close()
