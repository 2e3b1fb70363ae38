"""The TUI shows a trace as a call tree and the first calls with their values (issue 32): typed on the command
line at a stop, with `resume`."""

from __future__ import annotations

import pytest
from textual.widgets import Tree

from tracepilot.tui.screens.trace import TraceScreen
from tracepilot.tui.widgets.command_line import CommandLine

from .helpers import stopped, type_text, wait_for
from .test_functional import SIZE, console_text, make_app


async def command_line(pilot, app) -> None:
    if not isinstance(app.focused, CommandLine):
        await pilot.press("colon")


def stopped_on_line(app, line: int) -> bool:
    """(A stop can be shown before its location is read: seen as an AttributeError in 1 run of 7.)"""
    location = app.view.status.stop.location if stopped(app) else None
    return location is not None and location.line == line


def labels(node) -> list[str]:
    out = [str(node.label)]
    for child in node.children:
        out.extend(labels(child))
    return out


@pytest.mark.timeout(90)
async def test_trace_at_a_stop_shows_the_call_tree(jvm_factory, java_source_root, line_of):
    target = jvm_factory("TraceShop", "once")
    app = make_app(target.address, java_source_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        for marker in ("trace-start", "trace-end"):
            await command_line(pilot, app)
            await type_text(pilot, f"stop at fixtures.TraceShop:{line_of(marker)}")
            await pilot.press("enter")
            await wait_for(pilot, lambda m=marker: f"{line_of(m)}" in console_text(app), what=f"breakpoint {marker}")
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_on_line(app, line_of("trace-start")), timeout=20,
                       what="stop at trace-start")
        await command_line(pilot, app)
        await type_text(pilot, "trace fixtures.TraceShop 20 resume")
        await pilot.press("enter")
        try:
            await wait_for(pilot, lambda: isinstance(app.screen, TraceScreen), timeout=30, what="the trace screen")
        except AssertionError:
            raise AssertionError(console_text(app)[-1500:]) from None
        tree = app.screen.query_one(Tree)
        shown = labels(tree.root)
        assert any(text.startswith("fixtures.TraceShop.fib(int)  ×1") for text in shown), shown
        assert any(text.startswith("fixtures.TraceShop.hot(int)  ×20") for text in shown), shown
        assert any("thrower(int)" in text for text in shown), shown
        # the first calls, per method, with their arguments and return value or how they ended (in the JVM)
        first = shown.index(next(text for text in shown if text.startswith("first calls (")))
        calls = shown[first:]
        assert "fixtures.TraceShop.fib(int)  (8 recorded)" in calls, calls
        assert "fib(n=6) -> 8  [main]" in calls and "thrower(depth=2) threw  [main]" in calls, calls
        assert "hot(i=0) -> 7  [main]" in calls and any(text.startswith("login(user=\"ada\", ") for text in calls), calls
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TraceScreen), what="closed")
