"""A trace's answer as a call tree a person can fold and unfold: per call path the calls and, when the trace
measured them (in the JVM), the time; the methods below it, then the first calls per method with their
arguments and return values (in the JVM). The text answer stays in the console."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from ...core.model import CallNode, RecordedCall, TraceResult
from ...core.render.inspection import FIRST_CALLS_SHOWN, first_call

EXPANDED_DEPTH = 3  # levels open at first; deeper ones open with Enter / a click


def node_label(node: CallNode, timed: bool) -> Text:
    return plain(f"{node.method}  ×{node.calls:,}" + (f"  {node.total_ms:,.1f} ms" if timed else ""))


def plain(label: str) -> Text:
    """A label as it is: a str would be read as markup, losing `[main]` and the `[]` of `int[]`."""
    return Text(label)


def _add(parent: TreeNode, nodes: list[CallNode], timed: bool, depth: int) -> None:
    for node in nodes:
        if node.children:
            branch = parent.add(node_label(node, timed), expand=depth < EXPANDED_DEPTH)
            _add(branch, node.children, timed, depth + 1)
        else:
            parent.add_leaf(node_label(node, timed))


def _add_first_calls(parent: TreeNode, calls: list[RecordedCall]) -> None:
    """The first calls per method (the in-JVM trace records a few with their values). The branches holding
    the first FIRST_CALLS_SHOWN calls start open, the others folded: the text answer shows as many."""
    by_method: dict[str, list[RecordedCall]] = {}
    for c in calls:
        by_method.setdefault(c.method, []).append(c)
    section = parent.add(plain(f"first calls ({len(calls)}; values as at the end of the trace)"), expand=True)
    shown = 0
    for method, recorded in by_method.items():
        branch = section.add(plain(f"{method}  ({len(recorded)} recorded)"), expand=shown < FIRST_CALLS_SHOWN)
        shown += len(recorded)
        for c in recorded:
            branch.add_leaf(plain(first_call(c, qualified=False)))


def headline(t: TraceResult) -> str:
    how = t.mode + (f" ({t.mode_reason})" if t.mode_reason else "")
    return f"{t.pattern}: {t.calls:,} calls in {t.duration_ms / 1000:.2f}s, stopped by {t.stopped_by}; {how}"


class TraceScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TraceScreen { align: center middle; }
    #trace-box { width: 90%; height: 85%; border: round $accent; background: $surface; }
    #trace-about { height: auto; color: $text-muted; }
    #trace-tree { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, result: TraceResult) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        t = self.result
        timed = any(m.own_ms is not None for m in t.methods)
        with Vertical(id="trace-box") as box:
            box.border_title = "trace"
            box.border_subtitle = "Enter: open/close · Esc: close"
            about = [headline(t)] + [line for line in (t.note, t.timing) if line]
            yield Static("\n".join(about), id="trace-about", markup=False)
            tree: Tree[None] = Tree(plain(f"call tree of {t.busiest_thread or 'the busiest thread'}"), id="trace-tree")
            tree.root.expand()
            _add(tree.root, t.call_tree, timed, 0)
            methods = tree.root.add(plain(f"methods ({len(t.methods)})"), expand=False)
            for m in t.methods:
                own = f"  own {m.own_ms:,.1f} ms" if m.own_ms is not None else ""
                thrown = f"  {m.thrown} thrown out" if m.thrown else ""
                methods.add_leaf(plain(f"{m.method}  ×{m.calls:,}{own}{thrown}"))
            if t.first_calls:
                _add_first_calls(tree.root, t.first_calls)
            yield tree

    def on_mount(self) -> None:
        self.query_one("#trace-tree", Tree).focus()
