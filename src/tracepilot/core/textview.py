"""Plain-text renderings of model objects for line interfaces (the catalog's `CommandResult.text`).

Short, one fact per line, the way jdb and gdb print. Front ends may colour these; they never parse them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import render as shared
from .model import CodeLocation, SessionState, Status, StopReason, WaitResult
from .sources import SourcePath, read_lines

if TYPE_CHECKING:
    from .debugger import Debugger


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


def render_stop(stop: StopReason) -> str:
    text = shared.stop(stop)
    line = source_line(stop.location)
    return f"{text}\n{line}" if line else text


async def render_wait(result: WaitResult, debugger: Debugger | None = None) -> str:
    return render(result)


def render(obj: Any) -> str:
    """The text form of any core result: the shared compact renderings, with jdb-style stops."""
    if obj is None:
        return ""
    if isinstance(obj, StopReason):
        return render_stop(obj)
    if isinstance(obj, WaitResult):
        if obj.stopped and obj.stop is not None:
            return render_stop(obj.stop)
        if obj.state is SessionState.RUNNING:
            return f"still running after {obj.waited_ms / 1000:g}s (`wait` keeps waiting, `suspend` stops it)"
    if isinstance(obj, Status):
        # the shared rendering ends with tool names for an agent ("next: snapshot, ..."); people know the commands
        return "\n".join(line for line in shared.render(obj).splitlines() if not line.startswith("next: "))
    return shared.render(obj)
