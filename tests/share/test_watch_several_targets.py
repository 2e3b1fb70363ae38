"""Issue 28 through `tracepilot watch`: an agent launches a price server and its client side by side in one
MCP session; the person's watcher (the WatchApp `tracepilot watch` runs) sees the stops of both targets,
each named, in its Events pane and its status bar."""

from __future__ import annotations

import asyncio

import pytest

from support.jvm import free_port
from tracepilot.core.model import Actor
from tracepilot.share import registry
from tracepilot.share.client import RemoteDebugger
from tracepilot.tui.watch import WatchApp
from tracepilot.tui.widgets.status import StatusBar
from tui.helpers import wait_for

from .conftest import agent_session


def event_texts(app: WatchApp) -> list[str]:
    return [e.text for e in app.view.events]


@pytest.mark.timeout(90)
async def test_the_watcher_sees_both_targets_stops_named(java_classes, java_source_root, line_of) -> None:
    port = str(free_port())
    async with agent_session() as agent:
        await agent.ok("launch", main="fixtures.PriceServer", classpath=str(java_classes), args=[port],
                       sourcepath=[str(java_source_root)], name="server")
        await agent.ok("launch", main="fixtures.PriceClient", classpath=str(java_classes), args=[port],
                       sourcepath=[str(java_source_root)], name="client")
        await agent.ok("breakpoint_set", location=f"PriceServer:{line_of('server-answer')}", condition="qty == 3")
        await agent.ok("breakpoint_set", location=f"PriceClient:{line_of('client-total')}", condition="total > 100",
                       target="client")
        [info] = registry.list_sessions()
        remote = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
        app = WatchApp(remote, clock=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="the first view")
            await agent.ok("resume", target="server", timeout=0)
            text, data, error = await asyncio.wait_for(agent.call("resume", target="client", timeout=20), 30)
            assert not error and text.startswith("STOPPED [server]"), text
            await wait_for(pilot, lambda: any(t.startswith("STOPPED [server]") for t in event_texts(app)),
                           timeout=20, what="the server's stop, named, in the watcher's events")
            await wait_for(pilot, lambda: "server" in app.query_one(StatusBar).render_text().plain,
                           what="the status bar names the server")

            text, data, error = await asyncio.wait_for(agent.call("resume", timeout=20), 30)
            assert not error and text.startswith("STOPPED [client]"), text
            await wait_for(pilot, lambda: any(t.startswith("STOPPED [client]") for t in event_texts(app)),
                           timeout=20, what="the client's stop, named, in the watcher's events")
            await wait_for(pilot, lambda: app.view.frames and app.view.frames[0].location.class_name
                           == "fixtures.PriceClient", what="the client's frame in the watcher's stack")
            await agent.ok("detach", terminate=True)
        await remote.close()
