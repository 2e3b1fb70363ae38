"""The stack pane: frames of the selected thread; selecting one makes it the current frame."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from ...core.frame_names import is_lambda_class
from ...core.model import FrameInfo
from .table import Table


class StackPane(Table):
    COLUMNS = ("#", "frame", "at")

    class FrameSelected(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self.border_title = "Stack"
        self._frames: list[FrameInfo] = []
        self.frozen = False  # a capture's frames are shown (tui/frozen.py): the live ones wait in `_live`
        self._live: tuple[list[FrameInfo], int] = ([], 0)

    def show(self, frames: list[FrameInfo], selected: int = 0) -> None:
        """The live program's frames (kept, not shown, while a frozen view is)."""
        self._live = (frames, selected)
        if not self.frozen:
            self._paint(frames, selected)

    def show_frozen(self, frames: list[FrameInfo], selected: int = 0) -> None:
        """A capture's frames, until `thaw()`: refreshes of the live program do not replace them meanwhile."""
        self.frozen = True
        self._paint(frames, selected)

    def thaw(self) -> None:
        """Back to the live frames (the last ones shown or given meanwhile)."""
        self.frozen = False
        self._paint(*self._live)

    def _paint(self, frames: list[FrameInfo], selected: int) -> None:
        self._frames = frames
        rows = []
        for frame in frames:
            loc = frame.location
            where = f"{loc.source_file}:{loc.line}" if loc.source_file and loc.line >= 0 else (
                "native" if frame.is_native else "generated" if is_lambda_class(loc.class_name) else "?")
            if loc.obsolete:
                where += " (old code: class redefined)"
            style = "dim" if frame.is_library or is_lambda_class(loc.class_name) else ""
            method = Text(loc.function(short=True), style=style)
            # the row key is the core's index (0 = top); the label is the number `where` and `:frame N` use (1 = top)
            rows.append((str(frame.index), (str(frame.index + 1), method, where)))
        self.set_rows(rows, cursor=selected)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.FrameSelected(int(event.row_key.value)))
