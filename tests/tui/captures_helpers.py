"""What the Captures pane tests share (the TUI's and the watcher's): reading the panes, and opening the first
capture of Captured.step's capture point and checking its frozen view."""

from __future__ import annotations

from textual.widgets.tree import TreeNode

from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.footer import face_action
from tracepilot.tui.widgets.captures import CapturesPane, FrozenBanner
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.variables import VariablesPane

from .helpers import wait_for


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
    return any(face_action(b.binding.action) == "leave_capture" and b.enabled for b in app.active_bindings.values())


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
