"""Regenerate the README's screenshots (screenshots/*.svg) from the real TUI on the bundled demo.

    .venv/bin/python scripts/screenshots.py

Runs `tracepilot demo --break ShopDemo:<discount line>` headless (Textual's run_test), stops at the
breakpoint, adds a watch, expands a variable, and saves one SVG per screen. Needs java and javac.

PNG versions (for viewers that show no SVG) are rendered with cairosvg, with the text set in a local
monospace font: Rich's SVG places every run of text on a fixed cell grid and names a web font (Fira Code)
that offline renderers lack; their proportional fallback overflows the grid (rsvg-convert from Debian
collapses the spacing the same way). cairosvg is a tool for this script, not a dependency of tracepilot:

    .venv/bin/pip install cairosvg        # or: --png-python /path/to/a/python/with/cairosvg
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
DEMO = ROOT / "src" / "tracepilot" / "demo" / "ShopDemo.java"


def demo_line(marker: str) -> int:
    for number, line in enumerate(DEMO.read_text().splitlines(), 1):
        if f"// @demo:{marker}" in line:
            return number
    raise SystemExit(f"marker @demo:{marker} not found in {DEMO}")


async def wait_for(pilot, condition, timeout: float = 30.0, what: str = "") -> None:
    from textual.worker import WorkerCancelled  # noqa: PLC0415

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        with contextlib.suppress(WorkerCancelled):  # a refresh superseded by a newer one
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


async def settle(pilot) -> None:
    from textual.widgets import DataTable  # noqa: PLC0415
    from textual.worker import WorkerCancelled  # noqa: PLC0415

    with contextlib.suppress(WorkerCancelled):  # a refresh superseded by a newer one
        await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.3)
    await wait_for(pilot, lambda: not any(t._require_update_dimensions for t in pilot.app.query(DataTable)),
                   what="tables laid out")


async def shoot(size: tuple[int, int], shots: list[str]) -> None:
    from tracepilot.core.model import SessionState  # noqa: PLC0415
    from tracepilot.tui.entry import build  # noqa: PLC0415
    from tracepilot.tui.widgets.source import SourceView  # noqa: PLC0415
    from tracepilot.tui.widgets.variables import VariablesPane  # noqa: PLC0415

    ns = argparse.Namespace(command="demo", breaks=[f"ShopDemo:{demo_line('discount')}"], sourcepath=[],
                            read_only=False, redact=False, no_stop_on_uncaught=False)
    app = build(ns)
    app.clock = False
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: app.view.status is not None and app.view.status.state is SessionState.STOPPED
                       and app.view.status.stop and app.view.status.stop.breakpoint_id is not None
                       and app.view.frames, what="the demo's first stop")
        await app.debugger.watch_add("order.items.size()")
        await app.debugger.watch_add("subtotal / 100")
        app.refresher.schedule()
        await wait_for(pilot, lambda: len(app.view.watches) == 2, what="watches")
        app.query_one(SourceView).focus()
        await settle(pilot)

        def save(name: str) -> None:
            app.save_screenshot(f"{name}.svg", str(OUT))
            print(f"screenshots/{name}.svg")

        if "main" in shots:
            save("main")
        if "small" in shots:
            save("small-80x24")
        if "variables" in shots:
            tree = app.query_one(VariablesPane)
            node = next(n for n in tree.root.children if str(n.label).strip().startswith("order ="))
            node.expand()
            await wait_for(pilot, lambda: len(node.children) > 1, what="fields of order")
            items = next((n for n in node.children if str(n.label).strip().startswith("items")), None)
            if items is not None:
                items.expand()
                await wait_for(pilot, lambda: len(items.children) > 1, what="items")
            tree.focus()
            tree.move_cursor(node)
            await settle(pilot)
            save("variables")
        if "breakpoints" in shots:
            app.query_one("#tabs").active = "tab-breakpoints"
            await settle(pilot)
            save("breakpoints")
        if "help" in shots:
            await pilot.press("f1")
            await settle(pilot)
            save("help")
            await pilot.press("escape")
        if "returned" in shots:  # step out of discount(): what it returned, in the status bar and the variables
            app.query_one("#tabs").active = "tab-console"
            app.query_one(SourceView).focus()
            await pilot.press("shift+f11")
            await wait_for(pilot, lambda: app.view.status is not None and app.view.status.stop is not None
                           and getattr(app.view.status.stop, "returned_from", None) == "discount"
                           and app.view.frames and app.view.variables, what="the step out of discount()")
            await settle(pilot)
            save("returned")
        await app.debugger.close()


MONOSPACE = "DejaVu Sans Mono"  # Debian's fonts-dejavu-core: box drawing and arrows included
# Run by the Python that has cairosvg: SVG in, PNG out, the web font swapped for a local one.
TO_PNG = """
import re, sys, cairosvg
svg, png, font = sys.argv[1:4]
text = re.sub(r'font-family:[^;"]*', 'font-family: ' + font, open(svg, encoding='utf-8').read())
cairosvg.svg2png(bytestring=text.encode('utf-8'), write_to=png)
"""


def to_png(python: str) -> None:
    probe = subprocess.run([python, "-c", "import cairosvg"], capture_output=True)
    if probe.returncode != 0:
        print("PNG skipped: cairosvg is not importable by " + python + " (.venv/bin/pip install cairosvg, or "
              "--png-python PYTHON)")
        return
    for svg in sorted(OUT.glob("*.svg")):
        png = svg.with_suffix(".png")
        subprocess.run([python, "-c", TO_PNG, str(svg), str(png), MONOSPACE], check=True)
        print(f"screenshots/{png.name}")


def main() -> int:
    parser = argparse.ArgumentParser(description="Regenerate screenshots/*.svg and *.png from the demo.")
    parser.add_argument("--png-python", default=sys.executable,
                        help="a Python with cairosvg for the PNG versions (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    OUT.mkdir(exist_ok=True)
    asyncio.run(shoot((150, 44), ["main", "variables", "breakpoints", "help", "returned"]))
    asyncio.run(shoot((80, 24), ["small"]))
    for svg in OUT.glob("*.svg"):  # the port of the demo JVM changes every run
        svg.write_text(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", svg.read_text()))
    to_png(args.png_python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
