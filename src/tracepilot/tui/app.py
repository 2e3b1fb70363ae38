"""The Textual app: lays out the panes, turns keys and clicks into calls on the core `Debugger`, and turns
core events (the shared history) into repaints. Widgets only display and post messages; every debugger
action is one facade call made here, in a worker, so the screen never freezes.

One piece: for now the App holds what every pane shares (the selected thread and frame, the refresh
scheduler, the key bindings that act on both) and the panes themselves are already widgets/. Splitting the
App by feature (start-up, refresh, actions) is the next step of issue 18; it waited while the command line and
palette code in this file was being rebound to the command specs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, TabbedContent, TabPane

from ..core.catalog import Selection, default_catalog, returned_text
from ..core.errors import DebuggerError
from ..core.launcher import launch_options as java_launch_options
from ..core.model import (
    Actor,
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    FrameInfo,
    SessionState,
    Status,
    StopKind,
    ThreadInfo,
    Variable,
)
from ..core.sources import shown_source_path
from .screens.help import HelpScreen
from .screens.prompt import BreakpointEditScreen, ConfirmQuitScreen, PromptScreen
from .screens.value import ValueScreen
from .sources import PreparedSource, SourceCache, plain
from .widgets.breakpoints import BreakpointsPane, look_of
from .widgets.command_line import CommandLine
from .widgets.events import EventsPane
from .widgets.output import OutputPane
from .widgets.source import GutterMark, SourceView
from .widgets.stack import StackPane
from .widgets.status import StatusBar
from .widgets.threads import ThreadsPane
from .widgets.variables import PAGE, VariablesPane
from .widgets.watches import WatchesPane

if TYPE_CHECKING:
    from ..core.debugger import Debugger

Startup = Callable[["TracepilotApp"], Awaitable[None]]

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
    "search": "Find", "open_file": None, "help": "Help", "quit": "Quit",
}
# Footer words from WIDE_FOOTER columns on (where they all fit).
WIDE_FOOTER = 140
WIDE_LABELS: dict[str, str | None] = {
    "resume": "Continue", "pause": "Pause", "step_over": "Step over", "step_into": "Step into",
    "step_out": "Step out", "toggle_breakpoint": "Breakpoint", "run_to_cursor": "Run to cursor",
    "restart": "Restart", "focus_command": "Command", "search": "Search", "open_file": None, "help": "Help",
    "quit": "Quit",
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
    ("Search the source", "/ then n / N (or F3 / Shift+F3) for the next / previous match", "search"),
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


class TracepilotApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "tracepilot"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("f5", "resume", "Continue", priority=True),
        Binding("f6", "pause", "Pause", priority=True),
        Binding("f10", "step_over", "Step over", priority=True),
        Binding("f11", "step_into", "Step into", priority=True),
        Binding("shift+f11", "step_out", "Step out", priority=True),
        Binding("f9", "toggle_breakpoint", "Breakpoint", priority=True),
        Binding("f8", "run_to_cursor", "Run to cursor", priority=True),
        Binding("ctrl+r,ctrl+f5", "restart", "Restart", priority=True),
        Binding("colon", "focus_command", "Command line"),
        Binding("slash", "search", "Search source"),
        Binding("f3", "search_next", "Next match", show=False),
        Binding("shift+f3", "search_previous", "Previous match", show=False),
        Binding("ctrl+o", "open_file", "Open file"),
        Binding("w", "add_watch", "Add watch", show=False),
        *(Binding(pane.key, f"focus_pane('{pane.name.lower()}')", f"Focus the {pane.name} pane", show=False)
          for pane in PANES),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+p", "command_palette", "Palette", show=False),
    ]

    def __init__(self, debugger: Debugger, startup: Startup | None = None, *, launched: bool = False,
                 sourcepath: Iterable[str] = (), clock: bool = True, target_label: str = "", hint: str = "") -> None:
        super().__init__()
        self.hint = hint  # one line of what to try (the demo), shown in the empty command line
        self.debugger = debugger
        self.startup = startup
        self.launched = launched
        self.sourcepath = [Path(p) for p in sourcepath]
        self.clock = clock  # wall-clock times in the event log (off for snapshot tests)
        self.target_label = target_label
        self.view = ViewState()
        self.thread: int | None = None  # selected thread (None: the stop's thread)
        self.frame = 0  # selected frame index
        self.compact = False
        self.ready = asyncio.Event()  # startup finished (tests wait on it)
        self.refreshes = 0  # completed refreshes (tests wait for a change)
        self._unsubscribe: Callable[[], None] | None = None
        self._refresh_pending = False
        self._reset_selection = False
        self._wanted: dict[str, int] = {}  # parts asked for -> requests so far (a refresh clears what it did)
        self._refresh_worker: Any = None
        self._refresh_key: tuple[Any, Any] | None = None  # session state the running refresh started from
        self._refresh_again = False
        self._revealed: tuple[Any, ...] | None = None  # the stop/frame/line last scrolled into view
        self.sources = SourceCache()
        self._output_offsets = {"stdout": 0, "stderr": 0}
        self._driving = "you"
        self._selection: Selection | None = None  # of the command line
        self._long_labels: dict[str, Binding] = {}  # footer bindings as declared (restored in the wide layout)
        self._shown_state: Any = None  # the session state the footer's keys were chosen for
        self._prefer_user_frame = False  # after a pause: select the nearest frame of the program's own code

    # -- layout --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.compact = self._is_compact(self.size.width, self.size.height)
        yield StatusBar(id="status")
        if self.compact:
            with Vertical(id="body", classes="compact"):
                yield SourceView(id="source")
                yield Input(placeholder="/ search (Enter: first match, then n / N; Esc: close)", id="search",
                            classes="hidden")
                with TabbedContent(id="tabs"):
                    with TabPane(pane_title("Variables"), id="tab-variables"):
                        yield VariablesPane(id="variables")
                    with TabPane(pane_title("Stack"), id="tab-stack"):
                        yield StackPane(id="stack")
                    with TabPane(pane_title("Watches"), id="tab-watches"):
                        yield WatchesPane(id="watches")
                    with TabPane(pane_title("Breakpoints"), id="tab-breakpoints"):
                        yield BreakpointsPane(id="breakpoints")
                    with TabPane(pane_title("Threads"), id="tab-threads"):
                        yield ThreadsPane(id="threads")
                    with TabPane(pane_title("Events"), id="tab-events"):
                        yield EventsPane(id="events")
                    with TabPane(pane_title("Console"), id="tab-console"):
                        yield OutputPane(id="output")
        else:
            with Horizontal(id="body"):
                with Vertical(id="left"):
                    yield SourceView(id="source")
                    yield Input(placeholder="/ search (Enter: first match, then n / N; Esc: close)", id="search",
                                classes="hidden")
                    with TabbedContent(id="tabs"):
                        with TabPane(pane_title("Console"), id="tab-console"):
                            yield OutputPane(id="output")
                        with TabPane(pane_title("Breakpoints"), id="tab-breakpoints"):
                            yield BreakpointsPane(id="breakpoints")
                        with TabPane(pane_title("Threads"), id="tab-threads"):
                            yield ThreadsPane(id="threads")
                        with TabPane(pane_title("Events"), id="tab-events"):
                            yield EventsPane(id="events")
                with Vertical(id="right"):
                    yield StackPane(id="stack")
                    yield VariablesPane(id="variables")
                    yield WatchesPane(id="watches")
        yield CommandLine(id="command")
        yield Footer(compact=self.compact, show_command_palette=not self.compact)

    @staticmethod
    def _is_compact(width: int, height: int) -> bool:
        return width < COMPACT_WIDTH or height < COMPACT_HEIGHT

    async def on_resize(self, event) -> None:
        if self._is_compact(event.size.width, event.size.height) != self.compact:
            await self.recompose()
            self._fill_all()
        self._label_keys()

    def _label_keys(self) -> None:
        """Footer words for the width (short below WIDE_FOOTER: 80 columns keep every key that applies) and the
        state (Restart once the program ended)."""
        by_key = self._bindings.key_to_bindings
        for key, bindings in by_key.items():
            for index, binding in enumerate(bindings):
                original = self._long_labels.setdefault(f"{key}/{binding.action}", binding)
                show = original.show
                if binding.action == "restart":  # the key works any time; the footer offers it once the program ended
                    show = self._state() in (SessionState.EXITED, SessionState.DISCONNECTED)
                labels = SHORT_LABELS if self.size.width < WIDE_FOOTER else WIDE_LABELS
                if binding.action in labels:
                    label = labels[binding.action]
                    bindings[index] = dataclasses.replace(original, description=label or original.description,
                                                          show=label is not None and show)
                else:
                    bindings[index] = dataclasses.replace(original, show=show)
        self.refresh_bindings()

    def _state(self) -> SessionState | None:
        return self.view.status.state if self.view.status else None

    def get_key_display(self, binding: Binding) -> str:
        # F5, ⇧F11, ^R: the way IDE menus print keys, and short enough for an 80-column footer
        key = binding.key.split(",")[0]
        if key.startswith("shift+f") and key[7:].isdigit():
            return "⇧F" + key[7:]
        if key.startswith("f") and key[1:].isdigit():
            return key.upper()
        if key.startswith("ctrl+f") and key[6:].isdigit():
            return "^F" + key[6:]
        return super().get_key_display(binding)

    def _set_titles(self) -> None:
        for pane in PANES[1:4]:  # the bordered panes of the wide layout name their key in the border
            with contextlib.suppress(NoMatches):
                self.query_one(f"#{pane.widget_id}").border_title = pane_title(pane.name)

    def on_mount(self) -> None:
        self._label_keys()
        self._set_titles()
        self.query_one(CommandLine).completer = self._complete
        self._unsubscribe = self.debugger.history.subscribe(lambda record: self.post_message(CoreEvent(record)))
        self.view.events.extend(self.debugger.history.since(0))
        self._fill_all()
        self.query_one(SourceView).focus()
        self.set_interval(0.25, self._poll_output)
        self._start()

    def _fill_all(self) -> None:
        """(Re)fill every pane from the view state (after start-up or a re-layout)."""
        v = self.view
        events = self.query_one(EventsPane)
        events.clock = self.clock
        self.call_after_refresh(events.replay, v.events)
        self._set_titles()
        command = self.query_one(CommandLine)
        command.completer = self._complete  # (a re-layout makes a new command line)
        if self.hint:
            command.placeholder = self.hint
        self._show_status()
        self._show_source()
        self.query_one(StackPane).show(v.frames, self.frame)
        self._show_variables()
        self.query_one(ThreadsPane).show(v.threads, self._current_thread())
        self.query_one(BreakpointsPane).show(v.breakpoints)
        self.query_one(WatchesPane).show(v.watches)
        output = self.query_one(OutputPane)
        for stream, text in v.output:
            output.append(stream, text)

    # -- start-up ------------------------------------------------------------------------------------

    @work(group="startup")
    async def _start(self) -> None:
        try:
            if self.startup is not None:
                await self.startup(self)
        except DebuggerError as e:
            self._note(str(e), error=True)
        except Exception as e:  # noqa: BLE001 - shown to the person, never a traceback
            self._note(f"start-up failed: {e}", error=True)
        finally:
            self.ready.set()
        self._schedule_refresh(reset_selection=True)

    def progress(self, text: str) -> None:
        """Start-up steps report here (status bar), e.g. 'waiting for localhost:5005 to listen…'."""
        self._note(text)

    # -- core events -> panes --------------------------------------------------------------------------

    def on_core_event(self, message: CoreEvent) -> None:
        record = message.record
        self.view.events.append(record)
        del self.view.events[:-EventsPane.MAX]
        try:
            self.query_one(EventsPane).add(record)
        except NoMatches:
            return  # the screen is being torn down (quitting)
        if record.actor is Actor.AGENT:
            self._driving = "agent"
        elif record.actor is Actor.PERSON:
            self._driving = "you"
        self._selection: Selection | None = None  # of the command line
        if record.kind in QUIET_KINDS:
            return
        if record.kind == "launch":  # a new process (restart): its output starts again at 0
            self._output_offsets = {"stdout": 0, "stderr": 0}
            if self.view.output:
                with contextlib.suppress(NoMatches):
                    self.query_one(OutputPane).write(Text("── restarted ──", style="dim"))
        if record.kind == "stop":
            self._paint_stop()
        self._schedule_refresh(reset_selection=record.kind in ("stop", "vm_death", "vm_start", "exited"),
                               parts=PARTS_OF_KIND.get(record.kind, PARTS))

    def _paint_stop(self) -> None:
        """The status bar and the current line straight from the stop reason the session already holds (the
        location carries the source path): on screen before any core call returns."""
        stop = self.debugger.current_stop
        if self.debugger.state is not SessionState.STOPPED or stop is None:
            return
        v = self.view
        v.status = (dataclasses.replace(v.status, state=SessionState.STOPPED, stop=stop) if v.status
                    else Status(SessionState.STOPPED, None, None, stop, len(v.breakpoints)))
        self.thread, self.frame = stop.thread_id, 0
        self._reset_selection = False
        self._show_status()
        location = stop.location
        if location is None or not location.source_path:
            return
        path = Path(location.source_path)
        prepared = self.sources.peek(path)
        if prepared is None:
            self._preload(path)  # read and highlighted while the refresh asks the core
            return
        v.source, v.source_class = prepared, location.class_name.split("$", 1)[0]
        v.source_line = location.line if location.line > 0 else None
        self._show_source()

    def _preload(self, path: Path) -> None:
        task = asyncio.get_running_loop().create_task(self.sources.load(path))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a failure shows when it is used

    def _session_key(self) -> tuple[Any, Any]:
        return self.debugger.state, getattr(self.debugger.current_stop, "time", None)

    def _schedule_refresh(self, reset_selection: bool = False, parts: Iterable[str] = PARTS) -> None:
        """Ask for the panes in `parts` to be refreshed. A refresh already under way for the same session state
        runs again when it is done; one for an older state (the session stopped or resumed since) is
        cancelled, so a stop never waits for a refresh of the running state."""
        self._reset_selection |= reset_selection
        for part in parts:
            self._wanted[part] = self._wanted.get(part, 0) + 1
        if self._refresh_pending:
            return
        worker = self._refresh_worker
        if worker is not None and worker.is_running and not reset_selection \
                and self._refresh_key == self._session_key():
            self._refresh_again = True
            return
        self._refresh_pending = True
        self.call_later(self._start_refresh)

    def _start_refresh(self) -> None:
        self._refresh_again = False
        self._refresh_worker = self._refresh()

    @work(group="refresh", exclusive=True)
    async def _refresh(self) -> None:
        self._refresh_pending = False
        self._refresh_key = self._session_key()
        taken = dict(self._wanted)
        if not taken and not self._reset_selection:
            return
        try:
            done = await self._refresh_parts(set(taken))
        except NoMatches:
            return  # the screen is being torn down (quitting): nothing left to paint
        if not done:
            return
        for part, count in taken.items():
            if self._wanted.get(part) == count:
                del self._wanted[part]
        self.refreshes += 1
        if self._refresh_again or self._wanted:  # asked for while this one ran
            self._refresh_pending = True
            self.call_later(self._start_refresh)

    async def _refresh_parts(self, parts: set[str]) -> bool:
        """One refresh: every core call it needs in flight at once; panes painted as their answers arrive,
        the most useful first (stack and locals with the source line, then the status, breakpoints,
        watches, threads, the rest of a deep stack). Returns False when the session cannot be reached."""
        d, v = self.debugger, self.view
        errors: list[str] = []
        state = d.state
        tasks: list[asyncio.Task[Any]] = []

        def start(method: Callable[..., Awaitable[Any]], *args: Any, report: bool = True) -> asyncio.Task[Any]:
            async def call() -> Any:  # the coroutine is made in the task: a cancelled task leaves none behind
                return await self._fetch(method(*args), errors if report else None)

            task = asyncio.get_running_loop().create_task(call())
            tasks.append(task)
            return task

        try:
            status_task = start(d.status)
            stop = d.current_stop
            if self._reset_selection:
                self.thread = stop.thread_id if stop else None
                self.frame = 0
                self._reset_selection = False
            stopped = state is SessionState.STOPPED
            thread = self._current_thread() if stopped else None
            frames_task = snapshot_task = rest_task = locals_task = None
            if "frames" in parts and stopped:
                if stop is not None and stop.location is not None and stop.location.source_path:
                    self._preload(Path(stop.location.source_path))
                if self.frame == 0 and hasattr(d, "snapshot"):
                    snapshot_task = start(d.snapshot, thread)
                    rest_task = start(d.stack, thread, SNAPSHOT_FRAMES, MAX_FRAMES - SNAPSHOT_FRAMES, report=False)
                else:
                    frames_task = start(d.stack, thread, 0, MAX_FRAMES)
                    locals_task = start(d.locals, self.frame, thread, report=False)
            breakpoints_task = start(d.breakpoint_list) if "breakpoints" in parts else None
            watches_task = start(d.watches) if "watches" in parts and snapshot_task is None else None
            threads_task = start(d.threads) if "threads" in parts and state in (
                SessionState.STOPPED, SessionState.RUNNING) else None

            status = await status_task
            if status is None:
                return False
            v.status = status
            if "frames" in parts:
                if snapshot_task is not None or frames_task is not None:
                    await self._paint_frames(snapshot_task, frames_task, locals_task, watches_task is None)
                else:
                    await self._paint_not_stopped()
            self._show_status()
            if breakpoints_task is not None:
                v.breakpoints = await breakpoints_task or []
                self.query_one(BreakpointsPane).show(v.breakpoints)
                self._show_source()  # the gutter marks
            if watches_task is not None:
                v.watches = await watches_task or []
                self.query_one(WatchesPane).show(v.watches)
            if threads_task is not None:
                v.threads = await threads_task or []
            elif "threads" in parts:
                v.threads = []
            if "threads" in parts:
                self.query_one(ThreadsPane).show(v.threads, self._current_thread())
            if rest_task is not None and len(v.frames) >= SNAPSHOT_FRAMES:
                rest = await rest_task or []
                known = len(v.frames)
                v.frames = v.frames + [f for f in rest if f.index >= known]
                self.query_one(StackPane).show(v.frames, self.frame)
        finally:
            for task in tasks:
                task.cancel()
        if errors:
            self.notify(errors[0], severity="warning", timeout=6)
        return True

    async def _paint_frames(self, snapshot_task: asyncio.Task[Any] | None, frames_task: asyncio.Task[Any] | None,
                            locals_task: asyncio.Task[Any] | None, watches_from_snapshot: bool) -> None:
        v = self.view
        variables: list[Variable] | None = None
        if snapshot_task is not None:
            snapshot = await snapshot_task
            v.frames = list(getattr(snapshot, "frames", None) or [])
            if v.frames:
                variables = v.frames[0].locals
            if snapshot is not None and watches_from_snapshot:
                v.watches = list(snapshot.watches or [])
                self.query_one(WatchesPane).show(v.watches)
        else:
            v.frames = await frames_task or []
        self.frame = min(self.frame, max(len(v.frames) - 1, 0))
        if self._prefer_user_frame and self.frame == 0 and v.frames:
            # A pause lands wherever the thread was, often in Thread.sleep: show the caller in the program's own
            # code instead (gdb's and IntelliJ's choice), with its locals.
            self._prefer_user_frame = False
            own = next((f.index for f in v.frames if not f.is_library and f.location.line > 0), 0)
            if own:
                self.frame = own
                locals_task = asyncio.ensure_future(self._fetch(self.debugger.locals(own, self._current_thread()),
                                                                None))
        self.query_one(StackPane).show(v.frames, self.frame)
        if not v.frames:
            v.variables, v.variables_note = [], "locals not available here"
            self._show_variables()
            status = v.status
            if status and status.stop and status.stop.location:
                await self._open_location(status.stop.location, current=True)
            return
        await self._paint_frame(v.frames[self.frame].location,
                                locals_task if locals_task is not None else _done(variables))

    def _returned(self) -> str | None:
        """'discount() returned 659' at a stop right after a method returned (shown in the top frame only)."""
        status = self.view.status
        return returned_text(status.stop) if status is not None and self.frame == 0 else None

    async def _paint_not_stopped(self) -> None:
        v = self.view
        status = v.status
        v.frames, v.variables = [], []
        v.variables_note = {SessionState.RUNNING: "running — pause (F6) to see variables",
                            SessionState.EXITED: "the program has ended",
                            SessionState.DISCONNECTED: "not connected"}.get(status.state) if status else None
        self.query_one(StackPane).show(v.frames, self.frame)
        self._show_variables()
        location = status.stop.location if status and status.stop else None
        if location is not None:
            await self._open_location(location, current=True)
        elif status and status.state is not SessionState.STOPPED:
            v.source_line = None
            self._show_source()

    async def _paint_frame(self, location: CodeLocation, variables: Awaitable[Any]) -> None:
        """Source line and locals of the selected frame, each painted as soon as it is there."""

        async def paint_locals() -> None:
            result = await variables
            self.view.variables = result or []
            self.view.variables_note = None if result is not None else "locals not available here"
            self._show_variables()

        await asyncio.gather(self._open_location(location, current=True), paint_locals())

    def _show_variables(self) -> None:
        v = self.view
        stop = v.status.stop if v.status else None
        key = (getattr(stop, "time", None), self.thread, self.frame)
        self.query_one(VariablesPane).show(v.variables, v.variables_note, key=key, returned=self._returned())

    async def _load_frame(self) -> None:
        """Locals and source of the selected frame (after `u`/`d` or a click in the stack pane)."""
        v = self.view
        if not v.frames:
            return
        await self._paint_frame(v.frames[self.frame].location,
                                self._fetch(self.debugger.locals(self.frame, self._current_thread()), None))

    async def _fetch(self, awaitable: Awaitable[Any], errors: list[str] | None) -> Any:
        """Await a core call; a DebuggerError is kept in `errors` (shown once per refresh) and gives None."""
        try:
            return await awaitable
        except DebuggerError as e:
            if errors is not None:
                errors.append(str(e))
            return None
        except Exception as e:  # noqa: BLE001 - e.g. the connection dropping mid-call: a repaint never ends the app
            if errors is not None:
                errors.append(f"{type(e).__name__}: {e}")
            return None

    async def _open_location(self, location: CodeLocation, current: bool) -> None:
        v = self.view
        path = Path(location.source_path) if location.source_path else None
        if path is not None and not shown_source_path(self.debugger, self.sourcepath).allows(path):
            path = None  # only files under the source roots are shown (core/sources.py confinement)
        if path is None:
            view = await self._quietly(self.debugger.source(f"{location.class_name}:{max(location.line, 1)}", 0),
                                       show=False)
            if view is not None and getattr(view, "path", None):
                path = Path(view.path)
        line = location.line if (current and location.line > 0) else None
        class_name = location.class_name.split("$", 1)[0]
        prepared = self.sources.peek(path) if path is not None else None
        if prepared is not None:  # painted now; checked against the file below
            v.source, v.source_class, v.source_line = prepared, class_name, line
            self._show_source()
        if path is not None:
            prepared = await self.sources.load(path)
        if prepared is None:
            prepared = plain(await self._source_not_found(location))
            line = None
        v.source, v.source_class, v.source_line = prepared, class_name, line
        self._show_source()

    async def _source_not_found(self, location: CodeLocation) -> str:
        lines = [f"source not found for {location.class_name} ({location.source_file or 'no SourceFile'})",
                 "— set a source path: tracepilot attach … --sourcepath DIR, or `use DIR` on the command line", "",
                 f"stopped in {location}", ""]
        classes = await self._quietly(self.debugger.classes(location.class_name, True), show=False) or []
        for summary in classes[:1]:
            lines.append(f"class {summary.name}")
            for m in summary.methods or []:
                where = f"  lines {m.lines[0]}-{m.lines[-1]}" if m.lines else ""
                lines.append(f"    {m.signature}{where}")
        return "\n".join(lines)

    def _show_source(self) -> None:
        v = self.view
        source = self.query_one(SourceView)
        stop = v.status.stop if v.status else None
        key = (getattr(stop, "time", None), self.thread, self.frame, v.source_path, v.source_line)
        reveal = v.source_line is not None and key != self._revealed
        if reveal:
            self._revealed = key
        source.show(v.source, v.source_class, v.source_line, reveal=reveal)
        source.set_marks(self._marks_for(v.source_path, v.source_class))
        title = str(v.source_path.name if v.source_path else (v.source_class or "no source"))
        title = f"{PANES[0].key}:{title}"
        if source.search_term:
            title += f"  /{source.search_term}  n/N: next/previous · Esc: end"
        if source.border_title != title:
            source.border_title = title

    def _marks_for(self, path: Path | None, class_name: str | None) -> dict[int, GutterMark]:
        if path is None:
            return {}
        marks: dict[int, GutterMark] = {}
        names = {path.stem, path.name, str(path)}
        if class_name:
            names.add(class_name)
        for bp in self.view.breakpoints:
            if bp.kind != "line":
                continue
            lines = {loc.line for loc in bp.locations
                     if (loc.source_path and Path(loc.source_path) == path)
                     or (loc.source_file == path.name and loc.class_name.split("$", 1)[0] in names)}
            if not lines:
                where, _, line = bp.spec.rpartition(":")
                if line.isdigit() and (where in names or where.split("$", 1)[0] in names or where.endswith(path.name)):
                    lines = {int(line)}
            for line in lines:
                marks[line] = GutterMark(look_of(bp), (*marks.get(line, GutterMark("enabled")).ids, bp.id))
        return marks

    def _show_status(self, note: str | None = None) -> None:
        status = self.view.status
        self.query_one(StatusBar).show(status, note if note is not None else ("" if status else None), self._driving)
        state = (status.state, self.launched) if status else None
        if state != self._shown_state:  # the footer offers only the keys that apply now
            self._shown_state = state
            self._label_keys()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        status = self.view.status
        state = status.state if status else None
        if action in WHEN_STOPPED:
            return state is SessionState.STOPPED
        if action in WHEN_RUNNING:
            return state is SessionState.RUNNING
        if action == "restart":
            return self.launched and hasattr(self.debugger, "restart")
        return True

    def _note(self, text: str, error: bool = False) -> None:
        self.query_one(StatusBar).show(note=text)
        if error:
            self.notify(text, severity="error", timeout=8)
            self.query_one(OutputPane).write(f"! {text}")

    async def _quietly(self, awaitable: Awaitable[Any], show: bool = True) -> Any:
        """Await a core call; a DebuggerError becomes a notification (its text says what to do next)."""
        try:
            return await awaitable
        except DebuggerError as e:
            if show:
                self.notify(str(e), severity="warning", timeout=6)
            return None

    def _current_thread(self) -> int | None:
        if self.thread is not None:
            return self.thread
        status = self.view.status
        return status.stop.thread_id if status and status.stop else None

    async def _poll_output(self) -> None:
        if not self.launched:
            return
        with contextlib.suppress(NoMatches):  # (the screen is being torn down: quitting)
            await self._poll_output_once()

    async def _poll_output_once(self) -> None:
        status = self.view.status
        if status is not None and status.state is SessionState.EXITED and status.exit_code is None:
            # The VM's end is told before the process has always exited: its exit code comes a moment later.
            with contextlib.suppress(Exception):
                fresh = await self.debugger.status()
                if fresh.state is SessionState.EXITED and fresh.exit_code is not None:
                    self.view.status = fresh
                    self._show_status()
        pane = self.query_one(OutputPane)
        for stream in ("stdout", "stderr"):
            try:
                chunks = await self.debugger.output(stream, self._output_offsets[stream])
            except Exception:  # noqa: BLE001 - no output yet / not connected
                return
            for chunk in chunks:
                if chunk.text:
                    self.view.output.append((stream, chunk.text))
                    pane.append(stream, chunk.text)
                self._output_offsets[stream] = max(self._output_offsets[stream], chunk.end)

    # -- execution actions ---------------------------------------------------------------------------

    def _run(self, label: str, call: Callable[[], Awaitable[Any]]) -> None:
        self._run_worker(label, call)

    @work(group="action")
    async def _run_worker(self, label: str, call: Callable[[], Awaitable[Any]]) -> None:
        self._note(f"{label}…")
        seq = self.debugger.history.last_seq
        try:
            result = await call()
        except DebuggerError as e:
            self._note(str(e), error=True)
            return
        message = getattr(result, "message", "") if result is not None else ""
        stopped = getattr(result, "stopped", True)
        self._note("" if stopped or not message else message)
        if self.debugger.history.last_seq == seq:  # no history record to refresh from (they all do)
            self._schedule_refresh(reset_selection=bool(getattr(result, "stopped", False)))

    def action_resume(self) -> None:
        self._run("continuing", lambda: self._past_shown_stop(lambda: self.debugger.resume(None, 0.0)))

    async def _past_shown_stop(self, go: Callable[[], Awaitable[Any]]) -> Any:
        """Run `go` (resume, run to) once more if it only handed back the stop already on screen: the core gives a
        stop to one waiting call before it lets it go, and this screen learnt of it from the history instead."""
        shown = self.view.status.stop if self.view.status else None
        result = await go()
        stop = getattr(result, "stop", None)
        if shown is not None and getattr(result, "stopped", False) and stop is not None and stop.time == shown.time:
            result = await go()
        return result

    def action_pause(self) -> None:
        self._prefer_user_frame = True
        self._run("pausing", lambda: self.debugger.pause())

    def action_restart(self) -> None:
        if not self.launched:
            self.notify("restart re-launches a program started by tracepilot launch/demo; this one was attached",
                        severity="warning")
            return
        self._run("restarting", lambda: run_to_first_stop(self, self.debugger.restart()))

    def _step(self, kind: str) -> None:
        self._run(f"step {kind}", lambda: self.debugger.step(kind, self._current_thread(), 1, 30.0))

    def action_step_over(self) -> None:
        self._step("over")

    def action_step_into(self) -> None:
        self._step("into")

    def action_step_out(self) -> None:
        self._step("out")

    def _cursor_location(self) -> str | None:
        source = self.query_one(SourceView)
        if source.path is None or not source.class_name:
            self.notify("open a source file first (Ctrl+O) — no source is shown", severity="warning")
            return None
        return f"{source.class_name}:{source.cursor_line}"

    def action_toggle_breakpoint(self, line: int | None = None) -> None:
        source = self.query_one(SourceView)
        location = self._cursor_location()
        if location is None:
            return
        line = line or source.cursor_line
        location = f"{source.class_name}:{line}"
        existing = source.marks.get(line)
        if existing and existing.ids:
            ids = existing.ids

            async def remove() -> None:
                for bp_id in ids:
                    await self.debugger.breakpoint_remove(bp_id)

            self._run(f"removing {', '.join(ids)}", remove)
        else:
            self._run(f"breakpoint at {location}", lambda: self.debugger.breakpoint_set(location))

    def action_run_to_cursor(self) -> None:
        location = self._cursor_location()
        if location:
            self._run(f"running to {location}", lambda: self._past_shown_stop(
                lambda: self.debugger.run_to(location, self._current_thread(), 0.0)))

    def action_frame_up(self) -> None:
        self._select_frame(self.frame + 1)

    def action_frame_down(self) -> None:
        self._select_frame(self.frame - 1)

    def _select_frame(self, index: int) -> None:
        if not self.view.frames:
            return
        index = max(0, min(index, len(self.view.frames) - 1))
        self.frame = index
        self.query_one(StackPane).show(self.view.frames, index)
        self._reload_frame()

    @work(group="frame", exclusive=True)
    async def _reload_frame(self) -> None:
        await self._load_frame()
        self.refreshes += 1

    # -- pane messages -------------------------------------------------------------------------------

    @on(SourceView.GutterClicked)
    def _gutter_clicked(self, message: SourceView.GutterClicked) -> None:
        self.action_toggle_breakpoint(message.line)

    @on(StackPane.FrameSelected)
    def _frame_selected(self, message: StackPane.FrameSelected) -> None:
        if message.index != self.frame:
            self._select_frame(message.index)

    @on(ThreadsPane.ThreadSelected)
    def _thread_selected(self, message: ThreadsPane.ThreadSelected) -> None:
        if message.thread_id != self._current_thread():
            self.thread = message.thread_id
            self.frame = 0
            self._schedule_refresh()

    @on(VariablesPane.ExpandRequested)
    def _expand(self, message: VariablesPane.ExpandRequested) -> None:
        self._load_children(message)

    @on(VariablesPane.ValueRequested)
    def _show_value(self, message: VariablesPane.ValueRequested) -> None:
        self._open_value(message.variable)

    @work(group="value")
    async def _open_value(self, variable: Variable) -> None:
        """The whole value: a string's every character (the pane shows a cut summary), else the summary."""
        value = variable.value
        text = value.text
        if value.kind == "string" and value.handle:
            ins = await self._quietly(self.debugger.inspect(value.handle, self.frame, self._current_thread(), 0,
                                                            1_000_000))
            if ins is not None and ins.string is not None:
                text = ins.string
        about = f"{value.type}" + (f"  ·  {len(text)} characters" if value.kind == "string" else "")
        self.push_screen(ValueScreen(variable.name, text, about))

    @work(group="expand")
    async def _load_children(self, message: VariablesPane.ExpandRequested) -> None:
        try:
            ins = await self.debugger.inspect(message.target, self.frame, self._current_thread(), message.start, PAGE)
        except DebuggerError as e:
            message.pane.fill(message.node, [], message.start, None, note=str(e) or "cannot expand")
            return
        children = list(getattr(ins, "children", []) or [])
        for entry in getattr(ins, "entries", []) or []:
            children.append(Variable(entry.key.text, entry.value, kind="entry"))
        note = None
        if getattr(ins, "string", None) is not None:
            note = repr(ins.string)
        message.pane.fill(message.node, children, message.start, getattr(ins, "total", None), note=note)

    @on(BreakpointsPane.Toggle)
    def _bp_toggle(self, message: BreakpointsPane.Toggle) -> None:
        bp = message.bp
        self._run(f"{'disabling' if bp.enabled else 'enabling'} {bp.id}",
                  lambda: self.debugger.breakpoint_update(bp.id, enabled=not bp.enabled))

    @on(BreakpointsPane.Remove)
    def _bp_remove(self, message: BreakpointsPane.Remove) -> None:
        self._run(f"removing {message.bp.id}", lambda: self.debugger.breakpoint_remove(message.bp.id))

    @on(BreakpointsPane.Edit)
    def _bp_edit(self, message: BreakpointsPane.Edit) -> None:
        bp = message.bp

        def done(options: dict | None) -> None:
            if options is not None:
                self._run(f"updating {bp.id}", lambda: self.debugger.breakpoint_update(bp.id, **options))

        self.push_screen(BreakpointEditScreen(bp), done)

    @on(BreakpointsPane.Jump)
    def _bp_jump(self, message: BreakpointsPane.Jump) -> None:
        for loc in message.bp.locations[:1]:
            self._show_elsewhere(loc)

    @work(group="open")
    async def _show_elsewhere(self, location: CodeLocation) -> None:
        await self._open_location(location, current=False)
        source = self.query_one(SourceView)
        if location.line > 0:
            source.move_cursor((location.line - 1, 0), center=True)
        source.focus()

    @on(WatchesPane.AddRequested)
    def _watch_add(self, message: WatchesPane.AddRequested) -> None:
        def done(expression: str | None) -> None:
            if not expression:
                return

            async def add() -> Any:
                if message.replace:
                    await self.debugger.watch_remove(message.replace)
                return await self.debugger.watch_add(expression)

            self._run(f"watching {expression}", add)

        self.push_screen(PromptScreen("Watch expression (evaluated at every stop)", message.expression,
                                      "e.g. order.items.size()"), done)

    @on(WatchesPane.RemoveRequested)
    def _watch_remove(self, message: WatchesPane.RemoveRequested) -> None:
        self._run(f"removing {message.watch_id}", lambda: self.debugger.watch_remove(message.watch_id))

    def action_add_watch(self) -> None:
        self.post_message(WatchesPane.AddRequested())

    # -- command line --------------------------------------------------------------------------------

    def action_focus_command(self) -> None:
        self.query_one(CommandLine).focus()

    def action_focus_source(self) -> None:
        self.query_one(SourceView).focus()

    @on(Input.Submitted, "#command")
    def _command_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        command = self.query_one(CommandLine)
        command.value = ""
        if not line:
            return
        command.remember(line)
        self._execute(line)

    def selection(self) -> Selection:
        """The catalog's view of what the command line acts on: the selected thread and frame."""
        if self._selection is None:
            self._selection = Selection(confirm=self._confirm)
        self._selection.thread = self.thread
        self._selection.frame = self.frame
        return self._selection

    @work(group="command")
    async def _execute(self, line: str) -> None:
        words = line.split()
        if words[0] in ("help", "h", "?") and len(words) == 1:
            self.action_help(default_catalog().help())  # a screen, not a 9-row console
            return
        if words[0] in ("restart", "rerun") and len(words) == 1:
            self.action_restart()  # as Ctrl+R: launched again and run to the first breakpoint
            return
        output = self.query_one(OutputPane)
        output.write(Text(f"› {line}", style="bold cyan"))
        self._show_tab("tab-console")
        selection = self.selection()
        self._note(f"{line}…")
        result = await default_catalog().execute(self.debugger, line, Actor.PERSON, selection)
        self._note("")
        if result.text:
            output.write(Text(result.text, style="" if result.ok else "red"))
        if result.exit:
            self.action_quit()
            return
        if result.stop is None and (selection.thread != self.thread or selection.frame != self.frame):
            self.thread, self.frame = selection.thread, selection.frame
            self._schedule_refresh()
            return
        self._schedule_refresh(reset_selection=result.stop is not None)

    async def _confirm(self, question: str) -> bool:
        """A yes/no question from a command (`delete` with no id): a dialog; Esc answers no."""
        return bool(await self.push_screen_wait(ConfirmQuitScreen(question)))

    async def _complete(self, text: str) -> list[str]:
        start, candidates = await default_catalog().completions(self.debugger, text, self.selection())
        return [text[:start] + candidate for candidate in candidates]

    def _show_tab(self, tab_id: str) -> None:
        with contextlib.suppress(Exception):
            self.query_one("#tabs", TabbedContent).active = tab_id

    # -- search, open, help, palette, quit -----------------------------------------------------------

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.remove_class("hidden")
        box.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        # Like less, vim and pudb: Enter goes back to the source at the first match; n / N move on from there.
        source = self.query_one(SourceView)
        box = self.query_one("#search", Input)
        box.add_class("hidden")
        source.focus()
        if not source.search(event.value.strip()):
            source.search_term = None
            if event.value.strip():
                self.notify(f"“{event.value.strip()}” not found", severity="warning", timeout=3)
        self._show_source()

    def action_search_next(self) -> None:
        self._search_step(backwards=False)

    def action_search_previous(self) -> None:
        self._search_step(backwards=True)

    def _search_step(self, backwards: bool) -> None:
        source = self.query_one(SourceView)
        if not source.search_term:
            self.action_search()
            return
        source.find(source.search_term, backwards=backwards)
        source.focus()

    def on_key(self, event) -> None:
        box = self.query_one("#search", Input)
        if event.key == "escape" and box.has_focus:
            box.add_class("hidden")
            self.query_one(SourceView).focus()
            event.stop()

    @on(SourceView.SearchChanged)
    def _search_changed(self) -> None:
        self._show_source()  # the source title says when n/N move between matches
    def action_focus_pane(self, name: str) -> None:
        pane = PANE_BY_NAME[name]
        if self.compact and pane.name != "Source":
            self._show_tab(f"tab-{pane.name.lower()}")
        elif pane.tab_id:
            self._show_tab(pane.tab_id)
        widget = self.query_one(f"#{pane.widget_id}")
        if isinstance(widget, EventsPane):
            widget = widget.query_one("#event-log")
        if isinstance(widget, VariablesPane) and widget.cursor_line < 0:
            widget.cursor_line = 0  # a visible cursor on the first variable, ready for ↓ and →
        widget.focus()

    def action_open_file(self) -> None:
        self._open_finder()

    @work(group="open")
    async def _open_finder(self) -> None:
        files = await asyncio.to_thread(self._source_files)
        commands = [(str(rel), lambda p=path: self._open_path(p), str(path)) for rel, path in files]
        if not commands:
            self.notify("no .java files on the source path — start with --sourcepath DIR", severity="warning")
            return
        self.search_commands(commands, placeholder="Open a source file…")

    def _source_files(self) -> list[tuple[str, Path]]:
        roots = shown_source_path(self.debugger, self.sourcepath).roots
        seen: dict[Path, str] = {}
        for root in roots:
            if not root.is_dir():
                continue
            for path in root.rglob("*.java"):
                if len(seen) >= 5000:
                    break
                if ".venv" in path.parts or "node_modules" in path.parts:
                    continue
                seen.setdefault(path.resolve(), str(path.relative_to(root)))
        return sorted(((rel, path) for path, rel in seen.items()), key=lambda item: item[0])

    def _open_path(self, path: Path) -> None:
        from ..core.sources import class_name_for_file  # noqa: PLC0415

        location = CodeLocation(class_name_for_file(path), "", 1, path.name, str(path))
        self._show_elsewhere(location)

    def action_help(self, commands: str = "") -> None:
        self.push_screen(HelpScreen(self.help_sections(), commands))

    @staticmethod
    def help_sections() -> list[tuple[str, type]]:
        return [("Everywhere (digits focus a pane; Tab / Shift+Tab go round them)", TracepilotApp),
                ("Source pane (pudb/gdb keys)", SourceView), ("Variables pane", VariablesPane),
                ("Breakpoints pane", BreakpointsPane), ("Watches pane", WatchesPane),
                ("Command line", CommandLine)]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own (theme, screenshot, keys…) minus its Quit, which would not ask about a running target
        for command in super().get_system_commands(screen):
            if command.title.lower() not in ("quit", "quit the application"):
                yield command
        for title, help_text, action in PALETTE:
            yield SystemCommand(title, help_text, lambda a=action: self.run_action(a))
        for pane in PANES:
            yield SystemCommand(f"{pane.name} pane", f"focus it ({pane.key})",
                                lambda name=pane.name.lower(): self.action_focus_pane(name))
        yield SystemCommand("Help", "every key and command (F1)", self.action_help)
        yield SystemCommand("Quit tracepilot", "asks first if a launched target still runs (q)", self.action_quit)
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
        line = self.query_one(CommandLine)
        line.value = f"{name} "
        line.cursor_position = len(line.value)
        line.focus()

    def _target_alive(self) -> bool:
        status = self.view.status
        return bool(self.launched and status and status.state in (SessionState.RUNNING, SessionState.STOPPED))

    def action_quit(self) -> None:  # type: ignore[override]
        if self._target_alive():
            def answered(yes: bool | None) -> None:
                if yes:
                    self._close_and_exit()

            self.push_screen(ConfirmQuitScreen("The launched program is still running. Quit and end it?"), answered)
        else:
            self._close_and_exit()

    @work(group="quit", exclusive=True)
    async def _close_and_exit(self) -> None:
        self._note("closing…")
        if self._unsubscribe:
            self._unsubscribe()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.debugger.close(), 5.0)
        self.exit(0)


