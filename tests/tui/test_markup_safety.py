"""Strings from the target (thread names, values) are shown literally, never read as Rich markup."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tracepilot.core.model import ThreadInfo
from tracepilot.tui.widgets.threads import ThreadsPane


class _OnePane(App):
    def compose(self) -> ComposeResult:
        yield ThreadsPane()


async def test_a_thread_named_like_markup_is_shown_as_it_is():
    app = _OnePane()
    async with app.run_test() as pilot:
        pane = app.query_one(ThreadsPane)
        pane.show([ThreadInfo(1, "worker[/]", None, "running", False),
                   ThreadInfo(2, "[bold]pool[/bold]-1", None, "waiting", True)], 1)
        await pilot.pause()
        names = [str(pane.get_cell_at((row, 1))) for row in range(pane.row_count)]
        assert names == ["worker[/]", "[bold]pool[/bold]-1"]
