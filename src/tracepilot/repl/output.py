"""Printing for the REPL: rich colours on a terminal, plain text when piped. Never parses what it prints."""

from __future__ import annotations

import re
import sys

from rich.console import Console
from rich.text import Text

from ..core.model import EventRecord

_SOURCE_LINE = re.compile(r"^\d+\s{2,}")
_STYLES = [
    (re.compile(r"^STOPPED"), "bold yellow"),
    (re.compile(r"^(EXITED|DISCONNECTED|DEADLOCK)"), "bold red"),
    (re.compile(r"^still running"), "dim"),
    (re.compile(r"^(Set|Removed) "), "green"),
    (re.compile(r"^[ B]=> "), "bold"),  # the current line in a source listing
    (re.compile(r"^> "), "bold"),  # the selected frame / echoed script command
    (re.compile(r"^\* "), "bold"),  # the current thread
]


class Printer:
    def __init__(self, file=None, color: bool | None = None) -> None:  # noqa: ANN001
        stream = file or sys.stdout
        is_tty = stream.isatty() if color is None else color
        self.console = Console(file=file, force_terminal=bool(color) if color is not None else None,
                               no_color=not is_tty, highlight=False, soft_wrap=True, emoji=False)
        self.err = Console(stderr=True, highlight=False, soft_wrap=True, no_color=not sys.stderr.isatty(),
                           emoji=False)

    def result(self, text: str, ok: bool = True) -> None:
        if not text:
            return
        if not ok:
            self.error(text)
            return
        for line in text.splitlines():
            self.console.print(Text(line, style=_style_of(line)))

    def error(self, text: str) -> None:
        # errors go to stdout too, so a transcript of a session reads in order; the exit status says it failed
        self.console.print(Text(text, style="bold red"))

    def echo(self, command: str) -> None:
        self.console.print(Text(f"> {command}", style="bold cyan"))

    def note(self, text: str) -> None:
        self.console.print(Text(text, style="dim"))

    def event(self, record: EventRecord) -> None:
        style = {"log": "cyan", "error": "red", "vm_death": "bold red"}.get(record.kind, "")
        self.console.print(Text(record.text, style=style))


def _style_of(line: str) -> str:
    for pattern, style in _STYLES:
        if pattern.search(line):
            return style
    if _SOURCE_LINE.match(line):
        return "green"
    return ""
