"""`tracepilot launch Foo.java` with no --break stops at the first line of main, showing its source, as jdb
and pudb do (issue 29, point 7); F6 then F10 steps in the program's own frame, not on to the next stop
(point 1: the pause lands in Thread.sleep, a native frame)."""

from __future__ import annotations

import pytest

from support.jvm import source_path_of
from tracepilot.core.model import SessionState, StopKind
from tracepilot.tui.widgets.source import SourceView

from .helpers import stopped_at, wait_for

pytestmark = pytest.mark.timeout(90)


async def test_launch_without_break_stops_at_main_and_a_step_after_a_pause_stays_in_main(line_of, default_jdk):
    from tracepilot.cli import build_parser
    from tracepilot.tui.entry import build

    app = build(build_parser().parse_args(["launch", str(source_path_of("Napper"))]))
    app.clock = False
    async with app.run_test(size=(140, 40)) as pilot:
        first = line_of("nap-first")
        await wait_for(pilot, lambda: stopped_at(app, first, "main"), timeout=40, what="stopped at main's first line")
        stop = app.view.status.stop
        assert stop.kind is StopKind.BREAKPOINT and stop.run_to == "fixtures.Napper.main"
        assert not [b for b in app.view.breakpoints if b.kind != "exception"]  # nothing left behind
        assert "Napper.java" in app.query_one(SourceView).border_title

        app.query_one(SourceView).focus()
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.view.status.state is SessionState.RUNNING
                       and "nap 1" in app.debugger.session.launched.stdout.read().text, what="running")
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.view.status.state is SessionState.STOPPED
                       and app.view.status.stop.kind is StopKind.PAUSE, what="paused")
        await pilot.press("f10")
        lines = (line_of("nap-loop"), line_of("nap-print"), line_of("nap-sleep"))
        await wait_for(pilot, lambda: app.view.status.stop.kind is StopKind.STEP
                       and any(stopped_at(app, n, "main") for n in lines), timeout=10, what="stepped in main")
        await app.debugger.close()
