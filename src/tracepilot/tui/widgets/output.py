"""Program output of a launched target (stdout plain, stderr red)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog


class OutputPane(RichLog):
    MAX = 5000

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, max_lines=self.MAX, **kwargs)
        self.border_title = "Output"
        self._partial: dict[str, str] = {}
        self.written: list[object] = []  # every line as written (a re-layout's new pane is given them again)

    def write(self, content, *args, **kwargs):  # noqa: ANN001, ANN201 - RichLog's signature
        self.written.append(content)
        del self.written[:-self.MAX]
        return super().write(content, *args, **kwargs)

    def take_over(self, old: OutputPane) -> None:
        """Show what another pane showed (the console before a re-layout): its lines, the program's output,
        commands and errors alike, and its partial lines still waiting for their newline."""
        for content in old.written:
            self.write(content)
        self._partial = dict(old._partial)  # noqa: SLF001 - the same class

    def append(self, stream: str, text: str) -> None:
        """Write whole lines; keep a trailing partial line until its newline arrives."""
        buffered = self._partial.get(stream, "") + text
        *lines, rest = buffered.split("\n")
        self._partial[stream] = rest
        for line in lines:
            self.write(Text(line, style="red" if stream == "stderr" else ""))
