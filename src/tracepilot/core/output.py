"""Bounded capture of a launched program's stdout and stderr, readable from any offset."""

from __future__ import annotations

from .model import OutputChunk


class OutputBuffer:
    """Keeps the last `capacity` characters of a stream; offsets count every character ever written."""

    def __init__(self, stream: str, capacity: int = 1_000_000) -> None:
        self.stream = stream
        self.capacity = capacity
        self._text = ""
        self._start = 0  # stream offset of self._text[0]

    @property
    def end(self) -> int:
        return self._start + len(self._text)

    def write(self, text: str) -> None:
        self._text += text
        overflow = len(self._text) - self.capacity
        if overflow > 0:
            self._text = self._text[overflow:]
            self._start += overflow

    def read(self, since: int = 0, limit: int | None = None) -> OutputChunk:
        dropped = max(0, self._start - since)
        begin = max(since, self._start) - self._start
        text = self._text[begin:]
        if limit is not None:
            text = text[:limit]
        start = self._start + begin
        return OutputChunk(self.stream, text, start, start + len(text), dropped)
