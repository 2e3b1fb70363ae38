"""Call trees per thread, aggregated by call path, and the trace answer built from them.

Both tracing paths fill the same structure: the round trip from JDWP events (round_trip.py), the
in-JVM path from the probe's counters read at the end (in_jvm.py). So the answer, the busiest thread's tree
and the folded output are written once, and the differential test compares like with like.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..model import CallNode, MethodStats

Key = tuple[int, int]  # (class id, method id) on the round trip; (0, method index) in the JVM

TREE_DEPTH_SHOWN = 12
TREE_CHILDREN_SHOWN = 15
METHODS_SHOWN = 50


class Node:
    __slots__ = ("calls", "total", "children")

    def __init__(self) -> None:
        self.calls = 0
        self.total = 0  # ns, in the JVM only
        self.children: dict[Key, Node] = {}


@dataclass
class Stat:
    calls: int = 0
    total: int = 0  # ns, calls that returned or threw (in the JVM)
    own: int = 0  # ns: total less the traced callees' time
    timed: int = 0  # calls whose time was measured (sampled leaves: fewer than calls)
    thrown: int = 0  # calls left by an exception
    sampled: bool = False  # some calls counted but not timed: their times are estimated from the timed ones
    untimed: bool = False  # in the JVM, a tiny leaf counted only: its time is in its callers' own time


@dataclass
class Trees:
    roots: dict[int, Node] = field(default_factory=dict)  # thread -> root of its tree
    stats: dict[Key, Stat] = field(default_factory=dict)
    per_thread: dict[int, int] = field(default_factory=dict)  # thread -> calls

    def busiest(self) -> int | None:
        return max(self.per_thread, key=lambda t: (self.per_thread[t], -t), default=None)

    def methods(self, name: Callable[[Key], str], timed: bool) -> list[MethodStats]:
        order = (lambda kv: (-kv[1].own, -kv[1].calls)) if timed else (lambda kv: (-kv[1].calls,))
        out = []
        for key, s in sorted(self.stats.items(), key=order)[:METHODS_SHOWN]:
            if timed and s.calls and not s.untimed:
                total, own = s.total, s.own  # already scaled per node (sampled calls stand for all)
                out.append(MethodStats(name(key), s.calls, round(total / 1e6, 3), round(total / s.calls / 1000, 4),
                                       own_ms=round(own / 1e6, 3), thrown=s.thrown,
                                       sampled=s.sampled))
            else:
                out.append(MethodStats(name(key), s.calls, 0.0, 0.0, own_ms=None, thrown=s.thrown))
        return out

    def tree(self, thread: int, name: Callable[[Key], str]) -> list[CallNode]:
        root = self.roots.get(thread)
        return _shown(root, name, 0) if root is not None else []


def _shown(node: Node, name: Callable[[Key], str], depth: int) -> list[CallNode]:
    if depth >= TREE_DEPTH_SHOWN:
        return []
    kids = sorted(node.children.items(), key=lambda kv: (-kv[1].total, -kv[1].calls))[:TREE_CHILDREN_SHOWN]
    return [CallNode(name(k), child.calls, round(child.total / 1e6, 3), _shown(child, name, depth + 1))
            for k, child in kids]
