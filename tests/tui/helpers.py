"""Helpers for driving the TUI in tests: start it on a real JVM and wait for conditions (not sleeps)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tracepilot.core.model import SessionState
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.source import SourceView


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout: float = 15.0, what: str = "",
                   interval: float = 0.02) -> None:
    """Let the app process messages and workers until `condition()` holds (a refresh superseded by a newer
    one is cancelled: that is not a failure)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(interval)


def attached_app(debugger, address: str) -> TracepilotApp:
    async def attach(app: TracepilotApp) -> None:
        await app.debugger.attach(address, 10.0)

    return TracepilotApp(debugger, attach, sourcepath=list(debugger.session.sourcepath_roots())
                         if hasattr(debugger.session, "sourcepath_roots") else [], clock=False)


def stopped(app: TracepilotApp) -> bool:
    status = app.view.status
    return bool(status and status.state is SessionState.STOPPED and status.stop)


def stopped_at(app: TracepilotApp, line: int, method: str | None = None) -> bool:
    status = app.view.status
    if not (status and status.state is SessionState.STOPPED and status.stop and status.stop.location):
        return False
    loc = status.stop.location
    return loc.line == line and (method is None or loc.method == method) and \
        app.query_one(SourceView).current_line == line


async def click_gutter(pilot: Pilot, line: int) -> None:
    """Scroll `line` into view and click its breakpoint cell in the gutter."""
    source = pilot.app.query_one(SourceView)
    source.move_cursor((line - 1, 0), center=True)
    await pilot.pause()
    y = source.gutter.top + (line - 1 - source.scroll_offset.y)
    await pilot.click(SourceView, offset=(source.gutter.left, y))


async def type_text(pilot: Pilot, text: str) -> None:
    """Type `text` into the focused widget: the key events `pilot.press(*text)` sends, in the same order, but as
    one burst (as a fast typist or a paste sends them) followed by one wait. `pilot.press` waits for the app
    to go idle after every key, ~50-100 ms each: a typed command cost seconds of the suite. Use it where only
    the line as a whole matters; press keys one by one where a test looks at what each key did."""
    from textual import events
    from textual.keys import _character_to_key

    driver = pilot.app._driver  # noqa: SLF001  (where pilot.press sends its keys too)
    for char in text:
        key = _character_to_key(char) if not char.isalnum() else char
        event = events.Key(key, char)
        event.set_sender(pilot.app)
        driver.send_message(event)
    await pilot.pause()
