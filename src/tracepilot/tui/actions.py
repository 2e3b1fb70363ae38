"""What keys, clicks and pane messages do: stepping, continuing, pausing, run to cursor, breakpoints,
frame and thread selection, values and watches, source search, pane focus and the open-file finder. Each
debugger action is one facade call, run in a worker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.widgets import Input

from ..core.errors import DebuggerError
from ..core.model import (
    CodeLocation,
    Variable,
)
from ..core.sources import shown_source_path
from .screens.prompt import BreakpointEditScreen, PromptScreen
from .screens.value import ValueScreen
from .view import PANE_BY_NAME, AppPart
from .widgets.breakpoints import BreakpointsPane
from .widgets.events import EventsPane
from .widgets.source import SourceView
from .widgets.stack import StackPane
from .widgets.threads import ThreadsPane
from .widgets.variables import PAGE, VariablesPane
from .widgets.watches import WatchesPane


class ActionsMixin(AppPart):
    """The keys, clicks and pane messages part of `TracepilotApp` (tui/app.py)."""

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
        sources = shown_source_path(self.debugger, self.sourcepath)
        roots = sources.roots
        seen: dict[Path, str] = {}
        for root in roots:
            if not root.is_dir():
                continue
            for path in root.rglob("*.java"):
                if len(seen) >= 5000:
                    break
                if ".venv" in path.parts or "node_modules" in path.parts or not sources.allows(path):
                    continue  # (a link leading out of the roots is not offered: it would not open)
                seen.setdefault(path.resolve(), str(path.relative_to(root)))
        return sorted(((rel, path) for path, rel in seen.items()), key=lambda item: item[0])

    def _open_path(self, path: Path) -> None:
        from ..core.sources import class_name_for_file  # noqa: PLC0415

        location = CodeLocation(class_name_for_file(path), "", 1, path.name, str(path))
        self._show_elsewhere(location)