async def _done(value: Any) -> Any:
    return value


def _result_text(result: Any) -> str:
    """Text of a command result: its own rendering if it has one, else the core's renderer."""
    if result is None:
        return ""
    if isinstance(result, str):
        return result
    for attr in ("text", "output"):
        value = getattr(result, attr, None)
        if isinstance(value, str):
            return value
    from ..core import render  # noqa: PLC0415

    return render.render(result)


# -- command-line entry ------------------------------------------------------------------------------


def _demo_source() -> Path:
    return Path(__file__).resolve().parent.parent / "demo" / "ShopDemo.java"


def demo_line(marker: str) -> int:
    """The line of the demo marked `// @demo:MARKER`."""
    for number, line in enumerate(_demo_source().read_text().splitlines(), 1):
        if f"// @demo:{marker}" in line:
            return number
    raise LookupError(f"no line marked @demo:{marker} in ShopDemo.java")


DEMO_HINT = "try: F10 step · F11 into total() · 2 ↓ → a variable · F5 next order (#4 fails)"  # fits 80


async def stop_on_uncaught(app: TracepilotApp) -> None:
    """Stop where an exception nobody catches is thrown (jdb's and IntelliJ's default) instead of letting it end
    the program; the breakpoint list shows it (`exception * uncaught only`), removing it turns it off."""
    d = app.debugger
    infos = await d.breakpoint_list()
    if not any(b.kind == "exception" and b.spec == "*" and b.uncaught for b in infos):
        await d.exception_break("*", caught=False, uncaught=True)


