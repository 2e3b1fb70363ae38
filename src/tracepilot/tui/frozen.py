"""Captures in the TUI (issue 31): the Captures pane kept in step with the session's captures as they arrive, and
the frozen view: Enter on a capture shows its frames in the Stack pane and its values in the Variables pane, as
they were at the hit. Nothing of a frozen view is read from the JVM (a capture holds copies, not handles): the
values expand as far as the capture took them, and a cut says what it cut. Esc, or the next stop, goes back
to the live view; the live program's frames and values kept coming meanwhile (the panes keep them aside)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from rich.text import Text
from textual.css.query import NoMatches
from textual.widgets.tree import TreeNode

from ..core.capture.model import Capture, CapturedValue
from ..core.inspect.stack import is_library
from ..core.model import EventRecord, FrameInfo, ValueView, Variable
from .view import app_worker
from .widgets.captures import CapturesPane, FrozenBanner, banner_of
from .widgets.source import SourceView
from .widgets.stack import StackPane
from .widgets.variables import LEAF_INDENT, VariablesPane, VarNode, label_for

SHOWN = 2_000  # captures the pane lists (the newest; the core's book keeps as many)
LIST_PAUSE = 0.1  # seconds between two redraws of the list while captures keep arriving


class FrozenView:
    """Composed by the App: the captures list and the frozen view of the one opened (None: the live view)."""

    def __init__(self, app: Any) -> None:
        self.app = app  # the TracepilotApp that composes this
        self.captures: list[Capture] = []
        self.capture: Capture | None = None  # the capture shown frozen
        self.frame = 0  # its frame selected in the Stack pane
        self._again = False  # a capture arrived while the list was being read
        self._loading = False

    @property
    def active(self) -> bool:
        return self.capture is not None

    # -- the list ---------------------------------------------------------------------------------------

    def core_event(self, record: EventRecord) -> None:
        if record.kind == "capture":
            self.load()
        elif record.kind == "stop" and self.active:
            self.leave()  # the program stopped: its live state is what matters now
        elif record.kind in ("reset", "detach"):  # the core let go of its captures: so does the list
            self.leave()
            self.captures = []
            self.show_list()

    def load(self) -> None:
        """Read the captures added since the last one listed (one read at a time; arrivals meanwhile read after)."""
        if self._loading:
            self._again = True
            return
        self._loading = True
        self._load()

    @app_worker(group="captures")
    async def _load(self) -> None:
        try:
            while True:
                self._again = False
                since = self.captures[-1].seq if self.captures else 0
                try:
                    found = list(await self.app.debugger.captures(since=since, limit=SHOWN))
                except Exception:  # noqa: BLE001 - not attached yet, the host gone: the list stays as it is
                    found = []
                if found:
                    self.captures = (self.captures + found)[-SHOWN:]
                    self.show_list()
                    # A point capturing 100 times a second: the list is redrawn a few times a second, not
                    # once per capture (what arrives meanwhile is read in one go).
                    await asyncio.sleep(LIST_PAUSE)
                if not self._again:
                    return
        finally:
            self._loading = False

    def show_list(self) -> None:
        with contextlib.suppress(NoMatches):  # (between two layouts, or quitting)
            self.app.query_one(CapturesPane).show(self.captures, self.capture)

    # -- the frozen view ----------------------------------------------------------------------------------

    def open(self, capture: Capture) -> None:
        self.capture, self.frame = capture, 0
        self.repaint()
        if self.app.compact:  # (the panes are tabs there: the list's tab would hide what was opened)
            self.app.actions.focus_pane("variables")
        self.app.refresh_bindings()  # the footer offers the key back to the live view

    def select_frame(self, index: int) -> None:
        """Another frame of the capture (the Stack pane's selection, u / d)."""
        capture = self.capture
        if capture is None or not capture.frames:
            return
        self.frame = max(0, min(index, len(capture.frames) - 1))
        self._paint_frame()

    def leave(self) -> None:
        if self.capture is None:
            return
        self.capture = None
        with contextlib.suppress(NoMatches):
            self.app.query_one(FrozenBanner).show(None)
            stack, variables = self.app.query_one(StackPane), self.app.query_one(VariablesPane)
            stack.border_subtitle = variables.border_subtitle = ""
            stack.thaw()
            variables.thaw()
        self.show_list()
        self.app.refresh_bindings()
        self.app.refresher.schedule()  # the source line and the rest as the program is now

    def repaint(self) -> None:
        """Paint the list and the frozen view (after opening one, or into the new panes of a re-layout)."""
        self.show_list()
        capture = self.capture
        if capture is None:
            return
        with contextlib.suppress(NoMatches):
            self.app.query_one(FrozenBanner).show(capture)
            subtitle = f"❄ capture #{capture.number} of {capture.breakpoint_id} · Esc: live"
            self.app.query_one(StackPane).border_subtitle = subtitle
            self.app.query_one(VariablesPane).border_subtitle = subtitle
            self._paint_frame()

    def _paint_frame(self) -> None:
        capture = self.capture
        if capture is None:
            return
        frames = [FrameInfo(f.index, f.location, is_library=is_library(f.location.class_name))
                  for f in capture.frames]
        self.app.query_one(StackPane).show_frozen(frames, self.frame)
        self.app.query_one(VariablesPane).show_frozen(lambda root: self._fill(root, capture, self.frame))
        if capture.frames:
            self._show_line(capture.frames[self.frame].location)

    @staticmethod
    def _fill(root: TreeNode[VarNode], capture: Capture, index: int) -> None:
        for line in frozen_notes(capture, index):
            root.add_leaf(Text(LEAF_INDENT + line, style="bold yellow" if line.startswith("❄") else "dim italic"),
                          data=VarNode(None, True))
        frame = capture.frames[index] if index < len(capture.frames) else None
        for value in (frame.locals or []) if frame is not None else []:
            add_captured(root, value, "argument" if value.name != "this" else "this")
        if index == 0 and capture.expressions:
            node = root.add(Text("expressions (at the hit)", style="bold"), data=VarNode(None, True), expand=True)
            for value in capture.expressions:
                add_captured(node, value, "watch")
        if capture.cuts:  # (each cut value says its own; this lists them all, and a capture's own limit)
            node = root.add(Text(f"✂ what the limits cut ({len(capture.cuts)})", style="italic yellow"),
                            data=VarNode(None, True))
            for cut in capture.cuts:
                node.add_leaf(Text(LEAF_INDENT + cut, style="italic"), data=VarNode(None, True))

    def _show_line(self, location: Any) -> None:
        """The captured frame's line in the source pane, when its file is known here (no request to the JVM)."""
        if not location.source_path or location.line <= 0:
            return
        self._open_source(location)

    @app_worker(group="frozen-source", exclusive=True)
    async def _open_source(self, location: Any) -> None:
        await self.app.refresher.open_location(location, current=False)
        with contextlib.suppress(NoMatches):
            self.app.query_one(SourceView).move_cursor((location.line - 1, 0), center=True)


def frozen_notes(capture: Capture, index: int) -> list[str]:
    """The lines above a frozen view's values: what it is, and what it does not hold."""
    notes = [f"❄ {banner_of(capture)}"]
    frame = capture.frames[index] if index < len(capture.frames) else None
    if frame is not None and frame.locals is None:
        notes.append("this frame's values were not captured (a capture takes the top frames'; "
                     "capture_limits={\"frames\": N} takes more)")
    if capture.note:
        notes.append(f"note: {capture.note}")
    if capture.skipped:
        notes.append(f"{capture.skipped} hit(s) before it not captured (the rate limit)")
    return notes


def add_captured(parent: TreeNode[VarNode], value: CapturedValue, kind: str) -> None:
    """A captured value as a row of the Variables tree, its captured children under it (expanded here, never
    asked of the JVM); a cut says what it left out."""
    variable = Variable(value.name, ValueView(value.type, value.text, value.kind), kind=kind)
    label = label_for(variable)
    if value.cut:
        label.append(f"  ✂ {value.cut}", style="italic yellow")
    data = VarNode(None, True, variable=variable)
    if not value.children:
        parent.add_leaf(Text(LEAF_INDENT) + label, data=data)
        return
    node = parent.add(label, data=data, allow_expand=True)
    for child in value.children:
        add_captured(node, child, "element" if child.name.startswith("[") else "field")
