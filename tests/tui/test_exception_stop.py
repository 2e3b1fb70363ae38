"""Issue 29 point 5 in the TUI, on a real JVM: an exception stop shows the exception's message in the status bar,
its causes in the Events pane, and the exception first in Variables (`$exception`, expandable)."""

from __future__ import annotations

import pytest

from tracepilot.core.model import StopKind
from tracepilot.tui.widgets.events import EventsPane, render_event
from tracepilot.tui.widgets.variables import VariablesPane

from .helpers import wait_for
from .test_functional import SIZE, make_app


@pytest.mark.timeout(60)
async def test_exception_stop_message_causes_and_variable(jvm_factory, java_source_root):
    target = jvm_factory("Causes")
    app = make_app(target.address, java_source_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        await app.debugger.exception_break("*", caught=False, uncaught=True)
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.view.status is not None and app.view.status.stop is not None
                       and app.view.status.stop.kind is StopKind.EXCEPTION, what="the exception stop")
        assert "java.lang.RuntimeException: order failed" in app.view.status.headline()
        await wait_for(pilot, lambda: app.view.variables and app.view.variables[0].name == "$exception",
                       what="$exception first in Variables")
        assert app.view.variables[0].value.text == "java.lang.RuntimeException: order failed"
        tree = app.query_one(VariablesPane)
        assert str(tree.root.children[0].label).startswith("$exception = java.lang.RuntimeException: order failed")
        events = "\n".join(render_event(r).plain for r in app.query_one(EventsPane).records)
        assert "caused by java.lang.IllegalStateException: lookup failed for a customer at fixtures.Causes.lookup" \
            in events, events
        assert 'caused by java.lang.NullPointerException: Cannot invoke "fixtures.Causes$Address.city()"' in events
