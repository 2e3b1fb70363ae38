"""A DataTable whose column widths are computed when rows are set, not later on idle, so a repaint
right after an update (and every snapshot) shows the final layout."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable


class Table(DataTable):
    COLUMNS: tuple[str, ...] = ()

    def on_mount(self) -> None:
        self.set_rows([])

    def set_rows(self, rows: Sequence[tuple[str, Sequence[str | Text]]], cursor: int | None = None) -> None:
        """Replace every row (key, cells); the cursor stays on its row number unless `cursor` is given."""
        previous = self.cursor_row
        widths = [Text.from_markup(label).cell_len for label in self.COLUMNS]
        for _, cells in rows:
            for i, cell in enumerate(cells):
                text = cell if isinstance(cell, Text) else Text.from_markup(cell)
                widths[i] = max(widths[i], text.cell_len)
        self.clear(columns=True)
        for label, width in zip(self.COLUMNS, widths, strict=True):
            self.add_column(label, width=width)
        for key, cells in rows:
            self.add_row(*cells, key=key)
        if rows:
            row = previous if cursor is None else cursor
            self.move_cursor(row=min(max(row, 0), len(rows) - 1), animate=False)
