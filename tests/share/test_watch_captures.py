"""Issue 31 through `tracepilot watch`: an agent's capture point takes a capture in the session it hosts; the
person's watcher lists it in its Captures pane (through the share records) and opens it frozen, as the TUI
does: the captured frames and values, the banner, and back to the live view with Esc."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import SessionHost
from tracepilot.tui.watch import WatchApp
from tracepilot.tui.widgets.captures import CapturesPane
from tui.captures_helpers import banner, labels, open_first_capture_and_check
from tui.helpers import stopped_at, wait_for


@pytest.mark.timeout(60)
async def test_the_watcher_lists_a_capture_and_opens_it_frozen(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Captured")
    line = line_of("captured-line")
    debugger = Debugger(sourcepath=[str(java_source_root)], default_actor=Actor.AGENT)
    await debugger.attach(target.address, 10.0)
    host = SessionHost(debugger, "mcp")
    await host.start()
    remote = await RemoteDebugger.join(None, actor=Actor.PERSON)
    try:
        # (the callers' variables asked for: a held capture, whose frames all have values to browse)
        await debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 1", capture=1,
                                      capture_limits={"frames": 3})
        await debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 3")
        app = WatchApp(remote, clock=False)
        async with app.run_test(size=(150, 42)) as pilot:
            await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="the first view")
            await debugger.resume()  # the agent runs it: a capture at i == 1, a stop at i == 3
            await wait_for(pilot, lambda: stopped_at(app, line), timeout=20, what="the watcher sees the stop")
            await open_first_capture_and_check(pilot, app, line)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.frozen.active and banner(app) == ""
                           and "i = 3" in labels(app.query_one("VariablesPane").root), what="the live view")
        # A watcher that joins later lists the captures taken before it came.
        late_remote = await RemoteDebugger.join(None, actor=Actor.PERSON)
        try:
            late = WatchApp(late_remote, clock=False)
            async with late.run_test(size=(150, 42)) as pilot:
                pane = late.query_one(CapturesPane)
                await wait_for(pilot, lambda: pane.row_count == 1, what="the earlier capture listed")
                assert [c.breakpoint_id for c in late.frozen.captures] == ["bp-1"]
        finally:
            await late_remote.close()
    finally:
        await remote.close()
        await host.close()
        await debugger.close()
