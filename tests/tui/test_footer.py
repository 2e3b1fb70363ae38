"""The footer rebuilds itself only when the keys it shows change (Textual's Footer recomposes on every "bindings
changed" signal: every focus move, every state change, several per key press), and it always shows the keys that
apply now. One real JVM: focus moves that keep the keys, a pane with keys of its own, running and stopped."""

from __future__ import annotations

import pytest

from tracepilot.core.model import SessionState
from tracepilot.tui.footer import face_action
from tracepilot.tui.widgets.breakpoints import BreakpointsPane
from tracepilot.tui.widgets.footer import KeysFooter
from tracepilot.tui.widgets.source import SourceView
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.variables import VariablesPane

from .helpers import wait_for
from .test_keyboard import WIDE, attached, offered, stop_at_line

pytestmark = pytest.mark.timeout(60)


def footer_offers(app) -> set[str]:
    """The actions the footer's key widgets offer (enabled), the palette's key aside."""
    return {face_action(key.action) for key in app.query("FooterKey")
            if not key.has_class("-disabled") and not key.has_class("-command-palette")}


def current(app) -> bool:
    return footer_offers(app) == offered(app)


async def settled(pilot) -> None:
    for _ in range(3):  # (the footer checks its keys after the next refresh)
        await pilot.pause()


async def test_the_footer_recomposes_only_when_its_keys_change(jvm_factory, java_source_root, line_of):
    app = attached(jvm_factory("Playground", "1000").address, java_source_root)
    async with app.run_test(size=WIDE) as pilot:
        await stop_at_line(pilot, app, line_of("loop-body"))
        footer = app.query_one(KeysFooter)
        await wait_for(pilot, lambda: current(app), what="the footer shows the stop's keys")
        await settled(pilot)
        stopped_keys, composed = footer_offers(app), footer.composed
        assert "step_over" in stopped_keys

        for key, pane in (("2", VariablesPane), ("3", StackPane), ("1", SourceView)):  # no keys of their own
            await pilot.press(key)
            await wait_for(pilot, lambda p=pane: isinstance(app.focused, p), what=f"{key} focuses {pane.__name__}")
            await settled(pilot)
            assert footer.composed == composed, f"{key}: the footer was rebuilt with the same keys"
            assert footer_offers(app) == stopped_keys

        await pilot.press("5")  # the Breakpoints pane brings its own keys, and takes them away again
        await wait_for(pilot, lambda: isinstance(app.focused, BreakpointsPane) and current(app)
                       and "remove" in footer_offers(app), what="the Breakpoints pane's keys in the footer")
        assert footer.composed > composed
        await pilot.press("1")
        await wait_for(pilot, lambda: isinstance(app.focused, SourceView) and current(app)
                       and footer_offers(app) == stopped_keys, what="the source pane's keys again")

        await app.debugger.breakpoint_remove("all")  # running, then stopped: the keys follow the state
        composed = footer.composed
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.view.status.state is SessionState.RUNNING and current(app)
                       and "pause" in footer_offers(app) and "step_over" not in footer_offers(app),
                       what="the running program's keys")
        assert footer.composed > composed
        await pilot.press("f6")
        await wait_for(pilot, lambda: app.view.status.state is SessionState.STOPPED and current(app)
                       and "step_over" in footer_offers(app), what="the paused program's keys")
