"""The TUI's captures list (issue 31): `:captures` lists what capture points took; Enter opens one as a frozen
view of its frames and values, saying it is one."""

from __future__ import annotations

import pytest
from textual.widgets import Static, Tree

from tracepilot.core.debugger import Debugger
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.screens.captures import FROZEN, CapturesScreen
from tracepilot.tui.widgets.command_line import CommandLine

from .helpers import stopped_at, wait_for

SIZE = (140, 40)


@pytest.mark.timeout(90)
async def test_captures_list_opens_a_frozen_capture(jvm_factory, java_source_root, line_of):
    target = jvm_factory("Captured")
    debugger = Debugger(sourcepath=[str(java_source_root)])
    line, end = line_of("captured-line"), line_of("captured-end")

    async def attach_and_set(app: TracepilotApp) -> None:
        await app.debugger.attach(target.address, 10.0)
        await app.debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 1", capture=1)
        await app.debugger.breakpoint_set(f"fixtures.Captured:{end}")

    app = TracepilotApp(debugger, attach_and_set, sourcepath=[str(java_source_root)], clock=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_at(app, end), what="stop at the end")
        app.query_one(CommandLine).focus()
        await pilot.press(*"captures", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CapturesScreen) and app.screen.captures,
                       what="captures list")
        await pilot.press("enter")
        screen = app.screen
        tree = screen.query_one("#capture-tree", Tree)
        await wait_for(pilot, lambda: "(frozen)" in str(tree.root.label), what="capture opened")
        assert FROZEN in str(screen.query_one("#capture-about", Static).render())
        top = tree.root.children[0]
        assert str(top.label) == f"#0 fixtures.Captured.step:{line}"
        labels = [str(n.label) for n in top.children]
        assert "i = 1" in labels and any(label.startswith("this = Captured{") for label in labels), labels
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CapturesScreen), what="closed")
