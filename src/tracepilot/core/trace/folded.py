"""The folded stack format: one line per call path, `thread;a.b(int);c.d() 123`, read by FlameGraph's
flamegraph.pl, speedscope and async-profiler's converters. The weight of a line is what that exact path did
itself (its calls, or its own time in microseconds): the tools add children into their parents."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from .tree import Key, Node, Trees


def _frame(text: str) -> str:
    # ';' separates frames and the last space the weight: neither may appear inside a frame.
    return text.replace(";", ",").replace(" ", "_")


def lines(trees: Trees, name: Callable[[Key], str], thread_name: Callable[[int], str],
          by: str = "calls") -> Iterator[str]:
    for thread in sorted(trees.roots, key=lambda t: -trees.per_thread.get(t, 0)):
        yield from _walk(trees.roots[thread], [_frame(thread_name(thread))], name, by)


def _walk(node: Node, path: list[str], name: Callable[[Key], str], by: str) -> Iterator[str]:
    for key, child in node.children.items():
        here = [*path, _frame(name(key))]
        if by == "calls":
            weight = child.calls
        else:  # own time in us: its total less its children's
            weight = round((child.total - sum(c.total for c in child.children.values())) / 1000)
        if weight > 0:
            yield f"{';'.join(here)} {weight}"
        yield from _walk(child, here, name, by)


def write(path: str, text_lines: list[str]) -> str:
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(f"{line}\n" for line in text_lines), encoding="utf-8")
    return str(target)
