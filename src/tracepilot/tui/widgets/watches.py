"""The watches pane: expressions evaluated at every stop, with their last values and history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message

from ..footer import NO_LIMIT, faces
from ..view import COMPACT_WIDTH
from .table import FacesTable


@dataclass
class WatchRow:
    id: str
    expression: str
    value: str
    history: list[str]
    error: bool = False


def watch_row(watch: Any) -> WatchRow:
    """Read a core watcher record (any dataclass with id/expression/value/history-like fields)."""
    value = getattr(watch, "value", None)
    error = getattr(watch, "error", None)
    text = str(error) if error else (getattr(value, "text", None) or ("" if value is None else str(value)))
    history = [getattr(h, "text", None) or str(getattr(h, "value", h)) for h in (getattr(watch, "history", None) or [])]
    return WatchRow(str(getattr(watch, "id", "")), str(getattr(watch, "expression", "")), text, history, bool(error))


class WatchesPane(FacesTable):
    COLUMNS = ("id", "expression", "value", "history")

    # In the footer from COMPACT_WIDTH columns on only (see BreakpointsPane); the keys work at every width.
    BINDINGS = [
        *faces("a,insert", "add", [("Add watch", COMPACT_WIDTH, NO_LIMIT)]),
        *faces("e", "edit", [("Edit", COMPACT_WIDTH, NO_LIMIT)]),
        *faces("delete,x", "remove", [("Remove", COMPACT_WIDTH, NO_LIMIT)]),
        Binding("a,insert", "add", "Add watch", show=False),
        Binding("e", "edit", "Edit", show=False),
        Binding("delete,x", "remove", "Remove", show=False),
    ]

    class AddRequested(Message):
        def __init__(self, replace: str | None = None, expression: str = "") -> None:
            super().__init__()
            self.replace = replace
            self.expression = expression

    class RemoveRequested(Message):
        def __init__(self, watch_id: str) -> None:
            super().__init__()
            self.watch_id = watch_id

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.border_title = "Watches"
        self._rows: dict[str, WatchRow] = {}

    def show(self, watches: list[Any]) -> None:
        rows = [watch_row(w) for w in watches]
        self._rows = {r.id: r for r in rows}
        self.set_rows([(r.id, (r.id, r.expression, Text(r.value, style="red") if r.error else r.value,
                                " ← ".join(reversed(r.history[-4:-1])))) for r in rows])

    def _current(self) -> WatchRow | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return self._rows.get(key or "")

    def action_add(self) -> None:
        self.post_message(self.AddRequested())

    def action_edit(self) -> None:
        if row := self._current():
            self.post_message(self.AddRequested(replace=row.id, expression=row.expression))

    def action_remove(self) -> None:
        if row := self._current():
            self.post_message(self.RemoveRequested(row.id))
