"""The threads pane: each thread's state in the core's words (its stop, paused, held by another thread's stop,
running), where it is, its locks; a stop not answered yet is marked, so F10 or F5 is no surprise. Selecting a
thread makes it current."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from ...core.model import ThreadInfo
from .table import Table

WAITING = "●"  # a stop of this thread waits to be answered: the next F5/F10 hands it out first


class ThreadsPane(Table):
    COLUMNS = (" ", "thread", "state", "at", "locks")

    class ThreadSelected(Message):
        def __init__(self, thread_id: int) -> None:
            super().__init__()
            self.thread_id = thread_id

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.border_title = "Threads"

    def show(self, threads: list[ThreadInfo], current: int | None) -> None:
        rows = []
        selected = 0
        for row, thread in enumerate(threads):
            if thread.id == current:
                selected = row
            if thread.id == current:
                mark = Text("▶", style="bold green")
            elif thread.waiting:
                mark = Text(WAITING, style="bold yellow")
            else:
                mark = Text("⏸" if thread.suspended else " ")
            state = thread.description or (thread.state + (" (suspended)" if thread.suspended else ""))
            state_cell = Text(state, style="bold yellow" if thread.waiting else "")
            loc = thread.location
            at = f"{loc.function(short=True)}:{loc.line}" if loc else ""
            locks = ""
            if thread.owned_monitors:
                locks = "holds " + ", ".join(m.text for m in thread.owned_monitors)
            if thread.waiting_for:
                locks += (" " if locks else "") + f"waits {thread.waiting_for.text}"
            rows.append((str(thread.id), (mark, thread.name, state_cell, at, locks)))
        self.set_rows(rows, cursor=selected)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ThreadSelected(int(event.row_key.value)))
