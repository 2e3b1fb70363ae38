"""A flame graph (SVG) from folded stacks, with nothing to install: `python -m tracepilot.core.trace.flame
trace.folded > trace.svg`. FlameGraph's flamegraph.pl or speedscope draw richer ones from the same file; this
one is for the README and a quick look (each frame's width is its weight with its callees', hover for
numbers)."""

from __future__ import annotations

import hashlib
import sys
from html import escape

WIDTH = 1200
ROW = 18
FONT = 12
CHAR = 7.0  # px per character at FONT


class _Frame:
    def __init__(self, name: str) -> None:
        self.name = name
        self.value = 0
        self.children: dict[str, _Frame] = {}


def parse(lines: list[str]) -> _Frame:
    root = _Frame("all")
    for line in lines:
        line = line.strip()
        if not line or " " not in line:
            continue
        stack, weight = line.rsplit(" ", 1)
        value = int(float(weight))
        root.value += value
        node = root
        for name in stack.split(";"):
            node = node.children.setdefault(name, _Frame(name))
            node.value += value
    return root


def _color(name: str) -> str:
    h = hashlib.md5(name.encode()).digest()
    return f"rgb({205 + h[0] % 50},{80 + h[1] % 120},{h[2] % 60})"


def svg(lines: list[str], title: str = "trace", unit: str = "calls") -> str:
    root = parse(lines)
    depth = _depth(root)
    height = (depth + 2) * ROW + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="monospace" font-size="{FONT}">',
           '<rect width="100%" height="100%" fill="#fdfdf5"/>',
           f'<text x="{WIDTH / 2}" y="20" text-anchor="middle" font-size="16">{escape(title)}</text>']
    if root.value:
        _draw(root, 0.0, 0, WIDTH / root.value, root.value, unit, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _depth(node: _Frame) -> int:
    return 1 + max((_depth(c) for c in node.children.values()), default=0)


def _draw(node: _Frame, x: float, level: int, scale: float, total: int, unit: str, out: list[str]) -> None:
    w = node.value * scale
    if w < 0.5:
        return
    y = 30 + level * ROW
    share = 100 * node.value / total
    out.append(f'<g><title>{escape(node.name)}: {node.value:,} {unit} ({share:.1f}%)</title>'
               f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW - 1}" fill="{_color(node.name)}" rx="2"/>')
    fits = int((w - 6) / CHAR)
    if fits >= 3:
        text = node.name if len(node.name) <= fits else node.name[:fits - 2] + ".."
        out.append(f'<text x="{x + 3:.1f}" y="{y + ROW - 5}">{escape(text)}</text>')
    out.append("</g>")
    child_x = x
    for child in sorted(node.children.values(), key=lambda c: c.name):
        _draw(child, child_x, level + 1, scale, total, unit, out)
        child_x += child.value * scale


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tracepilot.core.trace.flame TRACE.folded > trace.svg", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        sys.stdout.write(svg(f.read().splitlines(), title=argv[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
