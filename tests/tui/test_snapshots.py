"""Snapshot tests of the main screens (fixed terminal sizes, no clock, scripted debugger data).

The data comes from `FakeDebugger` (the facade's methods returning the core's own model types) so
every pixel is deterministic: no thread ids, ports, handles or times that vary between runs. The same
screens against real JVMs are covered by test_functional.py. Update with `pytest --snapshot-update`.
"""

from __future__ import annotations

import contextlib

from textual.widgets import DataTable
from textual.worker import WorkerCancelled

from tracepilot.tui.widgets.source import SourceView
from tracepilot.tui.widgets.variables import VariablesPane

from .fake_debugger import fake_app
from .helpers import wait_for


async def quiet(pilot) -> None:
    """Wait until tables have sized their columns (done on idle, which a loaded machine delays)."""
    with contextlib.suppress(WorkerCancelled):  # a refresh superseded by a newer one
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await wait_for(pilot, lambda: not any(t._require_update_dimensions for t in pilot.app.query(DataTable)),
                   what="tables laid out")
    await pilot.pause()


async def settle(pilot) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.refreshes > 0, what="first refresh")
    await wait_for(pilot, lambda: app.view.output, what="program output polled")
    app.query_one(SourceView).focus()
    await quiet(pilot)


def test_main_screen_at_a_stop(snap_compare):
    assert snap_compare(fake_app(), terminal_size=(140, 40), run_before=settle)


def test_variables_expanded(snap_compare):
    async def expand(pilot) -> None:
        await settle(pilot)
        tree = pilot.app.query_one(VariablesPane)
        node = next(n for n in tree.root.children if str(n.label).startswith("p ="))
        node.expand()
        await wait_for(pilot, lambda: any(str(c.label).strip().startswith("counter") for c in node.children),
                       what="fields of p")
        tree.focus()
        tree.move_cursor(node)
        await quiet(pilot)

    assert snap_compare(fake_app(), terminal_size=(140, 40), run_before=expand)


def test_breakpoints_pane(snap_compare):
    async def show(pilot) -> None:
        await settle(pilot)
        pilot.app.query_one("#tabs").active = "tab-breakpoints"
        await quiet(pilot)

    assert snap_compare(fake_app(), terminal_size=(140, 40), run_before=show)


def test_help_screen(snap_compare):
    async def show(pilot) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await quiet(pilot)

    assert snap_compare(fake_app(), terminal_size=(120, 50), run_before=show)


def test_capture_frozen_view(snap_compare):
    """A capture opened from the Captures pane: its frames and values in Stack and Variables, the banner."""
    app = fake_app()
    app.debugger.script_capture()

    async def open_capture(pilot) -> None:
        await settle(pilot)
        await wait_for(pilot, lambda: pilot.app.frozen.captures, what="the capture listed")
        await pilot.press("9", "enter")
        await wait_for(pilot, lambda: pilot.app.frozen.active, what="the frozen view")
        tree = pilot.app.query_one(VariablesPane)
        this = next(n for n in tree.root.children if str(n.label).strip().startswith("this ="))
        this.expand()
        items = next(n for n in this.children if str(n.label).strip().startswith("items ="))
        items.expand()
        # (its elements come after a turn or two: on a loaded machine the picture was taken before them)
        await wait_for(pilot, lambda: len(items.children) > 0, what="the list's elements")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(140, 40), run_before=open_capture)


def test_small_terminal(snap_compare):
    assert snap_compare(fake_app(), terminal_size=(80, 24), run_before=settle)


def test_small_terminal_variables_by_key(snap_compare):
    """80x24: `2` focuses Variables (its bar lights up), Right opens `p`."""
    async def focus_and_expand(pilot) -> None:
        await settle(pilot)
        await pilot.press("2")
        tree = pilot.app.query_one(VariablesPane)
        tree.move_cursor(next(n for n in tree.root.children if str(n.label).startswith("p =")))
        await pilot.press("right")
        await wait_for(pilot, lambda: any(str(c.label).strip().startswith("counter")
                                          for n in tree.root.children for c in n.children), what="fields of p")
        await quiet(pilot)

    assert snap_compare(fake_app(), terminal_size=(80, 24), run_before=focus_and_expand)


def test_value_shown_whole(snap_compare):
    async def open_value(pilot) -> None:
        await settle(pilot)
        await pilot.press("2")
        tree = pilot.app.query_one(VariablesPane)
        tree.move_cursor(next(n for n in tree.root.children if str(n.label).startswith("p =")))
        await pilot.press("v")
        await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "ValueScreen", what="value screen")
        await quiet(pilot)

    assert snap_compare(fake_app(), terminal_size=(100, 30), run_before=open_value)
