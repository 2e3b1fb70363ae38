"""Issue 28 through the TUI (run_test(), real JVMs): a price server and its client in one session, the targets
listed above the threads, the status bar naming the current target, `T` switching it, F5 on each."""

from __future__ import annotations

import pytest

from support.jvm import free_port
from tracepilot.core.debugger import Debugger
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.status import StatusBar
from tracepilot.tui.widgets.targets import TargetsList

from .helpers import wait_for

pytestmark = pytest.mark.timeout(60)
SIZE = (140, 40)


def bar(app: TracepilotApp) -> str:
    return app.query_one(StatusBar).render_text().plain


async def test_two_jvms_in_the_tui(java_classes, java_source_root, line_of):
    port = str(free_port())
    debugger = Debugger(sourcepath=[str(java_source_root)])

    async def launch_both(app: TracepilotApp) -> None:
        for main, name in (("fixtures.PriceServer", "server"), ("fixtures.PriceClient", "client")):
            await app.debugger.launch(main=main, classpath=[str(java_classes)], args=[port], name=name)
        await app.debugger.breakpoint_set(f"PriceServer:{line_of('server-answer')}", condition="qty == 3")
        await app.debugger.breakpoint_set(f"PriceClient:{line_of('client-total')}", condition="total > 100")

    app = TracepilotApp(debugger, launch_both, launched=True, sourcepath=[str(java_source_root)], clock=False)
    async with app.run_test(size=SIZE) as pilot:
        targets = app.query_one(TargetsList)
        await wait_for(pilot, lambda: app.ready.is_set() and len(targets.lines) == 2, what="two targets listed")
        assert targets.lines[1].startswith("* client: STOPPED")
        assert "target client (2 of 2)" in bar(app)

        await pilot.press("T")  # the server becomes the current target; F5 runs it
        await wait_for(pilot, lambda: "target server (1 of 2)" in bar(app), what="server selected")
        await pilot.press("f5")
        await wait_for(pilot, lambda: targets.lines and targets.lines[0].startswith("* server: RUNNING"),
                       what="server running")
        await pilot.press("T")
        await wait_for(pilot, lambda: "target client (2 of 2)" in bar(app), what="client selected")
        await pilot.press("f5")  # the client asks: the server stops, named
        await wait_for(pilot, lambda: "[server] at fixtures.PriceServer.answer" in bar(app), what="server stop")
        # (the targets list refreshes on its own turn, after the status bar: under load a moment later)
        await wait_for(pilot, lambda: targets.lines[0].startswith("* server: STOPPED at fixtures.PriceServer.answer"),
                       what="the server's stop in the targets list")
        await wait_for(pilot, lambda: any(v.name == "qty" and v.value.text == "3" for v in app.view.variables),
                       what="the server's locals")

        await pilot.press("f5")  # the server answers: the client stops
        await wait_for(pilot, lambda: "[client] at fixtures.PriceClient.main" in bar(app), what="client stop")
        await wait_for(pilot, lambda: targets.lines[1].startswith("* client: STOPPED at fixtures.PriceClient.main"),
                       what="the client's stop in the targets list")
