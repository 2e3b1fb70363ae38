"""The source pane: read-only Java with tree-sitter highlighting, line numbers, a breakpoint gutter and
the current line (arrow + highlight). It only displays; actions go out as messages to the app."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Offset, Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import DocumentNavigator, Selection

from ..sources import TAB_WIDTH, PreparedSource, plain

# Gutter glyphs, one per breakpoint look (kept distinct so people can tell them apart at a glance).
MARKERS: dict[str, tuple[str, str]] = {
    "enabled": ("●", "bold red"),
    "conditional": ("◆", "bold yellow"),
    "logpoint": ("◉", "bold magenta"),
    "disabled": ("○", "grey50"),
    "pending": ("◌", "red"),
}
ARROW = ("▶", "bold green")
EMPTY = plain("")
MARKER_CELLS = 3  # marker, arrow, space before the line number


@dataclass(frozen=True)
class GutterMark:
    look: str  # a key of MARKERS
    ids: tuple[str, ...] = ()


class SourceView(TextArea):
    """Java source with markers; `show()` loads a file and positions the current line."""

    BINDINGS = [
        Binding("c", "app.resume", "Continue", show=False),
        Binding("n", "next_match_or_step", "Step over (after a search: next match)", show=False),
        Binding("N", "previous_match", "Previous match (after a search)", show=False),
        Binding("escape", "end_search", "End the search", show=False),
        Binding("s", "app.step_into", "Step into", show=False),
        Binding("f", "app.step_out", "Step out (finish)", show=False),
        Binding("b", "app.toggle_breakpoint", "Breakpoint at cursor", show=False),
        Binding("t", "app.run_to_cursor", "Run to cursor", show=False),
        Binding("u", "app.frame_up", "Frame up (caller)", show=False),
        Binding("d", "app.frame_down", "Frame down (callee)", show=False),
    ]

    class SearchChanged(Message):
        """A search started or ended (the pane's title says whether n/N move between matches)."""

    class GutterClicked(Message):
        """A click in the gutter: toggle a breakpoint on that line."""

        def __init__(self, view: SourceView, line: int) -> None:
            super().__init__()
            self.view = view
            self.line = line  # 1-based

    def __init__(self, **kwargs) -> None:
        super().__init__("", language="java", read_only=True, show_line_numbers=True, soft_wrap=False,
                         **kwargs)
        self.cursor_blink = False
        self.path: Path | None = None
        self.class_name: str | None = None
        self.current_line: int | None = None  # 1-based execution line in this file
        self.prepared: PreparedSource | None = None
        self.marks: dict[int, GutterMark] = {}
        self.search_term: str | None = None  # after `/term` Enter: n/N (and F3) move between its matches

    # -- content -------------------------------------------------------------------------------------

    def show(self, source: PreparedSource | None, class_name: str | None, current_line: int | None,
             *, reveal: bool = False) -> None:
        """Show a prepared file (see tui/sources.py) with its current line; `reveal` scrolls to the line
        even if it is unchanged (a new stop on the same line). Nothing unchanged is re-rendered."""
        swapped = self._use(source if source is not None else EMPTY)
        self.class_name = class_name
        moved = current_line != self.current_line
        self.current_line = current_line
        if swapped or moved:
            self._changed()
        if current_line and (swapped or moved or reveal):
            self.move_cursor((current_line - 1, 0), center=True)

    def _use(self, source: PreparedSource) -> bool:
        """Swap in a prepared document: what TextArea.load_text does, minus parsing, highlighting and laying
        out lines again (done once per file, off the event loop)."""
        if source is self.prepared:
            return False
        self.prepared = source
        self.path = source.path
        self.history.clear()
        self.document = source.document
        self._highlight_query = source.query
        self._highlights = source.highlights
        self.wrapped_document = source.wrapped
        if self.wrap_width or self.indent_width != TAB_WIDTH:  # laid out for another width: do it again
            source.wrapped.wrap(self.wrap_width, tab_width=self.indent_width)
        self.navigator = DocumentNavigator(self.wrapped_document)
        self.notify_style_update()  # (public; for a TextArea it also drops the lines it rendered of the old file)
        self.move_cursor((0, 0))
        width, height = source.size
        self.virtual_size = Size(width + self.gutter_width + 1, height)
        self._refresh_scrollbars()
        return True

    def on_resize(self) -> None:
        # A new size (the terminal resized, a re-layout): the current line stays in view once laid out.
        if self.current_line:
            self.call_after_refresh(self.keep_current_line_in_view)

    def keep_current_line_in_view(self) -> None:
        if not self.current_line:
            return
        top, height = self.scroll_offset.y, self.scrollable_content_region.height
        row = self.current_line - 1
        if height > 0 and not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 2), animate=False)

    def set_marks(self, marks: dict[int, GutterMark]) -> None:
        if marks != self.marks:
            self.marks = marks
            self._changed()

    def set_current_line(self, line: int | None) -> None:
        self.current_line = line
        self._changed()

    def _changed(self) -> None:
        self.refresh()  # lines come from TextArea's cache, decorated afresh (see render_line)

    @property
    def text(self) -> str:  # type: ignore[override]
        # TextArea.render_line asks for `text` on every line (a join of the whole document): keep it at hand.
        return self.prepared.text if self.prepared is not None else self.document.text

    @text.setter
    def text(self, value: str) -> None:
        self.load_text(value)

    def load_text(self, text: str) -> None:
        self.prepared = None
        super().load_text(text)

    @property
    def cursor_line(self) -> int:
        return self.cursor_location[0] + 1

    def find(self, needle: str, backwards: bool = False) -> bool:
        """Select the next (or previous) occurrence of `needle` from the cursor (case-insensitive, wraps)."""
        lines = [line.lower() for line in self.text.splitlines()]
        if not needle or not lines:
            return False
        needle = needle.lower()
        row, col = self.selection.start if backwards else self.cursor_location
        ordered = list(self._occurrences(lines, needle))  # in document order
        if not ordered:
            return False
        if backwards:
            before = [h for h in ordered if h < (row, col)]
            r, hit = before[-1] if before else ordered[-1]
        else:
            after = [h for h in ordered if h > (row, col)]
            r, hit = after[0] if after else ordered[0]
        x = self.scroll_offset.x
        self.selection = Selection((r, hit), (r, hit + len(needle)))
        self._center_row(r, x)
        return True

    def _center_row(self, row: int, x: int) -> None:
        """Row `row` to the middle of the view; sideways only as far as the selection needs (a match that is
        visible at the current horizontal scroll keeps it: the view does not jump sideways)."""
        height = self.scrollable_content_region.height
        width = self.scrollable_content_region.width - self.gutter_width
        start, end = self.selection.start[1], self.selection.end[1]
        if width > 0 and not (x <= start and end <= x + width):
            x = max(0, end - width + 1) if end > x + width else start
        self.scroll_to(x=x, y=max(0, row - height // 2), animate=False)

    @staticmethod
    def _occurrences(lines: list[str], needle: str):  # noqa: ANN205 - a generator of (row, column)
        for r, line in enumerate(lines):
            start = line.find(needle)
            while start >= 0:
                yield r, start
                start = line.find(needle, start + 1)

    def search(self, term: str) -> bool:
        """Start a search (from the `/` box): the first match after the cursor; n/N/F3 go on from there."""
        self.search_term = term or None
        self.post_message(self.SearchChanged())
        return bool(term) and self.find(term)

    async def action_next_match_or_step(self) -> None:
        # pudb, less and vim: after a search `n` is the next match; otherwise it is pudb's "next" (step over).
        if self.search_term:
            self.find(self.search_term)
        else:
            await self.run_action("app.step_over")

    def action_previous_match(self) -> None:
        if self.search_term:
            self.find(self.search_term, backwards=True)

    def action_end_search(self) -> None:
        if self.search_term:
            self.search_term = None
            self.post_message(self.SearchChanged())
        self.selection = Selection.cursor(self.cursor_location)

    # -- rendering: markers in the first cells of the line-number gutter -----------------------------

    @property
    def gutter_width(self) -> int:
        width = super().gutter_width
        return width + MARKER_CELLS if width else 0

    def render_line(self, y: int) -> Strip:
        # TextArea caches the highlighted line; markers and the current-line highlight go on top per call,
        # so moving the arrow or a breakpoint re-renders nothing else.
        return self._decorate(super().render_line(y), y)

    def _decorate(self, strip: Strip, y: int) -> Strip:
        if not self.show_line_numbers:
            return strip
        row = y + self.scroll_offset.y
        wrapped = self.wrapped_document
        if row >= (wrapped.height if self.wrap_width else self.document.line_count):
            return strip
        line_index, _column = wrapped.offset_to_location(Offset(0, row))
        if wrapped.location_to_offset((line_index, 0)).y != row:
            return strip  # a wrapped line's continuation: the marks go on its first row
        line = line_index + 1
        base = self._theme.gutter_style if self._theme and self._theme.gutter_style else Style()
        mark = self.marks.get(line)
        glyph, style = MARKERS[mark.look] if mark else (" ", "")
        arrow, arrow_style = ARROW if line == self.current_line else (" ", "")
        cells = [Segment(glyph, base + Style.parse(style) if style else base),
                 Segment(arrow, base + Style.parse(arrow_style) if arrow_style else base),
                 Segment(" ", base)]
        rest = strip.crop(MARKER_CELLS, strip.cell_length)
        if line == self.current_line:
            highlight = Style(bgcolor="#3a3a00")
            gutter = self.gutter_width - MARKER_CELLS
            head, body = rest.crop(0, gutter), rest.crop(gutter, rest.cell_length)
            # The current line's colour goes under the text, but not over a selection (a search match on the
            # current line stays visible).
            chosen = self._theme.selection_style if self._theme else None
            chosen_bg = chosen.bgcolor if chosen is not None else None
            body = Strip([Segment(s.text, s.style if chosen_bg is not None and s.style is not None
                                  and s.style.bgcolor == chosen_bg else (s.style or Style()) + highlight, s.control)
                          for s in body], body.cell_length)
            rest = Strip.join([head, body])
        return Strip.join([Strip(cells, MARKER_CELLS), rest])

    def on_mouse_down(self, event: events.MouseDown) -> None:
        # Textual runs TextArea's own handler (selection) after this one unless the default is prevented.
        if event.x - self.gutter.left < self.gutter_width and self.text:
            target = self.get_target_document_location(event)
            event.stop()
            event.prevent_default()
            self.post_message(self.GutterClicked(self, target[0] + 1))
