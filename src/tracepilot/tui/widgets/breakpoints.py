"""The breakpoints pane: every breakpoint with its state; toggle, edit and remove go to the app."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from ...core.model import BreakpointInfo
from ..footer import NO_LIMIT, faces
from ..view import COMPACT_WIDTH
from .table import FacesTable


def look_of(bp: BreakpointInfo) -> str:
    """How a breakpoint is drawn (a key of source.MARKERS)."""
    if not bp.enabled:
        return "disabled"
    if not bp.verified:
        return "pending"
    if bp.log:
        return "logpoint"
    if bp.condition or bp.hit_count:
        return "conditional"
    return "enabled"


class BreakpointsPane(FacesTable):
    COLUMNS = (" ", "id", "kind", "where", "hits", "options")

    # In the footer from COMPACT_WIDTH columns on only: narrower, these would push `:`, `?` and `q` off it
    # (the keys work at every width; help and the palette list them).
    BINDINGS = [
        *faces("space", "toggle_enabled", [("Enable/disable", COMPACT_WIDTH, NO_LIMIT)]),
        *faces("e", "edit", [("Edit", COMPACT_WIDTH, NO_LIMIT)]),
        *faces("delete,x", "remove", [("Remove", COMPACT_WIDTH, NO_LIMIT)]),
        Binding("space", "toggle_enabled", "Enable/disable", show=False),
        Binding("e", "edit", "Edit", show=False),
        Binding("delete,x", "remove", "Remove", show=False),
    ]

    class Toggle(Message):
        def __init__(self, bp: BreakpointInfo) -> None:
            super().__init__()
            self.bp = bp

    class Edit(Message):
        def __init__(self, bp: BreakpointInfo) -> None:
            super().__init__()
            self.bp = bp

    class Remove(Message):
        def __init__(self, bp: BreakpointInfo) -> None:
            super().__init__()
            self.bp = bp

    class Jump(Message):
        def __init__(self, bp: BreakpointInfo) -> None:
            super().__init__()
            self.bp = bp

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.border_title = "Breakpoints"
        self._bps: dict[str, BreakpointInfo] = {}

    def show(self, bps: list[BreakpointInfo]) -> None:
        from .source import MARKERS  # noqa: PLC0415

        self._bps = {bp.id: bp for bp in bps}
        rows = []
        for bp in bps:
            glyph, style = MARKERS[look_of(bp)]
            opts = []
            if bp.kind == "exception" and bp.caught != bp.uncaught:
                # the default stop at uncaught exceptions says what it is (space disables it, x removes it)
                opts.append("uncaught only" if bp.uncaught else "caught only")
            if bp.condition:
                opts.append(f"if {bp.condition}")
            if bp.hit_count:
                opts.append(f"count {bp.hit_count}")
            if bp.log:
                opts.append(f'log "{bp.log}"')
            if bp.temporary:
                opts.append("temporary")
            if not bp.verified:
                opts.append("pending")
            if bp.after:
                opts.append(f"after {bp.after}")
            rows.append((bp.id, (Text(glyph, style=style), bp.id, bp.kind, bp.spec, str(bp.hits), " ".join(opts))))
        self.set_rows(rows)

    def _current(self) -> BreakpointInfo | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return self._bps.get(key) if key else None

    def action_toggle_enabled(self) -> None:
        if bp := self._current():
            self.post_message(self.Toggle(bp))

    def action_edit(self) -> None:
        if bp := self._current():
            self.post_message(self.Edit(bp))

    def action_remove(self) -> None:
        if bp := self._current():
            self.post_message(self.Remove(bp))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if (bp := self._bps.get(event.row_key.value or "")) is not None:
            self.post_message(self.Jump(bp))
