"""The TUI's second pass (issue 29, points 4, 8, 9 and 10), driven by keys against real JVMs: Threads says each
thread's stop and which stops wait, Enter on a thread puts it on the status bar, a step answered by another
thread's waiting stop says so; 80x24 re-lays out while running; go to line, the command line's prompt, search;
values cut with an ellipsis, collections whole, lambda frames named."""

from __future__ import annotations

import pytest
from rich.text import Text

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.screens.prompt import PromptScreen
from tracepilot.tui.screens.value import ValueScreen
from tracepilot.tui.startup import launch_and_run
from tracepilot.tui.widgets.breakpoints import BreakpointsPane
from tracepilot.tui.widgets.command_line import CommandLine
from tracepilot.tui.widgets.output import OutputPane
from tracepilot.tui.widgets.source import SourceView
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.status import StatusBar
from tracepilot.tui.widgets.threads import WAITING, ThreadsPane
from tracepilot.tui.widgets.variables import VariablesPane

from .helpers import stopped, stopped_at, type_text, wait_for

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


def launched_playground(java_classes, source_root, breaks: list[str]) -> TracepilotApp:
    debugger = Debugger(sourcepath=[str(source_root)])
    options = {"main": "fixtures.Playground", "classpath": str(java_classes), "args": ["1000"],
               "sourcepath": [str(source_root)]}
    return TracepilotApp(debugger, lambda app: launch_and_run(app, options, breaks), launched=True,
                         sourcepath=[str(source_root)], clock=False)


def console_lines(app: TracepilotApp) -> list[str]:
    return [c.plain if isinstance(c, Text) else str(c) for c in app.query_one(OutputPane).written]


def laid_out(app: TracepilotApp, *, compact: bool) -> bool:
    """The layout asked for is in place: its panes mounted and the re-layout worker done."""
    relayouts = [w for w in app.workers if w.group == "relayout" and not w.is_finished]
    return app.compact == compact and not relayouts and bool(app.query(OutputPane))


def current_line_in_view(source: SourceView) -> bool:
    top, height = source.scroll_offset.y, source.scrollable_content_region.height
    return source.current_line is not None and height > 0 and top <= source.current_line - 1 < top + height


def footer_keys(app: TracepilotApp) -> dict[str, int]:
    """The footer's keys as laid out: key -> the column its cell ends at."""
    return {key.key: key.region.right for key in app.query("FooterKey") if key.region.width}


async def test_resizing_to_80x24_while_running_keeps_source_console_and_footer(java_classes, java_source_root,
                                                                               line_of):
    loop = line_of("loop-body")
    app = launched_playground(java_classes, java_source_root, [f"fixtures.Playground:{loop}"])
    async with app.run_test(size=WIDE) as pilot:
        await wait_for(pilot, lambda: stopped_at(app, loop), timeout=30, what="stopped in the loop")
        await pilot.press("colon")
        await type_text(pilot, "print iterations")
        await pilot.press("enter", "escape")
        await wait_for(pilot, lambda: any("1000" in line for line in console_lines(app)), what="printed")
        await wait_for(pilot, lambda: any("playground started" in line for line in console_lines(app)),
                       what="program output")
        before = console_lines(app)

        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: laid_out(app, compact=True), what="compact layout")
        source = app.query_one(SourceView)
        await wait_for(pilot, lambda: current_line_in_view(app.query_one(SourceView)), what="current line in view")
        assert console_lines(app)[:len(before)] == before  # nothing lost on the re-layout

        await pilot.press("f5")  # running: resized both ways while it prints
        await wait_for(pilot, lambda: app.view.status.state is SessionState.RUNNING or stopped_at(app, loop),
                       what="continued")
        await pilot.resize_terminal(160, 45)
        await wait_for(pilot, lambda: laid_out(app, compact=False), what="wide again")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: laid_out(app, compact=True), what="compact again")
        assert console_lines(app)[:len(before)] == before
        await wait_for(pilot, lambda: stopped_at(app, loop), what="the next hit")
        source = app.query_one(SourceView)
        await wait_for(pilot, lambda: current_line_in_view(source), what="the new line in view at 80x24")

        await pilot.press("5")  # Breakpoints focused: `:`, `?` and `q` still in the footer, inside 80 columns
        await wait_for(pilot, lambda: isinstance(app.focused, BreakpointsPane), what="breakpoints focused")
        await wait_for(pilot, lambda: {"colon", "question_mark", "q"} <= set(footer_keys(app)), what="footer keys")
        assert all(right <= 80 for right in footer_keys(app).values()), footer_keys(app)
        assert "f5" in footer_keys(app) and "f10" in footer_keys(app)


