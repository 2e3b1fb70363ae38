"""The dependency-free flame graph of folded stacks (README's picture): widths follow the weights."""

from __future__ import annotations

import re

from tracepilot.core.trace.flame import WIDTH, parse, svg

LINES = ["main;a;b 30", "main;a 10", "main;c 60", "worker;a;b 100"]


def test_weights_add_up_along_paths():
    root = parse(LINES)
    assert root.value == 200
    main = root.children["main"]
    assert main.value == 100 and main.children["a"].value == 40 and main.children["a"].children["b"].value == 30


def test_svg_draws_each_frame_with_its_share_of_the_width():
    drawn = svg(LINES, title="t")
    widths = {m.group(1): float(m.group(2)) for m in re.finditer(
        r"<title>([^:]+): [^<]*</title><rect x=\"[\d.]+\" y=\"\d+\" width=\"([\d.]+)\"", drawn)}
    assert widths["all"] == WIDTH and widths["main"] == WIDTH / 2 and widths["c"] == WIDTH * 60 / 200
    assert drawn.startswith("<svg") and drawn.rstrip().endswith("</svg>")
