"""Compact plain-text renderings of the core's results, written for a model (or a person) to read.

Every front end shares these: the MCP server sends them as the text of a tool result, the REPL prints
them, the share protocol can quote them. Short, no noise, values summarised; the structured form is
`to_dict()`. Pure functions over model objects: no I/O, no JDWP. One module per subject; every renderer is
importable from here (front ends and command specs name them as `tracepilot.core.render.<name>`).

The line interfaces (REPL, TUI command line, share `line` commands) print `command_text`: the same
renderings, with a stop followed by its source line the way jdb prints it.

Anything without a renderer of its own falls back to `headline()`/`describe()`/`render()`, then to its
fields.
"""

from .captures import capture, captures
from .fallback import removed, render
from .inspection import (
    class_summary,
    classes,
    frame_change,
    heap,
    inspection,
    lock_report,
    mark,
    referrers,
    trace,
)
from .lines import command_text, source_line, stop_with_line
from .pieces import (
    MAX_EVENTS,
    MAX_FRAMES,
    MAX_LOCALS,
    MAX_VALUE,
    STILL_RUNNING,
    all_variables,
    exception,
    location,
    stop,
    value,
    variable,
    variables,
)
from .session import (
    MAX_NEWS,
    MAX_WATCH_HISTORY,
    VIRTUAL_NOTE,
    breakpoint_info,
    breakpoint_notes,
    breakpoints,
    event,
    events,
    frame,
    frames,
    library_run,
    log_where,
    other_stops,
    output,
    since_last_answer,
    snapshot,
    source_view,
    status,
    suspended_threads,
    thread,
    threads,
    vm,
    wait_result,
    watch,
    watch_history,
)

__all__ = [
    "capture",
    "captures",
    "MAX_EVENTS",
    "MAX_FRAMES",
    "MAX_LOCALS",
    "MAX_NEWS",
    "MAX_VALUE",
    "MAX_WATCH_HISTORY",
    "STILL_RUNNING",
    "VIRTUAL_NOTE",
    "all_variables",
    "breakpoint_info",
    "breakpoint_notes",
    "breakpoints",
    "class_summary",
    "classes",
    "command_text",
    "event",
    "events",
    "exception",
    "frame",
    "frame_change",
    "frames",
    "heap",
    "inspection",
    "library_run",
    "location",
    "lock_report",
    "log_where",
    "mark",
    "other_stops",
    "output",
    "referrers",
    "removed",
    "render",
    "since_last_answer",
    "snapshot",
    "source_line",
    "source_view",
    "status",
    "stop",
    "stop_with_line",
    "suspended_threads",
    "thread",
    "threads",
    "trace",
    "value",
    "variable",
    "variables",
    "vm",
    "wait_result",
    "watch",
    "watch_history",
]
