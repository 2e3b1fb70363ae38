"""jdb-style text of command results for the line interfaces (REPL, TUI command line, share `line`
commands): the same renderings, with a stop followed by its source line the way jdb prints it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model import (
    CodeLocation,
    SessionState,
    Status,
    StopReason,
    WaitResult,
)
from ..sources import SourcePath, read_lines
from .fallback import render
from .pieces import stop
from .session import status

# -- jdb-style text of command results, for the line interfaces -------------------------------------------


def source_line(location: CodeLocation | None, sources: SourcePath | None = None) -> str | None:
    """`57      p.counter++;` for a location whose source is known or found on the source path."""
    if location is None or location.line < 1:
        return None
    path = Path(location.source_path) if location.source_path else (
        sources.find(location.class_name, location.source_file) if sources is not None else None)
    if path is None:
        return None
    try:
        lines = read_lines(path)
    except OSError:
        return None
    if location.line > len(lines):
        return None
    return f"{location.line:<7} {lines[location.line - 1].strip()}"


def stop_with_line(reason: StopReason) -> str:
    """A stop as jdb prints it: the stop line, then the source line it is at."""
    text = stop(reason)
    line = source_line(reason.location)
    return f"{text}\n{line}" if line else text


def command_text(obj: Any) -> str:
    """The text a line interface prints for any core result."""
    if obj is None:
        return ""
    if isinstance(obj, StopReason):
        return stop_with_line(obj)
    if isinstance(obj, WaitResult):
        if obj.stopped and obj.stop is not None:
            return stop_with_line(obj.stop)
        if obj.state is SessionState.RUNNING:
            return f"still running after {obj.waited_ms / 1000:g}s (`wait` keeps waiting, `suspend` stops it)"
    if isinstance(obj, Status):
        return status(obj, hints=False)
    return render(obj)
