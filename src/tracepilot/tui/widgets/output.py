"""Program output of a launched target (stdout plain, stderr red)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog


class OutputPane(RichLog):
    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, max_lines=5000, **kwargs)
        self.border_title = "Output"
        self._partial: dict[str, str] = {}

    def append(self, stream: str, text: str) -> None:
        """Write whole lines; keep a trailing partial line until its newline arrives."""
        buffered = self._partial.get(stream, "") + text
        *lines, rest = buffered.split("\n")
        self._partial[stream] = rest
        for line in lines:
            self.write(Text(line, style="red" if stream == "stderr" else ""))
