"""What keys, clicks and pane messages do: stepping, continuing, pausing, run to cursor, breakpoints,
frame and thread selection, values and watches, source search, pane focus and the open-file finder. Each
debugger action is one facade call, run in a worker."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..core.errors import DebuggerError
from ..core.model import (
    CodeLocation,
    Variable,
    WaitResult,
)
from ..core.sources import shown_source_path
from .screens.prompt import BreakpointEditScreen, PromptScreen
from .screens.value import ValueScreen
from .view import PANE_BY_NAME, app_worker
from .widgets.breakpoints import BreakpointsPane
from .widgets.events import EventsPane
from .widgets.search import SearchBox
from .widgets.source import SourceView
from .widgets.stack import StackPane
from .widgets.threads import ThreadsPane
from .widgets.variables import PAGE, VariablesPane
from .widgets.watches import WatchesPane


class Actions:
    """What the App's keys, clicks and pane messages do (the App routes them here): each debugger call is one
    facade call in one of the App's workers, its outcome on the status bar."""

    def __init__(self, app: Any) -> None:
        self.app = app  # the TracepilotApp that composes this

    def run(self, label: str, call: Callable[[], Awaitable[Any]]) -> None:
        self._run_worker(label, call)

    @app_worker(group="action")
    async def _run_worker(self, label: str, call: Callable[[], Awaitable[Any]]) -> None:
        self.app.note(f"{label}…")
        seq = self.app.debugger.history.last_seq
        try:
            result = await call()
        except DebuggerError as e:
            self.app.note(str(e), error=True)
            return
        message = getattr(result, "message", "") if result is not None else ""
        stopped = getattr(result, "stopped", True)
        self.app.note("" if stopped or not message else message)
        if isinstance(result, WaitResult) and result.stopped and result.note:  # another thread's waiting stop answered
            self.app.notify(result.note, severity="warning", timeout=10)
        if self.app.debugger.history.last_seq == seq:  # no history record to refresh from (they all do)
            self.app.refresher.schedule(reset_selection=bool(getattr(result, "stopped", False)))

    def resume(self) -> None:
        self.run("continuing", lambda: self._past_shown_stop(lambda: self.app.debugger.resume(None, 0.0)))

    async def _past_shown_stop(self, go: Callable[[], Awaitable[Any]]) -> Any:
        """Run `go` (resume, run to) once more if it only handed back the stop already on screen: the core gives a
        stop to one waiting call before it lets it go, and this screen learnt of it from the history instead."""
        shown = self.app.view.status.stop if self.app.view.status else None
        result = await go()
        stop = getattr(result, "stop", None)
        if shown is not None and getattr(result, "stopped", False) and stop is not None and stop.time == shown.time:
            result = await go()
        return result

    def pause(self) -> None:
        self.app.refresher.prefer_user_frame = True
        self.run("pausing", lambda: self.app.debugger.pause())

    def step(self, kind: str) -> None:
        self.run(f"step {kind}", lambda: self.app.debugger.step(kind, self.app.current_thread(), 1, 30.0))

    def step_over(self) -> None:
        self.step("over")

    def step_into(self) -> None:
        self.step("into")

    def step_out(self) -> None:
        self.step("out")

    def _cursor_location(self) -> str | None:
        source = self.app.query_one(SourceView)
        if source.path is None or not source.class_name:
            self.app.notify("open a source file first (Ctrl+O) — no source is shown", severity="warning")
            return None
        return f"{source.class_name}:{source.cursor_line}"

    def toggle_breakpoint(self, line: int | None = None) -> None:
        source = self.app.query_one(SourceView)
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
                    await self.app.debugger.breakpoint_remove(bp_id)

            self.run(f"removing {', '.join(ids)}", remove)
        else:
            self.run(f"breakpoint at {location}", lambda: self.app.debugger.breakpoint_set(location))

    def run_to_cursor(self) -> None:
        location = self._cursor_location()
        if location:
            self.run(f"running to {location}", lambda: self._past_shown_stop(
                lambda: self.app.debugger.run_to(location, self.app.current_thread(), 0.0)))

    def frame_up(self) -> None:
        self.select_frame((self.app.frozen.frame if self.app.frozen.active else self.app.frame) + 1)

    def frame_down(self) -> None:
        self.select_frame((self.app.frozen.frame if self.app.frozen.active else self.app.frame) - 1)

    def select_frame(self, index: int) -> None:
        if self.app.frozen.active:  # a capture's frames are shown: its values, nothing asked of the JVM
            self.app.frozen.select_frame(index)
            return
        if not self.app.view.frames:
            return
        index = max(0, min(index, len(self.app.view.frames) - 1))
        self.app.frame = index
        self.app.query_one(StackPane).show(self.app.view.frames, index)
        self._reload_frame()

    @app_worker(group="frame", exclusive=True)
    async def _reload_frame(self) -> None:
        await self.app.refresher.load_frame()
        self.app.refreshes += 1

    def gutter_clicked(self, message: SourceView.GutterClicked) -> None:
        self.toggle_breakpoint(message.line)

    def frame_selected(self, message: StackPane.FrameSelected) -> None:
        if message.index != self.app.frame or self.app.frozen.active:
            self.select_frame(message.index)

    def thread_selected(self, message: ThreadsPane.ThreadSelected) -> None:
        if message.thread_id != self.app.current_thread():
            self.app.thread = message.thread_id
            self.app.frame = 0
            self.app.refresher.show_status()  # at once: the status bar names the thread F10 now steps
            self.app.refresher.schedule()

    def expand(self, message: VariablesPane.ExpandRequested) -> None:
        self._load_children(message)

    def show_value(self, message: VariablesPane.ValueRequested) -> None:
        self._open_value(message.variable)

    @app_worker(group="value")
    async def _open_value(self, variable: Variable) -> None:
        """The whole value: a string's every character (the pane shows a cut summary); a collection, array or
        map its elements (the first page, each expandable); else the summary."""
        value = variable.value
        text = value.text
        elements: list[Variable] | None = None
        total = None
        if value.kind == "string" and value.handle:
            ins = await self.app.quietly(self.app.debugger.inspect(value.handle, self.app.frame, self.app.current_thread(), 0,
                                                            1_000_000))
            if ins is not None and ins.string is not None:
                text = ins.string
        elif value.kind in ("array", "collection", "map") and value.handle:
            ins = await self.app.quietly(self.app.debugger.inspect(value.handle, self.app.frame,
                                                                   self.app.current_thread(), 0, PAGE))
            if ins is not None:
                elements, total = children_of(ins), ins.total
        about = f"{value.type}" + (f"  ·  {len(text)} characters" if value.kind == "string" else "")
        if value.size is not None and value.kind != "string":
            about += f"  ·  {value.size} element(s)"
        self.app.push_screen(ValueScreen(variable.name, text, about, elements, total, value.handle))

    @app_worker(group="expand")
    async def _load_children(self, message: VariablesPane.ExpandRequested) -> None:
        try:
            ins = await self.app.debugger.inspect(message.target, self.app.frame, self.app.current_thread(), message.start, PAGE)
        except DebuggerError as e:
            message.pane.fill(message.node, [], message.start, None, note=str(e) or "cannot expand")
            return
        children = children_of(ins)
        note = None
        if getattr(ins, "string", None) is not None:
            note = repr(ins.string)
        message.pane.fill(message.node, children, message.start, getattr(ins, "total", None), note=note)

    def bp_toggle(self, message: BreakpointsPane.Toggle) -> None:
        bp = message.bp
        self.run(f"{'disabling' if bp.enabled else 'enabling'} {bp.id}",
                  lambda: self.app.debugger.breakpoint_update(bp.id, enabled=not bp.enabled))

    def bp_remove(self, message: BreakpointsPane.Remove) -> None:
        self.run(f"removing {message.bp.id}", lambda: self.app.debugger.breakpoint_remove(message.bp.id))

    def bp_edit(self, message: BreakpointsPane.Edit) -> None:
        bp = message.bp

        def done(options: dict | None) -> None:
            if options is not None:
                self.run(f"updating {bp.id}", lambda: self.app.debugger.breakpoint_update(bp.id, **options))

        self.app.push_screen(BreakpointEditScreen(bp), done)

    def bp_jump(self, message: BreakpointsPane.Jump) -> None:
        for loc in message.bp.locations[:1]:
            self.show_elsewhere(loc)

    @app_worker(group="open")
    async def show_elsewhere(self, location: CodeLocation) -> None:
        await self.app.refresher.open_location(location, current=False)
        source = self.app.query_one(SourceView)
        if location.line > 0:
            source.move_cursor((location.line - 1, 0), center=True)
        source.focus()

    def watch_add(self, message: WatchesPane.AddRequested) -> None:
        def done(expression: str | None) -> None:
            if not expression:
                return

            async def add() -> Any:
                if message.replace:
                    await self.app.debugger.watch_remove(message.replace)
                return await self.app.debugger.watch_add(expression)

            self.run(f"watching {expression}", add)

        self.app.push_screen(PromptScreen("Watch expression (evaluated at every stop)", message.expression,
                                      "e.g. order.items.size()"), done)

    def watch_remove(self, message: WatchesPane.RemoveRequested) -> None:
        self.run(f"removing {message.watch_id}", lambda: self.app.debugger.watch_remove(message.watch_id))

    def add_watch(self) -> None:
        self.app.post_message(WatchesPane.AddRequested())

    def go_to_line(self, line: int | None = None) -> None:
        """The source cursor to a line of the file shown (`:54` on the command line, Ctrl+G, the palette)."""
        if line is None:
            def answered(text: str | None) -> None:
                if text and text.strip().lstrip(":").isdigit():
                    self.go_to_line(int(text.strip().lstrip(":")))
                elif text:
                    self.app.notify(f"“{text}” is not a line number", severity="warning", timeout=4)

            self.app.push_screen(PromptScreen("Go to line", placeholder="a line number, e.g. 54"), answered)
            return
        source = self.app.query_one(SourceView)
        count = source.document.line_count
        if source.path is None or not source.text:
            self.app.notify("no source file is shown: open one first (Ctrl+O)", severity="warning", timeout=4)
            return
        if not 1 <= line <= count:
            self.app.notify(f"{source.path.name} has lines 1 to {count}", severity="warning", timeout=4)
            line = max(1, min(line, count))
        source.move_cursor((line - 1, 0), center=True)
        source.focus()

    def search(self) -> None:
        self.app.query_one(SearchBox).open()

    def search_submitted(self, value: str) -> None:
        # Like less, vim and pudb: Enter goes back to the source at the first match; n / N move on from there.
        source = self.app.query_one(SourceView)
        self.app.query_one(SearchBox).add_class("hidden")
        source.focus()
        term = value.strip()
        if not source.search(term):
            source.search_term = None
            if term:
                self.app.notify(f"“{term}” not found", severity="warning", timeout=3)
        self.app.refresher.show_source()

    def search_next(self) -> None:
        self._search_step(backwards=False)

    def search_previous(self) -> None:
        self._search_step(backwards=True)

    def _search_step(self, backwards: bool) -> None:
        source = self.app.query_one(SourceView)
        if not source.search_term:
            self.search()
            return
        source.find(source.search_term, backwards=backwards)
        source.focus()

    def search_changed(self) -> None:
        self.app.refresher.show_source()  # the source title says when n/N move between matches

    def focus_pane(self, name: str) -> None:
        pane = PANE_BY_NAME[name]
        if self.app.compact and pane.name != "Source":
            self.app.show_tab(f"tab-{pane.name.lower()}")
        elif pane.tab_id:
            self.app.show_tab(pane.tab_id)
        widget = self.app.query_one(f"#{pane.widget_id}")
        if isinstance(widget, EventsPane):
            widget = widget.query_one("#event-log")
        if isinstance(widget, VariablesPane) and widget.cursor_line < 0:
            widget.cursor_line = 0  # a visible cursor on the first variable, ready for ↓ and →
        widget.focus()

    def open_file(self) -> None:
        self._open_finder()

    @app_worker(group="open")
    async def _open_finder(self) -> None:
        files = await asyncio.to_thread(self.source_files)
        commands = [(str(rel), lambda p=path: self._open_path(p), str(path)) for rel, path in files]
        if not commands:
            self.app.notify("no .java files on the source path — start with --sourcepath DIR", severity="warning")
            return
        self.app.search_commands(commands, placeholder="Open a source file…")

    def source_files(self) -> list[tuple[str, Path]]:
        sources = shown_source_path(self.app.debugger, self.app.sourcepath)
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
        self.show_elsewhere(location)


def children_of(ins: Any) -> list[Variable]:
    """An inspection's rows: fields or elements, and a map's entries as `key = value`."""
    children = list(getattr(ins, "children", []) or [])
    for entry in getattr(ins, "entries", []) or []:
        children.append(Variable(entry.key.text, entry.value, kind="entry"))
    return children
