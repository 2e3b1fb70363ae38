"""The captures pane: what capture points took, oldest first, one row each; Enter opens one as a frozen view in
the Stack and Variables panes (tui/frozen.py). Also the banner that says a frozen view is shown."""

from __future__ import annotations

import time

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Static

from ...core.capture.model import Capture
from .table import Table


def where_of(capture: Capture) -> str:
    """Class.method:line of the capture's top frame (the class without its package)."""
    loc = capture.location
    return f"{loc.class_name.rpartition('.')[2]}.{loc.method}:{loc.line}" if loc else "?"


def clock_of(capture: Capture) -> str:
    """The capture's wall-clock time, to the millisecond (HH:MM:SS.mmm)."""
    return time.strftime("%H:%M:%S", time.localtime(capture.time)) + f".{int(capture.time * 1000) % 1000:03d}"


def banner_of(capture: Capture) -> str:
    return (f"capture #{capture.number} of {capture.breakpoint_id} at {where_of(capture)}, {clock_of(capture)}, "
            f"thread {capture.thread_name} — frozen, not the live program")


class CapturesPane(Table):
    COLUMNS = ("#", "point", "time", "thread", "where", "held")

    BINDINGS = [
        # (Enter is the table's own select key; listed here so help names what it does)
        Binding("enter", "select_cursor", "Open as a frozen view (Esc: back to live)", show=False),
    ]

    class Opened(Message):
        """Open this capture in the Stack and Variables panes, frozen at its hit."""

        def __init__(self, capture: Capture) -> None:
            super().__init__()
            self.capture = capture

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.border_title = "Captures"
        self._captures: dict[str, Capture] = {}

    def show(self, captures: list[Capture], opened: Capture | None = None) -> None:
        """Every capture, oldest first; the one `opened` (the frozen view) is marked."""
        self._captures = {str(c.seq): c for c in captures}
        rows = []
        for c in captures:
            mark = Text("▶", style="bold yellow") if opened is not None and c.seq == opened.seq else Text(" ")
            rows.append((str(c.seq), (mark + Text(str(c.seq)), f"{c.breakpoint_id} #{c.number}", clock_of(c),
                                      c.thread_name, where_of(c), f"{c.took_ms:.1f} ms")))
        self.set_rows(rows)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if (capture := self._captures.get(event.row_key.value or "")) is not None:
            self.post_message(self.Opened(capture))


class FrozenBanner(Static):
    """One line above the panes while a capture is shown in them: what it is, and that it is not live."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.add_class("hidden")

    def show(self, capture: Capture | None) -> None:
        if capture is None:
            self.add_class("hidden")
            self.update("")
            return
        # The badge and the way back first: a narrow terminal cuts the line's end.
        text = Text(" FROZEN ", style="bold black on cyan")
        text.append(" Esc: live view ", style="bold")
        text.append(f"· {banner_of(capture)}")
        text.no_wrap, text.overflow = True, "ellipsis"
        self.update(text)
        self.remove_class("hidden")
