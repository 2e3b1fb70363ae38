"""The command line: the REPL's commands (parsed by the core's command catalog, not here), with
history (up/down) and completion (Tab cycles through candidates, the first shows as a suggestion). On an
empty line Tab leaves for the next pane, so the command line is no trap for a keyboard user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input

Completer = Callable[[str], Awaitable[list[str]]]


class _CatalogSuggester(Suggester):
    def __init__(self, line: CommandLine) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.line = line

    async def get_suggestion(self, value: str) -> str | None:
        if not value or self.line.completer is None:
            return None
        for candidate in await self.line.complete(value):
            if candidate.startswith(value) and candidate != value:
                return candidate
        return None


class CommandLine(Input):
    _typing = False  # (a class attribute: Input's __init__ already sets values, which refresh)
    BINDINGS = [
        Binding("up", "history(-1)", "Previous command", show=False),
        Binding("down", "history(1)", "Next command", show=False),
        Binding("escape", "leave", "Back to the source", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder=": command (help, print x, stop at Foo:12, cont, where…)  — Tab completes",
                         **kwargs)
        self.suggester = _CatalogSuggester(self)
        self.completer: Completer | None = None
        self.history: list[str] = []
        self._history_index = 0
        self._cycle: list[str] = []
        self._cycle_index = -1
        self._idle_placeholder = self.placeholder

    # A key must repaint this one row, not the screen. Textual's Input stores its text width in
    # virtual_size on every change, a reactive that asks for a layout: the whole screen reflowed and every
    # scroll view repainted its scrollbars (the body of the screen, ~30 ms of CPU a key). This line is one
    # row as wide as the screen whatever is typed, so no layout depends on its text: drop that request
    # (virtual_size itself is still set, so a long line scrolls to the cursor as before).
    def _watch_value(self, value: str) -> None:
        self._typing = True
        try:
            super()._watch_value(value)
        finally:
            self._typing = False

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        if layout and self._typing and not self.styles.auto_dimensions:
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    async def complete(self, value: str) -> list[str]:
        if self.completer is None:
            return []
        try:
            return await self.completer(value)
        except Exception:  # completion must never break typing
            return []

    FOCUSED_PROMPT = "› type a command: print x, stop at Foo:12, :54 goes to line 54 — Esc: back, Tab: next pane"

    def on_focus(self) -> None:
        # Whichever way the focus came (`:`, Tab from a pane, a click), the line says that keys now type here.
        if self.placeholder != self.FOCUSED_PROMPT:
            self._idle_placeholder = self.placeholder
            self.placeholder = self.FOCUSED_PROMPT

    def on_blur(self) -> None:
        if self.placeholder == self.FOCUSED_PROMPT:
            self.placeholder = self._idle_placeholder

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._history_index = len(self.history)

    def action_history(self, delta: int) -> None:
        if not self.history:
            return
        self._history_index = max(0, min(len(self.history), self._history_index + delta))
        self.value = self.history[self._history_index] if self._history_index < len(self.history) else ""
        self.cursor_position = len(self.value)

    class Left(Message):
        """Esc on the command line: it is cleared; the source pane takes the focus back."""

    def action_leave(self) -> None:
        self.value = ""
        self.post_message(self.Left())

    async def on_key(self, event: events.Key) -> None:
        # Textual calls Input's own key handler after this one unless the default is prevented.
        if event.key == "tab" and not self.value:
            return  # nothing to complete: Tab moves on to the next pane as everywhere else
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            await self._tab()
        else:
            self._cycle = []

    async def _tab(self) -> None:
        if not self._cycle:
            self._cycle = await self.complete(self.value)
            self._cycle_index = -1
            if not self._cycle:
                self.app.bell()
                return
            if len(self._cycle) > 1:
                self.app.notify("  ".join(self._cycle[:30]), title="completions", timeout=4)
        self._cycle_index = (self._cycle_index + 1) % len(self._cycle)
        self.value = self._cycle[self._cycle_index]
        self.cursor_position = len(self.value)
