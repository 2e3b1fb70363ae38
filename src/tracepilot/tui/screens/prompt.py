"""Small modal dialogs: one-line prompts, breakpoint editing, and the quit confirmation."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from ...core.model import BreakpointInfo


class PromptScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text)
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class BreakpointEditScreen(ModalScreen[dict | None]):
    """Condition, hit count and log message of one breakpoint; empty fields clear the option."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, bp: BreakpointInfo) -> None:
        super().__init__()
        self.bp = bp

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Edit {self.bp.id} — {self.bp.spec}")
            yield Label("condition (Java expression)")
            yield Input(self.bp.condition or "", id="bp-condition", placeholder="e.g. i == 3")
            yield Label("hit count (N, %N every Nth, >=N)")
            yield Input(self.bp.hit_count or "", id="bp-hit-count", placeholder="e.g. 10")
            yield Label("log message instead of stopping ({expr} parts are evaluated)")
            yield Input(self.bp.log or "", id="bp-log", placeholder='e.g. i={i}')
            with Horizontal(classes="buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def _values(self) -> dict:
        def get(name: str) -> str | None:
            return self.query_one(f"#{name}", Input).value.strip() or None

        return {"condition": get("bp-condition"), "hit_count": get("bp-hit-count"), "log": get("bp-log")}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(self._values())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self._values() if event.button.id == "save" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmQuitScreen(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            with Horizontal(classes="buttons"):
                yield Button("Quit (y)", variant="error", id="yes")
                yield Button("Stay (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
