"""A DataTable whose column widths are computed when rows are set, not later on idle, so a repaint
right after an update (and every snapshot) shows the final layout."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable


class Table(DataTable):
    COLUMNS: tuple[str, ...] = ()
    _shown: list[tuple[str, tuple[str | Text, ...]]] | None = None
    _widths: list[int] | None = None

    def on_mount(self) -> None:
        self.set_rows([])

    def set_rows(self, rows: Sequence[tuple[str, Sequence[str | Text]]], cursor: int | None = None) -> None:
        """Replace every row (key, cells); the cursor stays on its row number unless `cursor` is given.
        The same rows again change nothing; the same keys and column widths update only the cells that
        changed (no re-layout)."""
        # Plain strings are shown as they are: thread names, values and expressions come from the target or
        # the user and may hold "[...]" that must not be read as markup. Styled cells are passed as Text.
        shown = [(key, tuple(c if isinstance(c, Text) else Text(c) for c in cells)) for key, cells in rows]
        if shown == self._shown and self.row_count == len(shown) and (
                cursor is None or not shown or cursor == self.cursor_row):
            return
        widths = [Text.from_markup(label).cell_len for label in self.COLUMNS]
        for _, cells in shown:
            for i, cell in enumerate(cells):
                widths[i] = max(widths[i], cell.cell_len)
        previous_rows, self._shown = self._shown, shown
        if previous_rows is not None and widths == self._widths and self.row_count == len(previous_rows) \
                and [key for key, _ in previous_rows] == [key for key, _ in shown]:
            for (key, cells), (_, before) in zip(shown, previous_rows, strict=True):
                for column, (cell, old) in enumerate(zip(cells, before, strict=True)):
                    if cell != old:
                        self.update_cell(key, str(column), cell)
        else:
            previous = self.cursor_row
            self._widths = widths
            self.clear(columns=True)
            for column, (label, width) in enumerate(zip(self.COLUMNS, widths, strict=True)):
                self.add_column(label, width=width, key=str(column))
            for key, cells in shown:
                self.add_row(*cells, key=key)
            cursor = previous if cursor is None else cursor
        if shown and cursor is not None and cursor != self.cursor_row:
            self.move_cursor(row=min(max(cursor, 0), len(shown) - 1), animate=False)
