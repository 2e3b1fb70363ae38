"""The TUI's second pass (issue 29, points 4, 8, 9 and 10), driven by keys against real JVMs: Threads says each
thread's stop and which stops wait, Enter on a thread puts it on the status bar, a step answered by another
thread's waiting stop says so; 80x24 re-lays out while running; go to line, the command line's prompt, search;
values cut with an ellipsis, collections whole, lambda frames named."""

from __future__ import annotations

import pytest
from rich.text import Text

from tracepilot.core.debugger import Debugger
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.source import SourceView
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.status import StatusBar
from tracepilot.tui.widgets.threads import WAITING, ThreadsPane

from .helpers import stopped, wait_for

pytestmark = pytest.mark.timeout(120)
WIDE = (160, 45)


def attached(address: str, source_root) -> TracepilotApp:
    debugger = Debugger(sourcepath=[str(source_root)])

    async def attach(app: TracepilotApp) -> None:
        await app.debugger.attach(address, 10.0)

    return TracepilotApp(debugger, attach, sourcepath=[str(source_root)], clock=False)


def cells(table, row: int) -> list[str]:
    return [str(c.plain if isinstance(c, Text) else c) for c in table.get_row_at(row)]


def status_text(app: TracepilotApp) -> str:
    return app.query_one(StatusBar).render_text().plain


async def test_threads_say_their_stops_and_enter_shows_a_thread(jvm_factory, java_source_root, line_of):
    app = attached(jvm_factory("Storm", "2", "2").address, java_source_root)
    notes: list[str] = []
    notify = app.notify

    def remember(message, **kwargs):  # the toasts, as said
        notes.append(str(message))
        return notify(message, **kwargs)

    app.notify = remember
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        await app.debugger.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", suspend="thread")
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped(app), what="first worker's hit")
        pane = app.query_one(ThreadsPane)
        await pilot.press("6")  # Threads

        def rows() -> list[list[str]]:
            return [cells(pane, r) for r in range(pane.row_count)]

        def waiting_row() -> list[str] | None:
            return next((r for r in rows() if r[0] == WAITING), None)

        app.refresher.schedule()
        await wait_for(pilot, lambda: waiting_row() is not None
                       or (app.refresher.schedule() or False), what="the other worker's waiting hit marked")
        current = next(r for r in rows() if r[0] == "▶")
        assert current[2].startswith("suspended at a breakpoint (bp-1, hit "), current
        assert "running (suspended)" not in " ".join(" ".join(r) for r in rows())
        other = waiting_row()
        assert other[2].endswith("waiting to be answered"), other
        assert "1 more stop(s) waiting" in status_text(app)
        assert current[3] == "Storm.work:" + str(line_of("storm-work"))

        # Enter on the other worker: the status bar is about it now
        pane.move_cursor(row=[r[1] for r in rows()].index(other[1]))
        await pilot.press("enter")
        await wait_for(pilot, lambda: status_text(app).startswith(f" STOPPED  {other[1]}: suspended at a breakpoint"),
                       what="status bar on the selected thread")
        # its stack: the lambda's frames name Storm.main, not the JDK's hidden class
        stack = app.query_one(StackPane)
        await wait_for(pilot, lambda: stack.row_count > 2 and cells(stack, 1)[1] == "lambda in Storm.main",
                       what="lambda frame named")
        assert not any("0x" in cells(stack, r)[1] for r in range(stack.row_count))

        # back to the first worker; F10 there is answered by the waiting hit, and says so
        pane.move_cursor(row=[r[1] for r in rows()].index(current[1]))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current_thread() == int(pane.coordinate_to_cell_key((pane.cursor_row, 0))
                                                                   .row_key.value), what="first worker again")
        await pilot.press("f10")
        await wait_for(pilot, lambda: any("stop that was waiting" in n for n in notes), what="the step's answer")
        assert any(f"{other[1]}'s stop that was waiting (bp-1)" in n for n in notes), notes
