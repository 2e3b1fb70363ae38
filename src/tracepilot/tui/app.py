"""The Textual app: composes the panes (widgets that own their keys and rendering and post messages), and
routes: keys to actions, pane messages and core events (the shared history, as `CoreEvent` messages) to the
parts it composes. Every debugger action is one facade call in a worker, so the screen never freezes.

`TracepilotApp` holds the layout, the key bindings, the footer and what every pane shares (the selected
thread and frame). The work is done by plain objects it composes: `Refresher` (refresh.py: core events ->
panes), `Actions` (actions.py: what keys, clicks and pane messages do), `CommandRunner` (commandline.py: the
command line, the palette, quitting). The names they share are in view.py. The entry points that build and
run the App (`tracepilot attach|launch|demo|watch`) are above it, in entry.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, TabbedContent, TabPane, Tabs

from ..core.errors import DebuggerError
from ..core.model import SessionState
from .actions import Actions
from .commandline import CommandRunner
from .footer import NO_LIMIT, face_state, faces
from .frozen import FrozenView
from .refresh import Refresher
from .screens.help import HelpScreen
from .startup import run_to_first_stop
from .targets import switch_to_next_target
from .view import (
    COMPACT_HEIGHT,
    COMPACT_WIDTH,
    PANES,
    SHORT_LABELS,
    WHEN_RUNNING,
    WHEN_STOPPED,
    WIDE_FOOTER,
    WIDE_LABELS,
    CoreEvent,
    ViewState,
    pane_title,
)
from .widgets.breakpoints import BreakpointsPane
from .widgets.captures import CapturesPane, FrozenBanner
from .widgets.command_line import CommandLine
from .widgets.events import EventsPane
from .widgets.footer import KeysFooter
from .widgets.output import OutputPane
from .widgets.search import SearchBox
from .widgets.source import SourceView
from .widgets.stack import StackPane
from .widgets.status import StatusBar
from .widgets.targets import TargetsList
from .widgets.threads import ThreadsPane
from .widgets.variables import VariablesPane
from .widgets.watches import WatchesPane

if TYPE_CHECKING:
    from ..core.api import DebuggerApi

Startup = Callable[["TracepilotApp"], Awaitable[None]]
# The keys the footer offers, in its order: (key, action, priority).
FOOTER_KEYS = [
    ("f5", "resume", True), ("f6", "pause", True), ("f10", "step_over", True), ("f11", "step_into", True),
    ("shift+f11", "step_out", True), ("f9", "toggle_breakpoint", True), ("f8", "run_to_cursor", True),
    ("ctrl+r,ctrl+f5", "restart", True), ("colon", "focus_command", False), ("slash", "search", False),
    ("escape", "leave_capture", False), ("question_mark,f1", "help", False), ("q", "quit", False),
]


class TracepilotApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "tracepilot"
    ENABLE_COMMAND_PALETTE = True

    # The footer shows the faces of these keys (tui/footer.py): its short words below WIDE_FOOTER columns, the
    # long ones from there on. The keys themselves (show=False) work at every width and carry help's words.
    BINDINGS = [
        *(binding for key, action, priority in FOOTER_KEYS
          for binding in faces(key, action, [(SHORT_LABELS[action], 0, WIDE_FOOTER),
                                             (WIDE_LABELS[action], WIDE_FOOTER, NO_LIMIT)], priority=priority)),
        Binding("f5", "resume", "Continue", show=False, priority=True),
        Binding("f6", "pause", "Pause", show=False, priority=True),
        Binding("f10", "step_over", "Step over", show=False, priority=True),
        Binding("f11", "step_into", "Step into", show=False, priority=True),
        Binding("shift+f11", "step_out", "Step out", show=False, priority=True),
        Binding("f9", "toggle_breakpoint", "Breakpoint", show=False, priority=True),
        Binding("f8", "run_to_cursor", "Run to cursor", show=False, priority=True),
        Binding("ctrl+r,ctrl+f5", "restart", "Restart", show=False, priority=True),
        Binding("colon", "focus_command", "Command line", show=False),
        Binding("slash", "search", "Search source", show=False),
        Binding("f3", "search_next", "Next match", show=False),
        Binding("shift+f3,f2", "search_previous", "Previous match", show=False),  # (tmux may not pass Shift+F3)
        Binding("ctrl+g", "go_to_line", "Go to line", show=False),
        Binding("ctrl+o", "open_file", "Open file", show=False),
        Binding("w", "add_watch", "Add watch", show=False),
        Binding("T", "next_target", "Next target", show=False),
        Binding("escape", "leave_capture", "Back to the live view (from a capture shown frozen)", show=False),
        *(Binding(pane.key, f"focus_pane('{pane.name.lower()}')", f"Focus the {pane.name} pane", show=False)
          for pane in PANES),
        Binding("question_mark,f1", "help", "Help", show=False),
        Binding("q", "quit", "Quit", show=False),
        Binding("ctrl+p", "command_palette", "Palette", show=False),
    ]

    def __init__(self, debugger: DebuggerApi, startup: Startup | None = None, *, launched: bool = False,
                 sourcepath: Iterable[str] = (), clock: bool = True, target_label: str = "", hint: str = "") -> None:
        super().__init__()
        self.hint = hint  # one line of what to try (the demo), shown in the empty command line
        self.debugger = debugger
        self.startup = startup
        self.launched = launched
        self.stop_at_main = False  # set by the start-up of `tracepilot launch` given no --break (startup.py)
        self.sourcepath = [Path(p) for p in sourcepath]
        self.clock = clock  # wall-clock times in the event log (off for snapshot tests)
        self.target_label = target_label
        self.view = ViewState()
        self.thread: int | None = None  # selected thread (None: the stop's thread)
        self.frame = 0  # selected frame index
        self.compact = False
        self._wanted_compact: bool | None = None  # the layout a resize asks for (see compose)
        self._relayout_timer: Any = None
        self._relayout_lock = asyncio.Lock()
        self.ready = asyncio.Event()  # startup finished (tests wait on it)
        self.refreshes = 0  # completed refreshes (tests wait for a change)
        self._unsubscribe: Callable[[], None] | None = None
        self.footer_width: int | None = None  # the width the footer's words are chosen for (see label_keys)
        self.refresher = Refresher(self)
        self.actions = Actions(self)
        self.commands = CommandRunner(self)
        self.frozen = FrozenView(self)  # the captures list and a capture shown frozen (frozen.py)

    def compose(self) -> ComposeResult:
        # (On a resize this runs before the App's own size is updated: the layout wanted comes from the event.)
        wanted, self._wanted_compact = self._wanted_compact, None
        self.compact = self._is_compact(self.size.width, self.size.height) if wanted is None else wanted
        yield StatusBar(id="status")
        yield FrozenBanner(id="frozen-banner")
        if self.compact:
            with Vertical(id="body", classes="compact"):
                yield SourceView(id="source")
                yield SearchBox(id="search")
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
                        yield TargetsList(id="targets")
                        yield ThreadsPane(id="threads")
                    with TabPane(pane_title("Events"), id="tab-events"):
                        yield EventsPane(id="events")
                    with TabPane(pane_title("Console"), id="tab-console"):
                        yield OutputPane(id="output")
                    with TabPane(pane_title("Captures"), id="tab-captures"):
                        yield CapturesPane(id="captures")
        else:
            with Horizontal(id="body"):
                with Vertical(id="left"):
                    yield SourceView(id="source")
                    yield SearchBox(id="search")
                    with TabbedContent(id="tabs"):
                        with TabPane(pane_title("Console"), id="tab-console"):
                            yield OutputPane(id="output")
                        with TabPane(pane_title("Breakpoints"), id="tab-breakpoints"):
                            yield BreakpointsPane(id="breakpoints")
                        with TabPane(pane_title("Threads"), id="tab-threads"):
                            yield TargetsList(id="targets")
                            yield ThreadsPane(id="threads")
                        with TabPane(pane_title("Events"), id="tab-events"):
                            yield EventsPane(id="events")
                        with TabPane(pane_title("Captures"), id="tab-captures"):
                            yield CapturesPane(id="captures")
                with Vertical(id="right"):
                    yield StackPane(id="stack")
                    yield VariablesPane(id="variables")
                    yield WatchesPane(id="watches")
        yield CommandLine(id="command")
        yield KeysFooter(compact=self.compact, show_command_palette=not self.compact)

    @staticmethod
    def _is_compact(width: int, height: int) -> bool:
        return width < COMPACT_WIDTH or height < COMPACT_HEIGHT

    def on_resize(self, event) -> None:
        self.label_keys(event.size.width)
        # A terminal being dragged sends a burst of sizes: lay out again once it rests, one re-layout at a time
        # (a re-layout started while the last one still mounts its panes breaks their tabs).
        if self._relayout_timer is not None:
            self._relayout_timer.stop()
        self._relayout_timer = self.set_timer(0.15, lambda: self._relayout(event.size.width, event.size.height))

    @work(group="relayout", exclusive=False)
    async def _relayout(self, width: int, height: int) -> None:
        async with self._relayout_lock:
            wanted = self._is_compact(width, height)
            if wanted == self.compact:
                return
            console = self.query_one(OutputPane)  # its lines go to the new layout's console as they were
            self._wanted_compact = wanted
            await self._drain_tabs()
            await self.recompose()
            await self._panes_mounted()
            self._fill_all(console)
            self.frozen.repaint()  # (a capture shown frozen stays shown in the new panes)
            self.label_keys(width)
            self.refresher.schedule()  # (a refresh that ran into the old panes as they went painted nothing)
            settled = asyncio.Event()  # the new panes' own after-mount work is done before any next re-layout
            self.call_after_refresh(settled.set)
            await settled.wait()

    async def _drain_tabs(self) -> None:
        """Let every tab bar handle the messages it has queued before the re-layout removes it: a Resize still
        queued when its underline is already gone fails inside Textual's Tabs (seen under load, 1 run in 6)."""
        drained = []
        for tabs in self.query(Tabs):
            done = asyncio.get_running_loop().create_future()
            tabs.call_later(lambda done=done: done.done() or done.set_result(None))
            drained.append(done)
        if drained:
            await asyncio.wait(drained, timeout=2.0)

    def label_keys(self, width: int | None = None) -> None:
        """The footer's words for the width (short below WIDE_FOOTER: 80 columns keep every key that applies;
        pane keys only from COMPACT_WIDTH on) and the state (Restart once the program ended): check_action
        answers for the footer's faces of the keys (tui/footer.py)."""
        self.footer_width = self.size.width if width is None else width  # (a resize passes its width: size lags)
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
        self.label_keys()
        self._set_titles()
        self.query_one(CommandLine).completer = self.commands.complete
        self._unsubscribe = self.debugger.history.subscribe(lambda record: self.post_message(CoreEvent(record)))
        self.view.events.extend(self.debugger.history.since(0))
        self._fill_all()
        self.query_one(SourceView).focus()
        self.set_interval(0.25, self.refresher.poll_output)
        self.frozen.load()  # captures taken before this screen opened (watch: the host's so far)
        self._start()

    async def _panes_mounted(self) -> None:
        """The compact layout's tabs mount their panes a little after recompose returns (seen under load):
        fill them only once they are there (bounded: a pane never mounted shows up as the NoMatches it was)."""
        for _ in range(200):
            if self.query(EventsPane) and self.query(OutputPane) and self.query(StackPane):
                return
            await asyncio.sleep(0.01)

    def _fill_all(self, console: OutputPane | None = None) -> None:
        """(Re)fill every pane from the view state (after start-up or a re-layout: `console` is the console of
        the layout before, whose lines the new one shows)."""
        v = self.view
        events = self.query_one(EventsPane)
        events.clock = self.clock
        self.call_after_refresh(events.replay, v.events)
        self._set_titles()
        command = self.query_one(CommandLine)
        command.completer = self.commands.complete  # (a re-layout makes a new command line)
        if self.hint:
            command.placeholder = self.hint
        self.refresher.show_status()
        self.refresher.show_source()
        self.query_one(StackPane).show(v.frames, self.frame)
        self.refresher.show_variables()
        self.query_one(ThreadsPane).show(v.threads, self.current_thread())
        self.query_one(BreakpointsPane).show(v.breakpoints)
        self.query_one(WatchesPane).show(v.watches)
        output = self.query_one(OutputPane)
        if console is not None:
            output.take_over(console)
            return
        for stream, text in v.output:
            output.append(stream, text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "footer":
            if parameters[0] == "restart" and self._state() not in (SessionState.EXITED, SessionState.DISCONNECTED):
                return False  # the key works any time; the footer offers it once the program ended
            return face_state(self, parameters)
        status = self.view.status
        state = status.state if status else None
        if action in WHEN_STOPPED:
            return state is SessionState.STOPPED
        if action in WHEN_RUNNING:
            return state is SessionState.RUNNING
        if action == "restart":
            return self.launched and hasattr(self.debugger, "restart")
        if action == "leave_capture":
            return self.frozen.active
        return True

    @staticmethod
    def help_sections() -> list[tuple[str, type]]:
        return [("Everywhere (digits focus a pane; Tab / Shift+Tab go round them)", TracepilotApp),
                ("Source pane (pudb/gdb keys)", SourceView), ("Variables pane", VariablesPane),
                ("Breakpoints pane", BreakpointsPane), ("Watches pane", WatchesPane),
                ("Captures pane", CapturesPane),
                ("Command line", CommandLine)]

    # -- start-up ------------------------------------------------------------------------------------

    @work(group="startup")
    async def _start(self) -> None:
        try:
            if self.startup is not None:
                await self.startup(self)
        except DebuggerError as e:
            self.note(str(e), error=True)
        except Exception as e:  # noqa: BLE001 - shown to the person, never a traceback
            self.note(f"start-up failed: {e}", error=True)
        finally:
            self.ready.set()
        self.refresher.schedule(reset_selection=True)

    def progress(self, text: str) -> None:
        """Start-up steps report here (status bar), e.g. 'waiting for localhost:5005 to listen…'."""
        self.note(text)

    def action_restart(self) -> None:
        if not self.launched:
            self.notify("restart re-launches a program started by tracepilot launch/demo; this one was attached",
                        severity="warning")
            return
        self.actions.run("restarting", lambda: run_to_first_stop(self, self.debugger.restart()))

    # -- what every part uses ------------------------------------------------------------------------

    def note(self, text: str, error: bool = False) -> None:
        """A line on the status bar; an error is also a notification and a line in the console. (Nothing while
        the panes are gone: quitting, or a re-layout between two layouts.)"""
        with contextlib.suppress(NoMatches):
            self.query_one(StatusBar).show(note=text)
            if error:
                self.notify(text, severity="error", timeout=8)
                self.query_one(OutputPane).write(f"! {text}")

    async def quietly(self, awaitable: Awaitable[Any], show: bool = True) -> Any:
        """Await a core call; a DebuggerError becomes a notification (its text says what to do next)."""
        try:
            return await awaitable
        except DebuggerError as e:
            if show:
                self.notify(str(e), severity="warning", timeout=6)
            return None

    def current_thread(self) -> int | None:
        """The selected thread, else the stop's."""
        if self.thread is not None:
            return self.thread
        status = self.view.status
        return status.stop.thread_id if status and status.stop else None

    def show_tab(self, tab_id: str) -> None:
        with contextlib.suppress(Exception):
            self.query_one("#tabs", TabbedContent).active = tab_id

    def stop_following(self) -> None:
        """No more core events (closing)."""
        if self._unsubscribe:
            self._unsubscribe()

    # -- routing: core events, keys and pane messages to the parts that handle them ----------------------

    def on_core_event(self, message: CoreEvent) -> None:
        self.frozen.core_event(message.record)
        self.refresher.core_event(message.record)

    def action_resume(self) -> None:
        self.actions.resume()

    @work(exclusive=True, group="targets")
    async def action_next_target(self) -> None:
        """Several JVMs in one session: the next one becomes the current target (tui/targets.py)."""
        said = await self.quietly(switch_to_next_target(self))
        if said:
            self.note(said)

    def action_leave_capture(self) -> None:
        self.frozen.leave()

    @on(CapturesPane.Opened)
    def _capture_opened(self, message: CapturesPane.Opened) -> None:
        self.frozen.open(message.capture)

    def action_pause(self) -> None:
        self.actions.pause()

    def action_step_over(self) -> None:
        self.actions.step_over()

    def action_step_into(self) -> None:
        self.actions.step_into()

    def action_step_out(self) -> None:
        self.actions.step_out()

    def action_toggle_breakpoint(self, line: int | None = None) -> None:
        self.actions.toggle_breakpoint(line)

    def action_run_to_cursor(self) -> None:
        self.actions.run_to_cursor()

    def action_frame_up(self) -> None:
        self.actions.frame_up()

    def action_frame_down(self) -> None:
        self.actions.frame_down()

    def action_add_watch(self) -> None:
        self.actions.add_watch()

    def action_search(self) -> None:
        self.actions.search()

    def action_search_next(self) -> None:
        self.actions.search_next()

    def action_search_previous(self) -> None:
        self.actions.search_previous()

    def action_go_to_line(self) -> None:
        self.actions.go_to_line()

    def action_focus_pane(self, name: str) -> None:
        self.actions.focus_pane(name)

    def action_open_file(self) -> None:
        self.actions.open_file()

    def action_focus_command(self) -> None:
        self.query_one(CommandLine).focus()

    def action_help(self, commands: str = "") -> None:
        self.push_screen(HelpScreen(self.help_sections(), commands))

    async def action_footer(self, action: str, _low: int = 0, _high: int = NO_LIMIT) -> None:
        await self.run_action(action)  # a footer face (tui/footer.py) pressed or clicked: its action

    def action_quit(self) -> None:  # type: ignore[override]
        self.commands.quit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        return self.commands.system_commands(super().get_system_commands(screen))

    @on(SourceView.GutterClicked)
    def _gutter_clicked(self, message: SourceView.GutterClicked) -> None:
        self.actions.gutter_clicked(message)

    @on(SourceView.SearchChanged)
    def _search_changed(self) -> None:
        self.actions.search_changed()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.actions.search_submitted(event.value)

    @on(SearchBox.Closed)
    def _search_closed(self) -> None:
        self.query_one(SourceView).focus()

    @on(CommandLine.Left)
    def _command_line_left(self) -> None:
        self.query_one(SourceView).focus()

    @on(Input.Submitted, "#command")
    def _command_submitted(self, event: Input.Submitted) -> None:
        self.commands.command_submitted(event.value)

    @on(StackPane.FrameSelected)
    def _frame_selected(self, message: StackPane.FrameSelected) -> None:
        self.actions.frame_selected(message)

    @on(ThreadsPane.ThreadSelected)
    def _thread_selected(self, message: ThreadsPane.ThreadSelected) -> None:
        self.actions.thread_selected(message)

    @on(VariablesPane.ExpandRequested)
    def _expand(self, message: VariablesPane.ExpandRequested) -> None:
        self.actions.expand(message)

    @on(VariablesPane.ValueRequested)
    def _show_value(self, message: VariablesPane.ValueRequested) -> None:
        self.actions.show_value(message)

    @on(BreakpointsPane.Toggle)
    def _bp_toggle(self, message: BreakpointsPane.Toggle) -> None:
        self.actions.bp_toggle(message)

    @on(BreakpointsPane.Remove)
    def _bp_remove(self, message: BreakpointsPane.Remove) -> None:
        self.actions.bp_remove(message)

    @on(BreakpointsPane.Edit)
    def _bp_edit(self, message: BreakpointsPane.Edit) -> None:
        self.actions.bp_edit(message)

    @on(BreakpointsPane.Jump)
    def _bp_jump(self, message: BreakpointsPane.Jump) -> None:
        self.actions.bp_jump(message)

    @on(WatchesPane.AddRequested)
    def _watch_add(self, message: WatchesPane.AddRequested) -> None:
        self.actions.watch_add(message)

    @on(WatchesPane.RemoveRequested)
    def _watch_remove(self, message: WatchesPane.RemoveRequested) -> None:
        self.actions.watch_remove(message)
