"""The TUI's Captures pane (issue 31): it fills as capture points take captures; Enter on one opens it in the
Stack and Variables panes as a frozen view (the values at the hit, a banner saying so, nothing read from the
JVM); another captured frame shows that frame's values; Esc, or the next stop, goes back to the live view."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.captures import CapturesPane
from tracepilot.tui.widgets.command_line import CommandLine
from tracepilot.tui.widgets.variables import VariablesPane

from .captures_helpers import banner, labels, offers_live_view, open_first_capture_and_check, stack_rows
from .helpers import stopped_at, type_text, wait_for

SIZE = (150, 42)


@pytest.mark.timeout(60)
async def test_captures_pane_fills_and_opens_a_frozen_view(jvm_factory, java_source_root, line_of):
    target = jvm_factory("Captured")
    debugger = Debugger(sourcepath=[str(java_source_root)])
    line, end = line_of("captured-line"), line_of("captured-end")

    async def attach_and_set(app: TracepilotApp) -> None:
        await app.debugger.attach(target.address, 10.0)
        # (the callers' variables asked for: a held capture, whose frames all have values to browse)
        await app.debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 1", capture=1,
                                          capture_limits={"frames": 3})
        await app.debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 3")
        await app.debugger.breakpoint_set(f"fixtures.Captured:{end}")

    app = TracepilotApp(debugger, attach_and_set, sourcepath=[str(java_source_root)], clock=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_at(app, line), what="the stop at i == 3")
        await wait_for(pilot, lambda: "i = 3" in labels(app.query_one(VariablesPane).root), what="live locals")

        reads: list[str] = []  # a frozen view asks the JVM for nothing
        for name in ("locals", "inspect", "stack", "snapshot"):
            original = getattr(debugger, name)

            async def counted(*args, _name=name, _original=original, **kwargs):  # noqa: ANN002, ANN003
                if app.frozen.active:
                    reads.append(_name)
                return await _original(*args, **kwargs)

            setattr(debugger, name, counted)

        await open_first_capture_and_check(pilot, app, line)
        assert reads == [], reads
        assert offers_live_view(app)

        # Esc: the live view again (the stop at i == 3), the banner gone.
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.frozen.active and "i = 3" in labels(app.query_one(VariablesPane).root),
                       what="the live view")
        assert banner(app) == "" and stack_rows(app)[0] == "Captured.step"
        assert not offers_live_view(app)

        # Opened again (`:captures` goes to the list), then the next real stop: back to the live view by itself.
        app.query_one(CommandLine).focus()
        await type_text(pilot, "captures")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.focused is app.query_one(CapturesPane), what=":captures focuses the list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.frozen.active, what="frozen again")
        # A re-layout (below 110 columns the side panes become tabs) keeps the frozen view in the new panes.
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: app.compact and stack_rows(app)[:1] == ["Captured.step"]
                       and "frozen" in banner(app), what="the frozen view in the compact layout")
        assert "i = 1" in labels(app.query_one(VariablesPane).root)
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_at(app, end), what="the stop at the end")
        await wait_for(pilot, lambda: not app.frozen.active and banner(app) == ""
                       and stack_rows(app)[:1] == ["Captured.main"], what="the live view after the stop")


@pytest.mark.timeout(60)
async def test_captures_of_a_running_service_fill_the_list_and_open_frozen(jvm_factory, line_of):
    """The case capture points are for: the program never stops. Captures arrive while it runs, the list
    fills as they do, and one opens frozen (its request's list as at the hit) while the live view says running."""
    target = jvm_factory("fixtures.CaptureService", "2", suspend=False)
    line = line_of("capture-line")

    async def attach_and_set(app: TracepilotApp) -> None:
        await app.debugger.attach(target.address, 10.0)
        await app.debugger.breakpoint_set(f"fixtures.CaptureService:{line}", condition="request.id % 10 == 7",
                                          capture=2)

    app = TracepilotApp(Debugger(), attach_and_set, clock=False)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(CapturesPane)
        await wait_for(pilot, lambda: pane.row_count == 2, what="two captures listed as they arrive")
        assert app.view.status.state.value == "RUNNING"
        pane.focus()
        pane.move_cursor(row=1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.frozen.active and "capture #2 of bp-" in banner(app), what="frozen")
        assert stack_rows(app)[0] == "CaptureService.handle", stack_rows(app)
        root = app.query_one(VariablesPane).root
        size = int(next(label for label in labels(root) if label.startswith("size =")).split("=")[1])
        request = next(c for c in root.children if str(c.label).strip().startswith("request ="))
        items = next(c for c in request.children if str(c.label).strip().startswith("items ="))
        assert len(items.children) == size >= 3, labels(items)  # cleared right after the line; as at the hit
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.frozen.active and any(
            label.startswith("running") for label in labels(app.query_one(VariablesPane).root)),
            what="the live view: running")
        assert app.view.status.state.value == "RUNNING"
