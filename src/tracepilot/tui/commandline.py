"""The command line and the command palette, both bound to the command catalog (the command specs): running
a typed line, completion, confirmation dialogs, the palette's entries, help and quitting."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import SystemCommand

from ..core.catalog import Selection, default_catalog
from ..core.model import (
    Actor,
    SessionState,
    TraceResult,
)
from .screens.prompt import ConfirmQuitScreen
from .screens.trace import TraceScreen
from .view import PALETTE, PANES, app_worker
from .widgets.command_line import CommandLine
from .widgets.output import OutputPane

GO_TO_LINE = re.compile(r":?\s*\d+")


class CommandRunner:
    """The command line, the palette's entries and quitting, for the App (tui/app.py), which routes the
    command line's messages and its palette here."""

    def __init__(self, app: Any) -> None:
        self.app = app  # the TracepilotApp that composes this
        self._selection: Selection | None = None  # of the command line

    def forget_selection(self) -> None:
        """After a core event: the next command gets a fresh Selection (thread and frame as now shown)."""
        self._selection = None

    def command_submitted(self, value: str) -> None:
        line = value.strip()
        command = self.app.query_one(CommandLine)
        command.value = ""
        if not line:
            return
        command.remember(line)
        if GO_TO_LINE.fullmatch(line):  # `:54` as in vim and less: the source goes to line 54
            self.app.actions.go_to_line(int(line.lstrip(":").strip()))
            return
        self._execute(line)

    def selection(self) -> Selection:
        """The catalog's view of what the command line acts on: the selected thread and frame."""
        if self._selection is None:
            self._selection = Selection(confirm=self._confirm)
        self._selection.thread = self.app.thread
        self._selection.frame = self.app.frame
        return self._selection

    @app_worker(group="command")
    async def _execute(self, line: str) -> None:
        words = line.split()
        if words[0] in ("help", "h", "?") and len(words) == 1:
            self.app.action_help(default_catalog().help())  # a screen, not a 9-row console
            return
        if words == ["captures"]:  # the Captures pane: Enter on one opens it as a frozen view
            self.open_captures()
            return
        if words[0] in ("restart", "rerun") and len(words) == 1:
            self.app.action_restart()  # as Ctrl+R: launched again and run to the first breakpoint
            return
        output = self.app.query_one(OutputPane)
        output.write(Text(f"› {line}", style="bold cyan"))
        self.app.show_tab("tab-console")
        selection = self.selection()
        self.app.note(f"{line}…")
        result = await default_catalog().execute(self.app.debugger, line, Actor.PERSON, selection)
        self.app.note("")
        if result.text:
            output.write(Text(result.text, style="" if result.ok else "red"))
        if result.ok and isinstance(result.data, TraceResult):
            self.app.push_screen(TraceScreen(result.data))  # the call tree to fold and unfold
        if result.exit:
            self.app.action_quit()
            return
        if result.stop is None and (selection.thread != self.app.thread or selection.frame != self.app.frame):
            self.app.thread, self.app.frame = selection.thread, selection.frame
            self.app.refresher.schedule()
            return
        self.app.refresher.schedule(reset_selection=result.stop is not None)

    def open_captures(self) -> None:
        self.app.actions.focus_pane("captures")

    async def _confirm(self, question: str) -> bool:
        """A yes/no question from a command (`delete` with no id): a dialog; Esc answers no."""
        return bool(await self.app.push_screen_wait(ConfirmQuitScreen(question)))

    async def complete(self, text: str) -> list[str]:
        start, candidates = await default_catalog().completions(self.app.debugger, text, self.selection())
        return [text[:start] + candidate for candidate in candidates]

    def system_commands(self, textual_own: Iterable[SystemCommand]) -> Iterable[SystemCommand]:
        # Textual's own (theme, screenshot, keys…) minus its Quit, which would not ask about a running target
        for command in textual_own:
            if command.title.lower() not in ("quit", "quit the application"):
                yield command
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, lambda a=action: self.app.run_action(a))
        for pane in PANES:
            yield SystemCommand(f"{pane.name} pane", f"focus it ({pane.key})",
                                lambda name=pane.name.lower(): self.app.actions.focus_pane(name))
        yield SystemCommand("Captures", "what capture points took (9); Enter opens one in Stack and Variables, "
                            "frozen at its hit", self.open_captures)
        yield SystemCommand("Help", "every key and command (F1)", self.app.action_help)
        yield SystemCommand("Quit tracepilot", "asks first if a launched target still runs (q)", self.app.action_quit)
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
        line = self.app.query_one(CommandLine)
        line.value = f"{name} "
        line.cursor_position = len(line.value)
        line.focus()

    def _target_alive(self) -> bool:
        status = self.app.view.status
        return bool(self.app.launched and status and status.state in (SessionState.RUNNING, SessionState.STOPPED))

    def quit(self) -> None:
        if self._target_alive():
            def answered(yes: bool | None) -> None:
                if yes:
                    self.close_and_exit()

            self.app.push_screen(ConfirmQuitScreen("The launched program is still running. Quit and end it?"), answered)
        else:
            self.close_and_exit()

    @app_worker(group="quit", exclusive=True)
    async def close_and_exit(self) -> None:
        self.app.note("closing…")
        self.app.stop_following()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.app.debugger.close(), 5.0)
        self.app.exit(0)
