"""One value shown whole: a long string or summary that the variables pane cuts at its edge. The text can be
selected with the mouse or copied at once with `c` (the terminal's clipboard, OSC 52)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea


class ValueScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,v", "dismiss", "Close"),
        Binding("c,y", "copy", "Copy the value"),
    ]

    def __init__(self, title: str, value: str, about: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.about = about

    def compose(self) -> ComposeResult:
        with Vertical(id="value-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "c: copy · Esc: close"
            if self.about:
                yield Static(self.about, id="value-about", markup=False)
            area = TextArea(self.value, read_only=True, soft_wrap=True, id="value-text")
            area.cursor_blink = False
            yield area

    def on_mount(self) -> None:
        self.query_one("#value-text", TextArea).focus()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.value)
        self.notify(f"copied {len(self.value)} characters", timeout=3)
