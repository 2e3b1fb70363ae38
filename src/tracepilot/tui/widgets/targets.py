"""The targets list above the threads: one line per JVM of a session with several (issue 28), * the current
one. Hidden while the session holds one JVM; `T` switches the current target (tui/targets.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import Static


class TargetsList(Static):
    DEFAULT_CSS = """
    TargetsList { height: auto; max-height: 8; display: none; border-bottom: solid $primary-darken-2; }
    TargetsList.several { display: block; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.lines: list[str] = []

    def show(self, targets: Sequence[Any] | None) -> None:
        lines = [t.line() for t in targets or ()]
        if lines == self.lines:
            return
        self.lines = lines
        self.set_class(len(lines) > 1, "several")
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, line in enumerate(lines):
            text.append(("\n" if index else "") + line, style="bold" if line.startswith("*") else "")
        self.update(text)
