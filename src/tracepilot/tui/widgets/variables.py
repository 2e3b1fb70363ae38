"""The variables tree: locals of the current frame; objects expand lazily (the app asks the core for
their children page by page); values that changed since the last stop are highlighted.

Keys follow the Tree convention of file managers and IDEs: Right opens a node (or moves into it), Left
closes it (or moves to its parent), Enter on a value (or `v` on any row) shows the value whole."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...core.frame_names import simple_class_name
from ...core.model import Variable

PAGE = 50
LEAF_INDENT = "  "  # the width of the tree's ▶/▼ icon: leaf rows line up with the rows that expand


@dataclass
class VarNode:
    """What a tree node stands for: a value with a handle to expand, or a 'more…' page link."""

    target: str | None  # handle ("@12") or expression to inspect
    loaded: bool = False
    next_start: int | None = None  # for a "more" node: the first index of the next page
    parent_target: str | None = None
    variable: Variable | None = None  # the value this row shows (for the detail view)


def label_for(var: Variable) -> Text:
    value = var.value
    text = Text()
    # `$exception` (at an exception stop) in the color of exceptions in the Events pane
    text.append(var.name, style="bold red" if var.kind == "exception" else "bold" if var.kind in ("local", "argument") else "")
    text.append(" = ")
    value_style = "bold yellow" if var.changed else {
        "string": "green", "null": "dim", "primitive": "cyan", "boxed": "cyan", "enum": "magenta"}.get(value.kind, "")
    text.append(value.text, style=value_style)
    short_type = simple_class_name(value.type)  # (a lambda's: "Host$$Lambda", as its value says)
    if short_type and value.kind not in ("primitive", "null", "string"):
        text.append(f"  {short_type}", style="dim")
    if var.changed:
        text.append("  ✱", style="yellow")
    return text


class VariablesPane(Tree[VarNode]):
    BINDINGS = [
        # (not in the footer: its room goes to the debugger's keys; help lists these)
        Binding("right", "open_node", "Expand (or into it)", show=False),
        Binding("left", "close_node", "Collapse (or to the parent)", show=False),
        Binding("enter", "select_cursor", "Expand / show a value whole", show=False),
        Binding("v", "show_value", "Show the whole value (copy with c)", show=False),
    ]

    class ExpandRequested(Message):
        def __init__(self, pane: VariablesPane, node: TreeNode[VarNode], target: str, start: int) -> None:
            super().__init__()
            self.pane = pane
            self.node = node
            self.target = target
            self.start = start

    class ValueRequested(Message):
        """Show one value whole (long strings, long summaries): the app opens a detail view."""

        def __init__(self, variable: Variable) -> None:
            super().__init__()
            self.variable = variable

    def __init__(self, **kwargs) -> None:
        super().__init__("locals", data=VarNode(None, True), **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.border_title = "Variables"
        self.expanded_paths: set[tuple[str, ...]] = set()
        self._shown: tuple[list[Variable], str | None] | None = None
        self._shown_key: object = None
        self.frozen = False  # a capture's values are shown (tui/frozen.py): the live ones wait in `_live`
        self._live: tuple[list[Variable], str | None, object, str | None] = ([], None, None, None)

    def show(self, variables: list[Variable], note: str | None = None, key: object = None,
             returned: str | None = None) -> None:
        """Replace the tree; nodes that were expanded before are asked for again. `key` names what the
        variables belong to (stop, thread, frame): the same variables for the same key are not re-rendered,
        nor the same ones for another key unless expanded nodes may show other children now. (While a frozen
        view is shown they are kept for `thaw()`.)"""
        self._live = (variables, note, key, returned)
        if self.frozen:
            return
        shown = (list(variables), note, returned)
        if shown == self._shown and (key == self._shown_key or not self.expanded_paths):
            self._shown_key = key
            return
        self._shown, self._shown_key = shown, key
        keep = self.expanded_paths
        self.clear()
        self.root.expand()
        if returned:  # after a step out of a method: what it returned (IntelliJ's "discount() returned 659")
            self.root.add_leaf(Text(LEAF_INDENT + "↩ " + returned, style="bold green"), data=VarNode(None, True))
        if note:
            self.root.add_leaf(Text(LEAF_INDENT + note, style="dim italic"), data=VarNode(None, True))
        self.add_variables(self.root, variables, start=0, total=None, reopen=keep)

    def show_frozen(self, fill: Callable[[TreeNode[VarNode]], None]) -> None:
        """A tree that is not the live program's (a capture's values), filled by `fill` under the root: its
        nodes hold no handle, so expanding one asks nothing of the core. Until `thaw()`."""
        self.frozen = True
        self._shown = self._shown_key = None
        self.clear()
        self.root.expand()
        fill(self.root)

    def thaw(self) -> None:
        """Back to the live values (the last ones shown or given meanwhile)."""
        self.frozen = False
        self._shown = self._shown_key = None
        self.show(*self._live)

    def add_variables(self, node: TreeNode[VarNode], variables: list[Variable], start: int,
                      total: int | None, parent_target: str | None = None,
                      reopen: set[tuple[str, ...]] | None = None) -> None:
        for var in variables:
            expandable = bool(var.value.expandable and var.value.handle)
            data = VarNode(var.value.handle if expandable else None, variable=var)
            if expandable:
                child = node.add(label_for(var), data=data, allow_expand=True)
                child.add_leaf(Text(LEAF_INDENT + "…", style="dim"), data=VarNode(None, True))
                if reopen and self._path(child) in reopen:
                    child.expand()
            else:
                node.add_leaf(Text(LEAF_INDENT) + label_for(var), data=data)
        shown = start + len(variables)
        if total is not None and shown < total:
            node.add_leaf(Text(f"{LEAF_INDENT}… {total - shown} more (enter to load)", style="dim italic"),
                          data=VarNode(None, False, next_start=shown, parent_target=parent_target))

    def fill(self, node: TreeNode[VarNode], variables: list[Variable], start: int, total: int | None,
             note: str | None = None) -> None:
        """Children of `node` arrived from the core (first page or a later one)."""
        if start == 0:
            node.remove_children()
        if note:
            node.add_leaf(Text(LEAF_INDENT + note, style="red"), data=VarNode(None, True))
        assert node.data is not None
        node.data.loaded = True
        self.add_variables(node, variables, start, total, parent_target=node.data.target,
                           reopen=self.expanded_paths)

    def _path(self, node: TreeNode[VarNode]) -> tuple[str, ...]:
        parts: list[str] = []
        while node is not None and node is not self.root:
            parts.append(str(node.label).split(" = ", 1)[0].strip())
            node = node.parent  # type: ignore[assignment]
        return tuple(reversed(parts))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[VarNode]) -> None:
        event.stop()
        data = event.node.data
        if data is None or data.target is None:
            return
        self.expanded_paths.add(self._path(event.node))
        if not data.loaded:
            self.post_message(self.ExpandRequested(self, event.node, data.target, 0))

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed[VarNode]) -> None:
        event.stop()
        self.expanded_paths.discard(self._path(event.node))

    def on_tree_node_selected(self, event: Tree.NodeSelected[VarNode]) -> None:
        event.stop()
        data = event.node.data
        if data and data.next_start is not None and data.parent_target and event.node.parent:
            parent = event.node.parent
            event.node.remove()
            self.post_message(self.ExpandRequested(self, parent, data.parent_target, data.next_start))
        elif data and data.variable is not None and not event.node.allow_expand:
            self.post_message(self.ValueRequested(data.variable))  # Enter on a value: see it whole

    def action_open_node(self) -> None:
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def action_close_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)

    def render_label(self, node: TreeNode[VarNode], base_style, style) -> Text:  # noqa: ANN001 - Tree's signature
        # A value wider than the pane ends in "…" at its edge (v or Enter shows it whole), not cut mid-character.
        text = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None and parent is not self.root:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        if room > 8 and text.cell_len > room:
            text.truncate(room, overflow="ellipsis")
        return text

    def on_resize(self) -> None:
        self.refresh()  # the labels are cut for the width: cut them again

    def action_show_value(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None and node.data.variable is not None:
            self.post_message(self.ValueRequested(node.data.variable))
