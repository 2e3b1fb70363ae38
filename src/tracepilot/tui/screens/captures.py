"""What capture points took: a list of captures (newest last) and, for the one opened (Enter), its stack and
values as a frozen view: the values are those at the hit, not the live program's, and the view says so."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static, Tree
from textual.widgets.tree import TreeNode

FROZEN = "frozen at the hit: values as they were then, not the live program's"


class CapturesScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self, debugger: Any) -> None:
        super().__init__()
        self.debugger = debugger
        self.captures: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="captures-box") as box:
            box.border_title = "Captures"
            box.border_subtitle = "Enter: open · r: reload · Esc: close"
            with Horizontal():
                table: DataTable[str] = DataTable(id="captures-list", cursor_type="row")
                table.add_columns("#", "point", "thread", "where", "held")
                yield table
                with Vertical(id="capture-view"):
                    yield Static("Enter opens a capture here", id="capture-about", markup=False)
                    yield Tree("capture", id="capture-tree")

    async def on_mount(self) -> None:
        await self.action_reload()
        self.query_one("#captures-list", DataTable).focus()

    async def action_reload(self) -> None:
        self.captures = list(await self.debugger.captures(limit=1000))
        table = self.query_one("#captures-list", DataTable)
        table.clear()
        for c in self.captures:
            loc = c.frames[0].location if c.frames else None
            where = f"{loc.class_name.rpartition('.')[2]}.{loc.method}:{loc.line}" if loc else "?"
            table.add_row(str(c.seq), f"{c.breakpoint_id} #{c.number}", c.thread_name, where,
                          f"{c.took_ms:.1f} ms", key=str(c.seq))
        if not self.captures:
            self.query_one("#capture-about", Static).update(
                "no captures yet: set one with `capture at Foo:42` (or breakpoint_set capture=N)")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        chosen = next((c for c in self.captures if str(c.seq) == event.row_key.value), None)
        if chosen is not None:
            self.open(chosen)

    def open(self, capture: Any) -> None:
        self.query_one("#capture-about", Static).update(f"{capture.headline()}\n{FROZEN}")
        tree = self.query_one("#capture-tree", Tree)
        tree.clear()
        tree.root.label = f"capture {capture.breakpoint_id} #{capture.number} (frozen)"
        for frame in capture.frames:
            loc = frame.location
            node = tree.root.add(f"#{frame.index} {loc.class_name}.{loc.method}:{loc.line}",
                                 expand=frame.index == 0)
            for value in frame.locals or []:
                _add_value(node, value)
        if capture.expressions:
            node = tree.root.add("expressions", expand=True)
            for value in capture.expressions:
                _add_value(node, value)
        if capture.note:
            tree.root.add_leaf(f"note: {capture.note}")
        tree.root.expand()


def _add_value(parent: TreeNode[Any], value: Any) -> None:
    label = f"{value.name} = {value.text}" + (f"  [{value.cut}]" if value.cut else "")
    if not value.children:
        parent.add_leaf(label)
        return
    node = parent.add(label)
    for child in value.children:
        _add_value(node, child)