async def run_to_first_stop(app: TracepilotApp, started: Awaitable[Any]) -> None:
    """After a launch (or restart) the JVM waits at VM start: run it to the first breakpoint or exception."""
    await started
    status = await app.debugger.status()
    if status.state is SessionState.STOPPED and status.stop and status.stop.kind is StopKind.VM_START:
        app.progress("running to the first breakpoint or exception…")
        await app.debugger.resume(None, 0.0)
    app.progress("")


async def launch_and_run(app: TracepilotApp, options: dict[str, Any], breaks: list[str],
                         uncaught: bool = True) -> None:
    """Start a JVM suspended, install the breakpoints and the uncaught-exception stop, then run it."""
    d = app.debugger
    app.progress("starting the JVM…")
    await d.launch(**options)
    app.progress("setting breakpoints…")
    if uncaught:
        await stop_on_uncaught(app)
    for location in breaks:
        try:
            await d.breakpoint_set(location)
        except DebuggerError as e:
            app.notify(f"--break {location}: {e}", severity="error", timeout=10)
    await run_to_first_stop(app, _done(None))


def _build(ns: argparse.Namespace) -> TracepilotApp:
    from ..core.debugger import Debugger  # noqa: PLC0415
    from ..core.launcher import split_launch_args  # noqa: PLC0415

    sourcepath = list(ns.sourcepath or [])
    command = ns.command
    uncaught = not getattr(ns, "no_stop_on_uncaught", False)
    debugger = Debugger(read_only=ns.read_only, redact=ns.redact, sourcepath=sourcepath)
    if command == "attach":
        async def attach(app: TracepilotApp) -> None:
            app.progress(f"waiting up to {ns.wait:g}s for {ns.address} to listen…")
            await app.debugger.attach(ns.address, ns.wait)
            if uncaught:
                await stop_on_uncaught(app)
            app.progress("")

        return TracepilotApp(debugger, attach, sourcepath=sourcepath, target_label=ns.address)
    if command == "demo":
        demo = _demo_source()
        debugger = Debugger(read_only=ns.read_only, redact=ns.redact, sourcepath=[*sourcepath, str(demo.parent)])
        options = {"source": str(demo), "sourcepath": [str(demo.parent)]}
        breaks = list(ns.breaks) or [f"ShopDemo:{demo_line('process')}"]  # early in the flow; the NPE is ahead
        return TracepilotApp(debugger, lambda app: launch_and_run(app, options, breaks, uncaught), launched=True,
                             sourcepath=[*sourcepath, str(demo.parent)], target_label="ShopDemo",
                             hint=DEMO_HINT if not ns.breaks else "")
    java_args = split_launch_args(ns.java_args)
    if not java_args:
        raise SystemExit("tracepilot launch: give the program: -- -cp DIR Main args…, -- -jar app.jar, or Foo.java")
    options = java_launch_options(java_args)
    if options.get("source"):
        sourcepath.append(str(Path(options["source"]).resolve().parent))
    options["sourcepath"] = sourcepath
    breaks = list(ns.breaks)
    return TracepilotApp(debugger, lambda app: launch_and_run(app, options, breaks, uncaught), launched=True,
                         sourcepath=sourcepath, target_label=" ".join(java_args))


def run(ns: argparse.Namespace) -> int:
    """Entry point of `tracepilot attach|launch|demo|watch`."""
    from .watch import run_hosted, run_watch  # noqa: PLC0415

    if ns.command == "watch":
        return run_watch(ns)
    return run_hosted(_build(ns))  # published for `tracepilot watch` while it runs
