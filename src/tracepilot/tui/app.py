"""The Textual app: lays out the panes, turns keys and clicks into calls on the core `Debugger`, and turns
core events (the shared history) into repaints. Widgets only display and post messages; every debugger
action is one facade call made here, in a worker, so the screen never freezes.

`TracepilotApp` holds the layout, the key bindings and what every pane shares (the selected thread and
frame); its features are mixins: startup.py (attach / launch, restart), refresh.py (core events -> panes),
actions.py (keys, clicks and pane messages), commandline.py (the command line, the palette, quitting). The
names they share (panes, labels, the view state) are in view.py. This module also builds the App for
`tracepilot attach|launch|demo`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Footer, Input, TabbedContent, TabPane

from ..core.catalog import Selection
from ..core.launcher import launch_options as java_launch_options
from ..core.model import SessionState
from .actions import ActionsMixin
from .commandline import CommandLineMixin
from .refresh import RefreshMixin
from .sources import SourceCache
from .startup import StartupMixin, launch_and_run, run_to_first_stop, stop_on_uncaught
from .view import (
    COMPACT_HEIGHT,
    COMPACT_WIDTH,
    MAX_FRAMES,
    PALETTE,
    PANE_BY_NAME,
    PANES,
    PARTS,
    PARTS_OF_KIND,
    QUIET_KINDS,
    SHORT_LABELS,
    SNAPSHOT_FRAMES,
    WHEN_RUNNING,
    WHEN_STOPPED,
    WIDE_FOOTER,
    WIDE_LABELS,
    CoreEvent,
    Pane,
    ViewState,
    _done,
    pane_title,
)
from .widgets.breakpoints import BreakpointsPane
from .widgets.command_line import CommandLine
from .widgets.events import EventsPane
from .widgets.output import OutputPane
from .widgets.source import SourceView
from .widgets.stack import StackPane
from .widgets.status import StatusBar
from .widgets.threads import ThreadsPane
from .widgets.variables import VariablesPane
from .widgets.watches import WatchesPane

if TYPE_CHECKING:
    from ..core.debugger import Debugger

__all__ = [  # (names other modules and tests import from here)
    "COMPACT_HEIGHT", "COMPACT_WIDTH", "DEMO_HINT", "MAX_FRAMES", "PALETTE", "PANE_BY_NAME", "PANES", "PARTS",
    "PARTS_OF_KIND", "QUIET_KINDS", "SHORT_LABELS", "SNAPSHOT_FRAMES", "WHEN_RUNNING", "WHEN_STOPPED",
    "WIDE_FOOTER", "WIDE_LABELS", "CoreEvent", "Pane", "Startup", "TracepilotApp", "ViewState", "_build", "_done",
    "demo_line", "java_launch_options", "launch_and_run", "pane_title", "run", "run_to_first_stop",
    "stop_on_uncaught",
]

Startup = Callable[["TracepilotApp"], Awaitable[None]]


class TracepilotApp(StartupMixin, RefreshMixin, ActionsMixin, CommandLineMixin, App[int]):
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

    @staticmethod
    def help_sections() -> list[tuple[str, type]]:
        return [("Everywhere (digits focus a pane; Tab / Shift+Tab go round them)", TracepilotApp),
                ("Source pane (pudb/gdb keys)", SourceView), ("Variables pane", VariablesPane),
                ("Breakpoints pane", BreakpointsPane), ("Watches pane", WatchesPane),
                ("Command line", CommandLine)]


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