async def test_go_to_line_command_prompt_search_and_values(jvm_factory, java_source_root, line_of):
    app = attached(jvm_factory("Values", "loop").address, java_source_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        here = line_of("values")
        await app.debugger.breakpoint_set(f"fixtures.Values:{here}")
        source = app.query_one(SourceView)
        source.focus()
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_at(app, here), what="stop at values")
        await wait_for(pilot, lambda: app.view.variables, what="locals")

        # go to line: `:12` on the command line, Ctrl+G (also in the palette)
        await pilot.press("colon", "1", "2", "enter")
        await wait_for(pilot, lambda: source.has_focus and source.cursor_line == 12, what=":12")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen), what="go-to-line prompt")
        await pilot.press("3", "0", "enter")
        await wait_for(pilot, lambda: source.has_focus and source.cursor_line == 30, what="Ctrl+G 30")
        assert "Go to line" in [c.title for c in app.get_system_commands(app.screen)]

        # Tab from Watches lands in the command line, which says so
        command = app.query_one(CommandLine)
        await pilot.press("4", "tab")
        await wait_for(pilot, lambda: command.has_focus, what="Tab from Watches to the command line")
        assert command.placeholder == CommandLine.FOCUSED_PROMPT
        await pilot.press("escape")
        await wait_for(pilot, lambda: source.has_focus and command.placeholder != CommandLine.FOCUSED_PROMPT,
                       what="back to the source")

        # a match on the current line shows (the line's colour does not hide it); no jump sideways
        await pilot.press("slash")
        await type_text(pilot, "ready")
        await pilot.press("enter")
        await wait_for(pilot, lambda: source.selection.start[0] == here - 1, what="match on the current line")
        assert source.scroll_offset.x == 0
        await pilot.pause()
        row = here - 1 - source.scroll_offset.y
        chosen = source.get_component_rich_style("text-area--selection")
        styles = {seg.style.bgcolor for seg in source.render_line(row) if seg.style is not None and seg.text.strip()}
        assert chosen.bgcolor in styles, styles
        await pilot.press("f2")  # previous match: F2 where Shift+F3 does not come through (tmux)
        await wait_for(pilot, lambda: source.selection.start[0] != here - 1 or source.search_term, what="F2")
        await pilot.press("escape")

        # values cut at the pane's edge end in an ellipsis
        tree = app.query_one(VariablesPane)
        huge = next(n for n in tree.root.children if str(n.label).strip().startswith("huge ="))
        tree.scroll_to_node(huge, animate=False)
        await pilot.pause()
        line = tree.render_line(huge.line - tree.scroll_offset.y).text.rstrip()
        assert line.endswith("…"), line

        # a collection's whole-value view lists its elements, each expandable
        objs = next(n for n in tree.root.children if str(n.label).strip().startswith("objs ="))
        tree.focus()
        tree.move_cursor(objs)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ValueScreen), what="value screen")
        elements = app.screen.query_one("#value-elements", VariablesPane)
        rows = [str(n.label).strip() for n in elements.root.children]
        assert rows[0].startswith('[0] = "s"') and rows[3].startswith("[3] = "), rows
        point = elements.root.children[3]
        assert point.allow_expand
        point.expand()
        await wait_for(pilot, lambda: any(str(c.label).strip().startswith("x = 1") for c in point.children),
                       what="the element's fields")
