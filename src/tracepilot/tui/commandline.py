"""The command line and the command palette, both bound to the command catalog (the command specs): running
a typed line, completion, confirmation dialogs, the palette's entries, help and quitting."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from rich.text import Text
from textual import on, work
from textual.app import SystemCommand
from textual.screen import Screen
from textual.widgets import Input, TabbedContent

from ..core.catalog import Selection, default_catalog
from ..core.model import (
    Actor,
    SessionState,
)
from .screens.help import HelpScreen
from .screens.prompt import ConfirmQuitScreen
from .view import PALETTE, PANES, AppPart
from .widgets.command_line import CommandLine
from .widgets.output import OutputPane
from .widgets.source import SourceView


class CommandLineMixin(AppPart):
    """The command line, palette and quit part of `TracepilotApp` (tui/app.py)."""

    def action_focus_command(self) -> None:
        self.query_one(CommandLine).focus()

    def action_focus_source(self) -> None:
        self.query_one(SourceView).focus()

    @on(Input.Submitted, "#command")
    def _command_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        command = self.query_one(CommandLine)
        command.value = ""
        if not line:
            return
        command.remember(line)
        self._execute(line)

    def selection(self) -> Selection:
        """The catalog's view of what the command line acts on: the selected thread and frame."""
        if self._selection is None:
            self._selection = Selection(confirm=self._confirm)
        self._selection.thread = self.thread
        self._selection.frame = self.frame
        return self._selection

    @work(group="command")
    async def _execute(self, line: str) -> None:
        words = line.split()
        if words[0] in ("help", "h", "?") and len(words) == 1:
            self.action_help(default_catalog().help())  # a screen, not a 9-row console
            return
        if words[0] in ("restart", "rerun") and len(words) == 1:
            self.action_restart()  # as Ctrl+R: launched again and run to the first breakpoint
            return
        output = self.query_one(OutputPane)
        output.write(Text(f"› {line}", style="bold cyan"))
        self._show_tab("tab-console")
        selection = self.selection()
        self._note(f"{line}…")
        result = await default_catalog().execute(self.debugger, line, Actor.PERSON, selection)
        self._note("")
        if result.text:
            output.write(Text(result.text, style="" if result.ok else "red"))
        if result.exit:
            self.action_quit()
            return
        if result.stop is None and (selection.thread != self.thread or selection.frame != self.frame):
            self.thread, self.frame = selection.thread, selection.frame
            self._schedule_refresh()
            return
        self._schedule_refresh(reset_selection=result.stop is not None)

    async def _confirm(self, question: str) -> bool:
        """A yes/no question from a command (`delete` with no id): a dialog; Esc answers no."""
        return bool(await self.push_screen_wait(ConfirmQuitScreen(question)))

    async def _complete(self, text: str) -> list[str]:
        start, candidates = await default_catalog().completions(self.debugger, text, self.selection())
        return [text[:start] + candidate for candidate in candidates]

    def _show_tab(self, tab_id: str) -> None:
        with contextlib.suppress(Exception):
            self.query_one("#tabs", TabbedContent).active = tab_id

    def action_help(self, commands: str = "") -> None:
        self.push_screen(HelpScreen(self.help_sections(), commands))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own (theme, screenshot, keys…) minus its Quit, which would not ask about a running target
        for command in super().get_system_commands(screen):
            if command.title.lower() not in ("quit", "quit the application"):
                yield command
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, lambda a=action: self.run_action(a))
        for pane in PANES:
            yield SystemCommand(f"{pane.name} pane", f"focus it ({pane.key})",
                                lambda name=pane.name.lower(): self.action_focus_pane(name))
        yield SystemCommand("Help", "every key and command (F1)", self.action_help)
        yield SystemCommand("Quit tracepilot", "asks first if a launched target still runs (q)", self.action_quit)
        yield from self._command_line_entries()

    def _command_line_entries(self) -> Iterable[SystemCommand]:
        """Every command of the command line (the catalog, bound to the operation specs), by its name: the
        palette types it on the command line, where its arguments go."""
        for command in default_catalog().commands:
            if command.name in ("help", "exit"):  # Help and Quit are above, with the TUI's own behaviour
                continue
            yield SystemCommand(f"Command: {command.name}", command.help.splitlines()[0],
                                lambda name=command.name: self._type_command(name))

    def _type_command(self, name: str) -> None:
        line = self.query_one(CommandLine)
        line.value = f"{name} "
        line.cursor_position = len(line.value)
        line.focus()

    def _target_alive(self) -> bool:
        status = self.view.status
        return bool(self.launched and status and status.state in (SessionState.RUNNING, SessionState.STOPPED))

    def action_quit(self) -> None:  # type: ignore[override]
        if self._target_alive():
            def answered(yes: bool | None) -> None:
                if yes:
                    self._close_and_exit()

            self.push_screen(ConfirmQuitScreen("The launched program is still running. Quit and end it?"), answered)
        else:
            self._close_and_exit()

    @work(group="quit", exclusive=True)
    async def _close_and_exit(self) -> None:
        self._note("closing…")
        if self._unsubscribe:
            self._unsubscribe()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.debugger.close(), 5.0)
        self.exit(0)
