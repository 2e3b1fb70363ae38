"""The TUI's Captures pane (issue 31): it fills as capture points take captures; Enter on one opens it in the
Stack and Variables panes as a frozen view (the values at the hit, a banner saying so, nothing read from the
JVM); another captured frame shows that frame's values; Esc, or the next stop, goes back to the live view."""

from __future__ import annotations

import pytest
from textual.widgets.tree import TreeNode

from tracepilot.core.debugger import Debugger
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.captures import CapturesPane, FrozenBanner
from tracepilot.tui.widgets.command_line import CommandLine
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.variables import VariablesPane

from .helpers import stopped_at, wait_for

SIZE = (150, 42)


def labels(node: TreeNode) -> list[str]:
    return [str(child.label).strip() for child in node.children]


def child(node: TreeNode, name: str) -> TreeNode:
    found = [c for c in node.children if str(c.label).strip().startswith(f"{name} =")]
    assert found, (name, labels(node))
    return found[0]


def stack_rows(app: TracepilotApp) -> list[str]:
    stack = app.query_one(StackPane)
    return [str(stack.get_row_at(i)[1]) for i in range(stack.row_count)]


def banner(app: TracepilotApp) -> str:
    widget = app.query_one(FrozenBanner)
    return "" if widget.has_class("hidden") else str(widget.render())


def offers_live_view(app: TracepilotApp) -> bool:
    """The footer offers the key back to the live view."""
    return any(b.binding.action == "leave_capture" and b.enabled for b in app.active_bindings.values())


async def open_first_capture_and_check(pilot, app, line: int) -> None:  # noqa: ANN001
    """Enter on the first capture (of `i == 1` at Captured.step's captured line): its frames, its values as at
    the hit (the list the next line clears, with its elements), the banner; then the caller's frame."""
    pane = app.query_one(CapturesPane)
    await wait_for(pilot, lambda: pane.row_count >= 1, what="the capture in the Captures pane")
    await pilot.press("9")  # the pane's key: its tab shown, the list focused
    assert app.focused is pane
    pane.move_cursor(row=0)
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.frozen.active and "frozen" in banner(app), what="the frozen view")
    text = banner(app)
    assert "capture #1 of bp-1 at Captured.step:" + str(line) in text and "thread main" in text, text
    assert "frozen, not the live program" in text and "Esc" in text, text
    assert stack_rows(app)[:2] == ["Captured.step", "Captured.main"], stack_rows(app)

    tree = app.query_one(VariablesPane)
    root = tree.root
    assert str(root.children[0].label).strip().startswith("❄ capture #1 of bp-1"), labels(root)
    assert "i = 1" in labels(root), labels(root)
    this = child(root, "this")
    names = child(this, "names")
    assert "20 of 25" in str(names.label), str(names.label)  # the cut says what it cut
    elements = labels(names)
    # As at the hit: the list the next line clears shows round 1's elements.
    assert elements[0].endswith('"name-1-0"') and elements[19].endswith('"name-1-19"'), elements
    assert not names.is_expanded
    names.expand()  # within what was captured: no request for it
    await pilot.pause()
    assert names.is_expanded and len(names.children) == 20

    await pilot.press("3")  # the Stack pane: the caller's frame
    assert app.focused is app.query_one(StackPane)
    await pilot.press("down", "enter")
    await wait_for(pilot, lambda: any(label.startswith("total =") for label in labels(tree.root)),
                   what="main's captured values")
    assert "i = 1" in labels(tree.root) and app.frozen.frame == 1, labels(tree.root)
    await pilot.press("up", "enter")
    await wait_for(pilot, lambda: any(label.startswith("this =") for label in labels(tree.root)),
                   what="back to the top frame's values")


@pytest.mark.timeout(60)
async def test_captures_pane_fills_and_opens_a_frozen_view(jvm_factory, java_source_root, line_of):
    target = jvm_factory("Captured")
    debugger = Debugger(sourcepath=[str(java_source_root)])
    line, end = line_of("captured-line"), line_of("captured-end")

    async def attach_and_set(app: TracepilotApp) -> None:
        await app.debugger.attach(target.address, 10.0)
        await app.debugger.breakpoint_set(f"fixtures.Captured:{line}", condition="i == 1", capture=1)
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
        await pilot.press(*"captures", "enter")
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
