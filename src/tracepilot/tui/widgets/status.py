"""The status bar: session state, stop reason, target and who is driving."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.model import SessionState, Status

STATE_STYLE = {
    SessionState.STOPPED: "bold black on yellow",
    SessionState.RUNNING: "bold black on green",
    SessionState.EXITED: "bold white on red",
    SessionState.DISCONNECTED: "bold white on grey30",
}


class StatusBar(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.status: Status | None = None
        self.note = "starting…"
        self.driver = "you"
        self._shown: Text | None = None

    def show(self, status: Status | None = None, note: str | None = None, driver: str | None = None) -> None:
        if status is not None:
            self.status = status
        if note is not None:
            self.note = note
        if driver is not None:
            self.driver = driver
        text = self.render_text()
        if text != self._shown:  # one line, fixed height: never a re-layout
            self._shown = text
            self.update(text, layout=False)

    def render_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        status = self.status
        if status is None:
            text.append(" CONNECTING ", style="bold black on cyan")
            text.append(f" {self.note}")
            return text
        text.append(f" {status.state.value} ", style=STATE_STYLE.get(status.state, "reverse"))
        headline = status.headline()
        if headline.startswith(status.state.value):
            headline = headline[len(status.state.value):].strip()
        if status.target:
            headline = headline.replace(status.target, "").strip()
        if headline:
            text.append(f" {headline}")
        if self.note:
            text.append(f"  · {self.note}", style="italic")
        text.append(f"  · {status.target or 'no target'}", style="dim")
        text.append(f" · driving: {self.driver}", style="dim")
        return text
