"""The source search line (`/`): a one-line input under the source pane. Enter searches (the App hands the
term to the source pane); Esc closes it. Either way it hides itself and says so with `Closed`, and the App
gives the focus back to the source."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class SearchBox(Input):
    BINDINGS = [Binding("escape", "close", "Back to the source", show=False)]

    class Closed(Message):
        """The search line was closed (Enter or Esc): the source pane takes the focus back."""

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="/ search (Enter: first match, then n / N; Esc: close)", classes="hidden",
                         **kwargs)

    def open(self) -> None:
        self.remove_class("hidden")
        self.focus()

    def action_close(self) -> None:
        self.add_class("hidden")
        self.post_message(self.Closed())
