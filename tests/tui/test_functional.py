"""The TUI driven like a person would, against real JVMs (tests/java/fixtures/Playground.java)."""

from __future__ import annotations

import pytest
from textual.command import CommandList

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind
from tracepilot.tui.app import TracepilotApp
from tracepilot.tui.widgets.breakpoints import BreakpointsPane
from tracepilot.tui.widgets.output import OutputPane
from tracepilot.tui.widgets.source import SourceView
from tracepilot.tui.widgets.stack import StackPane
from tracepilot.tui.widgets.threads import ThreadsPane
from tracepilot.tui.widgets.variables import VariablesPane
from tracepilot.tui.widgets.watches import WatchesPane

from .helpers import click_gutter, stopped, stopped_at, type_text, wait_for

SIZE = (140, 40)


def make_app(address: str, source_root) -> TracepilotApp:
    debugger = Debugger(sourcepath=[str(source_root)])

    async def attach(app: TracepilotApp) -> None:
        await app.debugger.attach(address, 10.0)

    return TracepilotApp(debugger, attach, sourcepath=[str(source_root)], clock=False)


def console_text(app: TracepilotApp) -> str:
    return "\n".join(strip.text for strip in app.query_one(OutputPane).lines)


async def open_playground(pilot, app: TracepilotApp) -> None:
    """Ctrl+O, type the file name, Enter: the fuzzy finder opens the file in the source pane."""
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "CommandPalette", what="file finder")
    await type_text(pilot, "Playground.java")
    found = app.screen.query_one(CommandList)  # the finder searches in a worker: await its first answer
    await wait_for(pilot, lambda: found.option_count and "Playground.java" in str(found.get_option_at_index(0).prompt),
                   what="Playground.java found")
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.query_one(SourceView).path is not None
                   and app.query_one(SourceView).path.name == "Playground.java", what="Playground.java shown")


@pytest.mark.timeout(90)
async def test_attach_break_continue_step_inspect(jvm_factory, java_source_root, line_of):
    target = jvm_factory("Playground", "1000")
    app = make_app(target.address, java_source_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        assert app.view.status is not None and app.view.status.target

        # a breakpoint from the gutter
        await open_playground(pilot, app)
        loop_body = line_of("loop-body")
        await click_gutter(pilot, loop_body)
        await wait_for(pilot, lambda: loop_body in app.query_one(SourceView).marks, what="gutter mark")
        assert [bp.spec for bp in app.view.breakpoints if bp.kind == "line"]

        # continue and see the stop
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped_at(app, loop_body), what="stop at loop-body")
        assert app.view.status.stop.kind is StopKind.BREAKPOINT
        assert app.view.status.stop.thread_name == "main"

        # step over (F10) twice, then into compute (F11)
        await pilot.press("f10")
        await wait_for(pilot, lambda: stopped_at(app, line_of("loop-static")), what="step over")
        await pilot.press("f10")
        await wait_for(pilot, lambda: stopped_at(app, line_of("loop-call")), what="second step over")
        await pilot.press("f11")
        await wait_for(pilot, lambda: stopped_at(app, line_of("compute-body"), "compute"), what="step into")
        await wait_for(pilot, lambda: len(app.view.frames) >= 2, what="stack of two frames")
        assert app.query_one(StackPane).row_count == len(app.view.frames)

        # frame up with `u` in the source pane: locals and the arrow follow main
        app.query_one(SourceView).focus()
        await pilot.press("u")
        await wait_for(pilot, lambda: app.frame == 1 and app.query_one(SourceView).current_line == line_of("loop-call"),
                       what="frame 1")
        await wait_for(pilot, lambda: any(v.name == "p" for v in app.view.variables), what="main's locals")

        # expand `p` in the variables tree
        tree = app.query_one(VariablesPane)
        node = next(n for n in tree.root.children if str(n.label).startswith("p ="))
        node.expand()
        await wait_for(pilot, lambda: any(str(c.label).strip().startswith("counter") for c in node.children),
                       what="fields of p")

        # a watch
        await pilot.press("w")
        await type_text(pilot, "p.counter")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one(WatchesPane).row_count == 1, what="watch row")

        # evaluate in the command line
        await pilot.press("colon")
        await type_text(pilot, "print i + 100")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "100" in console_text(app).split("print i + 100", 1)[-1], what="print result")

        # back down to the top frame with `d`
        app.query_one(SourceView).focus()
        await pilot.press("d")
        await wait_for(pilot, lambda: app.frame == 0 and app.query_one(SourceView).current_line == line_of("compute-body"),
                       what="frame 0")


@pytest.mark.timeout(90)
async def test_switch_thread_and_breakpoint_pane(jvm_factory, java_source_root, line_of):
    target = jvm_factory("Playground", "1000")
    app = make_app(target.address, java_source_root)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set() and app.refreshes > 0, what="attached")
        worker_body = line_of("worker-body")
        await pilot.press("colon")
        await type_text(pilot, f"stop at fixtures.Playground:{worker_body}")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one(BreakpointsPane).row_count == 1, what="breakpoint row")
        await pilot.press("f5")
        await wait_for(pilot, lambda: stopped(app) and app.view.status.stop.thread_name == "worker-1",
                       timeout=20, what="stop in worker-1")
        await wait_for(pilot, lambda: app.query_one(SourceView).current_line == worker_body, what="worker line")

        # switch to main in the threads pane
        threads = app.query_one(ThreadsPane)
        main = next(t for t in app.view.threads if t.name == "main")
        app.query_one("#tabs").active = "tab-threads"
        threads.focus()
        await pilot.pause()
        threads.move_cursor(row=[t.id for t in app.view.threads].index(main.id))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.thread == main.id and app.view.frames
                       and all(f.location.method != "lambda$startWorker$0" for f in app.view.frames),
                       what="main's stack")

        # disable the breakpoint from the breakpoints pane (space), its gutter look follows
        app.query_one("#tabs").active = "tab-breakpoints"
        pane = app.query_one(BreakpointsPane)
        pane.focus()
        await pilot.press("space")
        await wait_for(pilot, lambda: app.view.breakpoints and not app.view.breakpoints[0].enabled, what="disabled")
