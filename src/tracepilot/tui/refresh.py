"""Core events -> panes: painting a stop at once, the refresh scheduler (which parts, cancelling a stale
refresh), the core calls of a refresh painted as they arrive, the source / variables / status panes, and
polling the program's output."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.css.query import NoMatches

from ..core.catalog import returned_text
from ..core.errors import DebuggerError
from ..core.model import (
    Actor,
    CodeLocation,
    EventRecord,
    SessionState,
    Status,
    Variable,
)
from ..core.sources import shown_source_path
from .sources import SourceCache, plain
from .view import (
    MAX_FRAMES,
    PANES,
    PARTS,
    PARTS_OF_KIND,
    QUIET_KINDS,
    SNAPSHOT_FRAMES,
    app_worker,
    done_value,
)
from .widgets.breakpoints import BreakpointsPane, look_of
from .widgets.events import EventsPane
from .widgets.output import OutputPane
from .widgets.source import GutterMark, SourceView
from .widgets.stack import StackPane
from .widgets.status import StatusBar
from .widgets.targets import TargetsList
from .widgets.threads import ThreadsPane
from .widgets.variables import VariablesPane
from .widgets.watches import WatchesPane


def driver_of(records: Iterable[EventRecord]) -> str:
    """Who acted last in a history ("agent" or "you"): a watcher that joins an agent's session names the
    agent from the start, not only after the agent's next action."""
    for record in reversed(list(records)):
        if record.actor is Actor.AGENT:
            return "agent"
        if record.actor is Actor.PERSON:
            return "you"
    return "you"


