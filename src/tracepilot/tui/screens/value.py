"""One value shown whole: a long string or summary that the variables pane cuts at its edge. The text can be
selected with the mouse or copied at once with `c` (the terminal's clipboard, OSC 52). A collection, array or
map shows its elements below the summary, each expandable as in the Variables pane (the app loads them)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from ...core.model import Variable
from ..widgets.variables import VariablesPane


class ValueScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,v", "dismiss", "Close"),
        Binding("c,y", "copy", "Copy the value"),
    ]

    def __init__(self, title: str, value: str, about: str = "", elements: list[Variable] | None = None,
                 total: int | None = None, target: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.about = about
        self.elements = elements  # the first page of a collection's elements (None: not a collection)
        self.total = total
        self.target = target  # the collection's handle: later pages are asked for with it

    def compose(self) -> ComposeResult:
        with Vertical(id="value-box", classes="with-elements" if self.elements is not None else "") as box:
            box.border_title = self.title_text
            box.border_subtitle = "c: copy · Esc: close" + (" · →/Enter: open an element" if self.elements else "")
            if self.about:
                yield Static(self.about, id="value-about", markup=False)
            area = TextArea(self.value, read_only=True, soft_wrap=True, id="value-text")
            area.cursor_blink = False
            yield area
            if self.elements is not None:
                pane = VariablesPane(id="value-elements")
                pane.border_title = "elements" if self.total is None else f"elements ({self.total})"
                yield pane

    def on_mount(self) -> None:
        if self.elements is None:
            self.query_one("#value-text", TextArea).focus()
            return
        pane = self.query_one("#value-elements", VariablesPane)
        pane.root.expand()
        pane.add_variables(pane.root, self.elements, 0, self.total, parent_target=self.target)
        if not self.elements:
            pane.root.add_leaf("  (empty)")
        pane.focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.value)
        self.notify(f"copied {len(self.value)} characters", timeout=3)
