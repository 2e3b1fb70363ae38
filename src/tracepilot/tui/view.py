"""What the App and its composed parts (refresh.py, actions.py, commandline.py) share: the panes and their
keys, the footer words, the palette entries, the core-event message, the view state the panes are filled
from, and `app_worker`, which runs a part's coroutine in one of the App's workers."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message

from ..core.model import (
    BreakpointInfo,
    EventRecord,
    FrameInfo,
    Status,
    ThreadInfo,
    Variable,
)
from .sources import PreparedSource

# History kinds that never change what the panes show (they only go to the event log).
QUIET_KINDS = {"class_prepare", "output", "log", "suppressed"}
# What a refresh can update; history kinds that touch only some of it refresh only that.
PARTS = frozenset({"frames", "threads", "breakpoints", "watches"})  # (the status bar always)
_BREAKPOINTS = frozenset({"breakpoints"})
PARTS_OF_KIND: dict[str, frozenset[str]] = {
    "breakpoint_set": _BREAKPOINTS, "breakpoint_removed": _BREAKPOINTS, "breakpoint_changed": _BREAKPOINTS,
    "breakpoint_verified": _BREAKPOINTS, "breakpoint_armed": _BREAKPOINTS,
    "watch_add": frozenset({"watches"}), "watch_remove": frozenset({"watches"}),
    "thread_start": frozenset({"threads"}), "thread_death": frozenset({"threads"}),
    "mark": frozenset(), "unmark": frozenset(), "trace": frozenset(), "stop_queued": frozenset(),
    "capture": _BREAKPOINTS,  # (a capture point's count; the captures list reads the capture: tui/frozen.py)
    "evaluate": frozenset({"frames", "watches"}), "set_value": frozenset({"frames", "watches"}),
}
MAX_FRAMES = 60  # frames listed in the stack pane
SNAPSHOT_FRAMES = 10  # frames a core snapshot carries; the rest of the stack is asked for alongside
COMPACT_WIDTH = 110
COMPACT_HEIGHT = 30


@dataclass(frozen=True)
class Pane:
    """A pane a key focuses (shown in its title, listed in help and in the palette by its name)."""

    key: str
    name: str
    widget_id: str
    tab_id: str | None  # the bottom tab it lives in (wide layout); in the compact layout every pane but source


PANES = (
    Pane("1", "Source", "source", None),
    Pane("2", "Variables", "variables", None),
    Pane("3", "Stack", "stack", None),
    Pane("4", "Watches", "watches", None),
    Pane("5", "Breakpoints", "breakpoints", "tab-breakpoints"),
    Pane("6", "Threads", "threads", "tab-threads"),
    Pane("7", "Events", "events", "tab-events"),
    Pane("8", "Console", "output", "tab-console"),
    Pane("9", "Captures", "captures", "tab-captures"),
)
PANE_BY_NAME = {pane.name.lower(): pane for pane in PANES}


def pane_title(name: str) -> str:
    pane = PANE_BY_NAME[name.lower()]
    return f"{pane.key}:{pane.name}"


# Actions that need a stopped thread, or a running program: their keys are hidden (and do nothing) otherwise.
WHEN_STOPPED = {"resume", "step_over", "step_into", "step_out", "run_to_cursor"}
WHEN_RUNNING = {"pause"}
# Footer words below WIDE_FOOTER columns (the palette and help keep the long ones); None: not in the footer.
SHORT_LABELS: dict[str, str | None] = {
    "resume": "Cont", "pause": "Pause", "step_over": "Over", "step_into": "Into", "step_out": "Out",
    "toggle_breakpoint": "Bkpt", "run_to_cursor": "Run to", "restart": "Restart", "focus_command": "Cmd",
    "search": "Find", "open_file": None, "help": "Help", "quit": "Quit", "leave_capture": "Live",
}
# Footer words from WIDE_FOOTER columns on (where they all fit).
WIDE_FOOTER = 140
WIDE_LABELS: dict[str, str | None] = {
    "resume": "Continue", "pause": "Pause", "step_over": "Step over", "step_into": "Step into",
    "step_out": "Step out", "toggle_breakpoint": "Breakpoint", "run_to_cursor": "Run to cursor",
    "restart": "Restart", "focus_command": "Command", "search": "Search", "open_file": None, "help": "Help",
    "quit": "Quit", "leave_capture": "Live view",
}
# The command palette: one entry per action, in words (no internal names), with its key.
PALETTE = (
    ("Continue", "run until the next breakpoint (F5, c)", "resume"),
    ("Pause", "stop every thread; shows the nearest frame of your code (F6)", "pause"),
    ("Step over", "run to the next line of this method (F10, n)", "step_over"),
    ("Step into", "enter the call on this line (F11, s)", "step_into"),
    ("Step out", "run until this method returns; shows what it returned (Shift+F11, f)", "step_out"),
    ("Run to cursor", "a one-shot breakpoint at the cursor line (F8, t)", "run_to_cursor"),
    ("Toggle breakpoint", "at the cursor line (F9, b)", "toggle_breakpoint"),
    ("Restart", "launch the program again with the same command line and breakpoints (Ctrl+R)", "restart"),
    ("Search the source", "/ then n / N (or F3 / F2, Shift+F3) for the next / previous match", "search"),
    ("Go to line", "move the source cursor to a line (:54 on the command line, Ctrl+G)", "go_to_line"),
    ("Open a source file", "fuzzy finder over the source path (Ctrl+O)", "open_file"),
    ("Add a watch", "an expression evaluated at every stop (w)", "add_watch"),
    ("Command line", "the REPL's commands: print, stop at, where… (:)", "focus_command"),
    ("Frame up", "the caller (u)", "frame_up"),
    ("Frame down", "the callee (d)", "frame_down"),
)


class CoreEvent(Message):
    """A record of the shared event history, delivered in the UI's message queue."""

    def __init__(self, record: EventRecord) -> None:
        super().__init__()
        self.record = record


@dataclass
class ViewState:
    """What the panes show; kept here so a re-layout (wide <-> compact) can refill new widgets."""

    status: Status | None = None
    frames: list[FrameInfo] = field(default_factory=list)
    variables: list[Variable] = field(default_factory=list)
    variables_note: str | None = None
    threads: list[ThreadInfo] = field(default_factory=list)
    breakpoints: list[BreakpointInfo] = field(default_factory=list)
    watches: list[Any] = field(default_factory=list)
    source: PreparedSource | None = None  # the file (or 'source not found' text) in the source pane
    source_class: str | None = None
    source_line: int | None = None
    output: list[tuple[str, str]] = field(default_factory=list)
    events: list[EventRecord] = field(default_factory=list)

    @property
    def source_path(self) -> Path | None:
        return self.source.path if self.source is not None else None


def app_worker(group: str, exclusive: bool = False) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Any]]:
    """Textual's `@work` for a part the App composes (it is no widget): the coroutine runs in the App's worker
    `group` (`exclusive`: a new one cancels the running one), so it ends with the App and never blocks it."""

    def decorate(method: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        @functools.wraps(method)
        def start(part: Any, *args: Any, **kwargs: Any) -> Any:
            return part.app.run_worker(functools.partial(method, part, *args, **kwargs), name=method.__name__,
                                       group=group, exclusive=exclusive)

        return start

    return decorate


async def done_value(value: Any) -> Any:
    """`value`, as an awaitable (where a core call's answer is already at hand)."""
    return value