class Refresher:
    """Keeps the panes in step with the core: the App (tui/app.py) hands it each core event; it asks the
    debugger what changed (in the App's workers) and fills the panes."""

    def __init__(self, app: Any) -> None:
        self.app = app  # the TracepilotApp that composes this
        self.sources = SourceCache()
        self.pending = False  # a refresh is scheduled and has not started
        self.wanted: dict[str, int] = {}  # parts asked for -> requests so far (a refresh clears what it did)
        self.driving = driver_of(app.debugger.history.since(0))  # who acted last (the status bar says)
        self.prefer_user_frame = False  # after a pause: select the nearest frame of the program's own code
        self._reset_selection = False
        self._worker: Any = None
        self._key: tuple[Any, Any] | None = None  # session state the running refresh started from
        self._again = False
        self._revealed: tuple[Any, ...] | None = None  # the stop/frame/line last scrolled into view
        self._output_offsets = {"stdout": 0, "stderr": 0}
        self._shown_state: Any = None  # the session state the footer's keys were chosen for
        self._focused_stop: Any = None  # the stop whose program frame was selected (time of the stop)

    def core_event(self, record: EventRecord) -> None:
        self.app.view.events.append(record)
        del self.app.view.events[:-EventsPane.MAX]
        try:
            self.app.query_one(EventsPane).add(record)
        except NoMatches:
            return  # the screen is being torn down (quitting)
        if record.actor is Actor.AGENT:
            self.driving = "agent"
        elif record.actor is Actor.PERSON:
            self.driving = "you"
        self.app.commands.forget_selection()
        if record.kind in QUIET_KINDS:
            return
        if record.kind == "launch":  # a new process (restart): its output starts again at 0
            self._output_offsets = {"stdout": 0, "stderr": 0}
            if self.app.view.output:
                with contextlib.suppress(NoMatches):
                    self.app.query_one(OutputPane).write(Text("── restarted ──", style="dim"))
        if record.kind == "stop":
            self._paint_stop()
        self.schedule(reset_selection=record.kind in ("stop", "vm_death", "vm_start", "exited"),
                      parts=PARTS_OF_KIND.get(record.kind, PARTS))

    def _paint_stop(self) -> None:
        """The status bar and the current line straight from the stop reason the session already holds (the
        location carries the source path): on screen before any core call returns."""
        stop = self.app.debugger.current_stop
        if self.app.debugger.state is not SessionState.STOPPED or stop is None:
            return
        v = self.app.view
        v.status = (dataclasses.replace(v.status, state=SessionState.STOPPED, stop=stop) if v.status
                    else Status(SessionState.STOPPED, None, None, stop, len(v.breakpoints)))
        self.app.thread, self.app.frame = stop.thread_id, 0
        self._reset_selection = False
        self.show_status()
        location = stop.location
        if location is None or not location.source_path:
            return
        path = Path(location.source_path)
        prepared = self.sources.peek(path)
        if prepared is None:
            self.preload(path)  # read and highlighted while the refresh asks the core
            return
        v.source, v.source_class = prepared, location.class_name.split("$", 1)[0]
        v.source_line = location.line if location.line > 0 else None
        self.show_source()

    def preload(self, path: Path) -> None:
        task = asyncio.get_running_loop().create_task(self.sources.load(path))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a failure shows when it is used

    def _session_key(self) -> tuple[Any, Any]:
        return self.app.debugger.state, getattr(self.app.debugger.current_stop, "time", None)

    def schedule(self, reset_selection: bool = False, parts: Iterable[str] = PARTS) -> None:
        """Ask for the panes in `parts` to be refreshed. A refresh already under way for the same session state
        runs again when it is done; one for an older state (the session stopped or resumed since) is
        cancelled, so a stop never waits for a refresh of the running state."""
        self._reset_selection |= reset_selection
        for part in parts:
            self.wanted[part] = self.wanted.get(part, 0) + 1
        if self.pending:
            return
        worker = self._worker
        if worker is not None and worker.is_running and not reset_selection \
                and self._key == self._session_key():
            self._again = True
            return
        self.pending = True
        self.app.call_later(self._start_refresh)

    def _start_refresh(self) -> None:
        self._again = False
        self._worker = self._refresh()

    @app_worker(group="refresh", exclusive=True)
    async def _refresh(self) -> None:
        self.pending = False
        self._key = self._session_key()
        taken = dict(self.wanted)
        if not taken and not self._reset_selection:
            return
        try:
            done = await self._refresh_parts(set(taken))
        except NoMatches:
            return  # the screen is being torn down (quitting): nothing left to paint
        if not done:
            return
        for part, count in taken.items():
            if self.wanted.get(part) == count:
                del self.wanted[part]
        self.app.refreshes += 1
        if self._again or self.wanted:  # asked for while this one ran
            self.pending = True
            self.app.call_later(self._start_refresh)

    async def _refresh_parts(self, parts: set[str]) -> bool:
        """One refresh: every core call it needs in flight at once; panes painted as their answers arrive,
        the most useful first (stack and locals with the source line, then the status, breakpoints,
        watches, threads, the rest of a deep stack). Returns False when the session cannot be reached."""
        d, v = self.app.debugger, self.app.view
        errors: list[str] = []
        state = d.state
        tasks: list[asyncio.Task[Any]] = []

        def start(method: Callable[..., Awaitable[Any]], *args: Any, report: bool = True) -> asyncio.Task[Any]:
            async def call() -> Any:  # the coroutine is made in the task: a cancelled task leaves none behind
                return await self.fetch(method(*args), errors if report else None)

            task = asyncio.get_running_loop().create_task(call())
            tasks.append(task)
            return task

        try:
            status_task = start(d.status)
            stop = d.current_stop
            if self._reset_selection:
                self.app.thread = stop.thread_id if stop else None
                self.app.frame = 0
                self._reset_selection = False
            stopped = state is SessionState.STOPPED
            thread = self.app.current_thread() if stopped else None
            frames_task = snapshot_task = rest_task = locals_task = None
            if "frames" in parts and stopped:
                if stop is not None and stop.location is not None and stop.location.source_path:
                    self.preload(Path(stop.location.source_path))
                if self.app.frame == 0 and hasattr(d, "snapshot"):
                    snapshot_task = start(d.snapshot, thread)
                    rest_task = start(d.stack, thread, SNAPSHOT_FRAMES, MAX_FRAMES - SNAPSHOT_FRAMES, report=False)
                else:
                    frames_task = start(d.stack, thread, 0, MAX_FRAMES)
                    locals_task = start(d.locals, self.app.frame, thread, report=False)
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
            self.show_status()
            if breakpoints_task is not None:
                v.breakpoints = await breakpoints_task or []
                self.app.query_one(BreakpointsPane).show(v.breakpoints)
                self.show_source()  # the gutter marks
            if watches_task is not None:
                v.watches = await watches_task or []
                self.app.query_one(WatchesPane).show(v.watches)
            if threads_task is not None:
                v.threads = await threads_task or []
            elif "threads" in parts:
                v.threads = []
            if "threads" in parts:
                self.app.query_one(ThreadsPane).show(v.threads, self.app.current_thread())
                self.show_status()
            if rest_task is not None and len(v.frames) >= SNAPSHOT_FRAMES:
                rest = await rest_task or []
                known = len(v.frames)
                v.frames = v.frames + [f for f in rest if f.index >= known]
                self.app.query_one(StackPane).show(v.frames, self.app.frame)
        finally:
            for task in tasks:
                task.cancel()
        if errors and d.state is state:  # (a call that failed because the program ended meanwhile: the status says it)
            self.app.notify(errors[0], severity="warning", timeout=6)
        return True

    async def _paint_frames(self, snapshot_task: asyncio.Task[Any] | None, frames_task: asyncio.Task[Any] | None,
                            locals_task: asyncio.Task[Any] | None, watches_from_snapshot: bool) -> None:
        v = self.app.view
        variables: list[Variable] | None = None
        if snapshot_task is not None:
            snapshot = await snapshot_task
            v.frames = list(getattr(snapshot, "frames", None) or [])
            if v.frames:
                variables = v.frames[0].locals
                # The snapshot's locals are those of the frame the core shows for the stop: the program's own
                # below JDK code (a pause in Thread.sleep). Select it once per stop, as every front end does.
                focus = next((f for f in v.frames if f.locals is not None), None)
                stop_key = getattr(self.app.debugger.current_stop, "time", None)
                if focus is not None and focus.index and self.app.frame == 0 and self._focused_stop != stop_key:
                    self.app.frame, variables = focus.index, focus.locals
                    self.prefer_user_frame = False
                self._focused_stop = stop_key
            if snapshot is not None and watches_from_snapshot:
                v.watches = list(snapshot.watches or [])
                self.app.query_one(WatchesPane).show(v.watches)
        else:
            v.frames = await frames_task or []
        self.app.frame = min(self.app.frame, max(len(v.frames) - 1, 0))
        if self.prefer_user_frame and self.app.frame == 0 and v.frames:
            # A pause lands wherever the thread was, often in Thread.sleep: show the caller in the program's own
            # code instead (gdb's and IntelliJ's choice), with its locals.
            self.prefer_user_frame = False
            own = next((f.index for f in v.frames if not f.is_library and f.location.line > 0), 0)
            if own:
                self.app.frame = own
                locals_task = asyncio.ensure_future(self.fetch(self.app.debugger.locals(own, self.app.current_thread()),
                                                                None))
        self.app.query_one(StackPane).show(v.frames, self.app.frame)
        if not v.frames:
            v.variables, v.variables_note = [], "locals not available here"
            self.show_variables()
            status = v.status
            if status and status.stop and status.stop.location:
                await self.open_location(status.stop.location, current=True)
            return
        await self._paint_frame(v.frames[self.app.frame].location,
                                locals_task if locals_task is not None else done_value(variables))

    def _returned(self) -> str | None:
        """'discount() returned 659' at a stop right after a method returned (shown in the top frame only)."""
        status = self.app.view.status
        return returned_text(status.stop) if status is not None and self.app.frame == 0 else None

    async def _paint_not_stopped(self) -> None:
        v = self.app.view
        status = v.status
        v.frames, v.variables = [], []
        v.variables_note = {SessionState.RUNNING: "running — pause (F6) to see variables",
                            SessionState.EXITED: "the program has ended",
                            SessionState.DISCONNECTED: "not connected"}.get(status.state) if status else None
        self.app.query_one(StackPane).show(v.frames, self.app.frame)
        self.show_variables()
        location = status.stop.location if status and status.stop else None
        if location is not None:
            await self.open_location(location, current=True)
        elif status and status.state is not SessionState.STOPPED:
            v.source_line = None
            self.show_source()

    async def _paint_frame(self, location: CodeLocation, variables: Awaitable[Any]) -> None:
        """Source line and locals of the selected frame, each painted as soon as it is there."""

        async def paint_locals() -> None:
            result = await variables
            self.app.view.variables = result or []
            self.app.view.variables_note = None if result is not None else "locals not available here"
            self.show_variables()

        await asyncio.gather(self.open_location(location, current=True), paint_locals())

    def show_variables(self) -> None:
        v = self.app.view
        stop = v.status.stop if v.status else None
        key = (getattr(stop, "time", None), self.app.thread, self.app.frame)
        self.app.query_one(VariablesPane).show(v.variables, v.variables_note, key=key, returned=self._returned())

    async def load_frame(self) -> None:
        """Locals and source of the selected frame (after `u`/`d` or a click in the stack pane)."""
        v = self.app.view
        if not v.frames:
            return
        await self._paint_frame(v.frames[self.app.frame].location,
                                self.fetch(self.app.debugger.locals(self.app.frame, self.app.current_thread()), None))

    async def fetch(self, awaitable: Awaitable[Any], errors: list[str] | None) -> Any:
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

    async def open_location(self, location: CodeLocation, current: bool) -> None:
        v = self.app.view
        path = Path(location.source_path) if location.source_path else None
        if path is not None and not shown_source_path(self.app.debugger, self.app.sourcepath).allows(path):
            path = None  # only files under the source roots are shown (core/sources.py confinement)
        if path is None:
            view = await self.app.quietly(self.app.debugger.source(f"{location.class_name}:{max(location.line, 1)}", 0),
                                       show=False)
            if view is not None and getattr(view, "path", None):
                path = Path(view.path)
        line = location.line if (current and location.line > 0) else None
        class_name = location.class_name.split("$", 1)[0]
        prepared = self.sources.peek(path) if path is not None else None
        if prepared is not None:  # painted now; checked against the file below
            v.source, v.source_class, v.source_line = prepared, class_name, line
            self.show_source()
        if path is not None:
            prepared = await self.sources.load(path)
        if prepared is None:
            prepared = plain(await self._source_not_found(location))
            line = None
        v.source, v.source_class, v.source_line = prepared, class_name, line
        self.show_source()

    async def _source_not_found(self, location: CodeLocation) -> str:
        lines = [f"source not found for {location.class_name} ({location.source_file or 'no SourceFile'})",
                 "— set a source path: tracepilot attach … --sourcepath DIR, or `use DIR` on the command line", "",
                 f"stopped in {location}", ""]
        classes = await self.app.quietly(self.app.debugger.classes(location.class_name, True), show=False) or []
        for summary in classes[:1]:
            lines.append(f"class {summary.name}")
            for m in summary.methods or []:
                where = f"  lines {m.lines[0]}-{m.lines[-1]}" if m.lines else ""
                lines.append(f"    {m.signature}{where}")
        return "\n".join(lines)

    def show_source(self) -> None:
        v = self.app.view
        source = self.app.query_one(SourceView)
        stop = v.status.stop if v.status else None
        key = (getattr(stop, "time", None), self.app.thread, self.app.frame, v.source_path, v.source_line)
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
        for bp in self.app.view.breakpoints:
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

    def show_status(self, note: str | None = None) -> None:
        status = self.app.view.status
        self.app.query_one(StatusBar).show(status, note if note is not None else ("" if status else None), self.driving,
                                           viewing=self.viewed_thread())
        with contextlib.suppress(NoMatches):  # several JVMs: the list above the threads (widgets/targets.py)
            self.app.query_one(TargetsList).show(status.targets if status else None)
        state = (status.state, self.app.launched) if status else None
        if state != self._shown_state:  # the footer offers only the keys that apply now
            self._shown_state = state
            self.app.label_keys()

    def viewed_thread(self) -> Any:
        """The thread selected in Threads when it is not the current stop's (the status bar describes it)."""
        status, selected = self.app.view.status, self.app.thread
        stop = status.stop if status else None
        if stop is None or selected is None or selected == stop.thread_id:
            return None
        return next((t for t in self.app.view.threads if t.id == selected), None)

    async def poll_output(self) -> None:
        if not (self.app.launched or getattr(self.app, "follows_output", False)):  # (watch: the host's program)
            return
        with contextlib.suppress(NoMatches):  # (the screen is being torn down: quitting)
            await self._poll_output_once()

    async def _poll_output_once(self) -> None:
        status = self.app.view.status
        if status is not None and status.state is SessionState.EXITED and status.exit_code is None:
            # The VM's end is told before the process has always exited: its exit code comes a moment later.
            with contextlib.suppress(Exception):
                fresh = await self.app.debugger.status()
                if fresh.state is SessionState.EXITED and fresh.exit_code is not None:
                    self.app.view.status = fresh
                    self.show_status()
        pane = self.app.query_one(OutputPane)
        for stream in ("stdout", "stderr"):
            try:
                chunks = await self.app.debugger.output(stream, self._output_offsets[stream])
            except Exception:  # noqa: BLE001 - no output yet / not connected
                return
            for chunk in chunks:
                if chunk.text:
                    self.app.view.output.append((stream, chunk.text))
                    pane.append(stream, chunk.text)
                self._output_offsets[stream] = max(self._output_offsets[stream], chunk.end)
