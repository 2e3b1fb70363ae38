"""A DataTable whose column widths are computed when rows are set, not later on idle, so a repaint
right after an update (and every snapshot) shows the final layout."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable

from ..footer import NO_LIMIT, face_state


class Table(DataTable):
    COLUMNS: tuple[str, ...] = ()
    _shown: list[tuple[str, tuple[str | Text, ...]]] | None = None
    _widths: list[int] | None = None
    _room = 0  # the width the columns were fitted to

    def on_mount(self) -> None:
        self.set_rows([])

    def set_rows(self, rows: Sequence[tuple[str, Sequence[str | Text]]], cursor: int | None = None) -> None:
        """Replace every row (key, cells); the cursor stays on its row number unless `cursor` is given.
        The same rows again change nothing; the same keys and column widths update only the cells that
        changed (no re-layout)."""
        # Plain strings are shown as they are: thread names, values and expressions come from the target or
        # the user and may hold "[...]" that must not be read as markup. Styled cells are passed as Text.
        shown = [(key, tuple(_ellipsis(c if isinstance(c, Text) else Text(c)) for c in cells)) for key, cells in rows]
        room = self.scrollable_content_region.width
        if shown == self._shown and self.row_count == len(shown) and room == self._room and (
                cursor is None or not shown or cursor == self.cursor_row):
            return
        self._room = room
        widths = [Text.from_markup(label).cell_len for label in self.COLUMNS]
        for _, cells in shown:
            for i, cell in enumerate(cells):
                widths[i] = max(widths[i], cell.cell_len)
        widths = self._fit(widths, room)
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

    def _fit(self, widths: list[int], room: int) -> list[int]:
        """Columns narrowed (the widest first, none below 8) so the table fits the pane: a cell cut at the edge
        ends in "…" instead of running off it."""
        if room <= 0:
            return widths
        widths = list(widths)
        padding = 2 * self.cell_padding * len(widths)
        while sum(widths) + padding > room:
            widest = max(range(len(widths)), key=lambda i: widths[i])
            if widths[widest] <= 8:
                break
            widths[widest] = max(8, widths[widest] - (sum(widths) + padding - room))
        return widths

    def on_resize(self) -> None:
        if self._shown is not None and self.scrollable_content_region.width != self._room:
            rows = [(key, cells) for key, cells in self._shown]
            self._shown = None
            self.set_rows(rows)


def _ellipsis(cell: Text) -> Text:
    cell.no_wrap = True
    cell.overflow = "ellipsis"
    return cell


class FacesTable(Table):
    """A Table whose BINDINGS hold footer faces (tui/footer.py): hides a face outside its widths and runs its
    action when pressed."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return face_state(self, parameters) if action == "footer" else super().check_action(action, parameters)

    async def action_footer(self, action: str, _low: int = 0, _high: int = NO_LIMIT) -> None:
        await self.run_action(action)  # a face pressed or clicked: its action
