"""Typing benchmark: what one key on the TUI's command line costs while the program is stopped (a person
typing feels every millisecond of it; so does every TUI test that types a command).

    .venv/bin/python benchmarks/bench_typing.py [--reps 3]

BenchTarget stopped at @bench:inspect (locals: map, text, args); the command line types, one key at a time,
a location (`stop at BenchTarget:NN`, completed from the class list) and an expression
(`print map.size() + text.length()`, completed from locals, fields and members). For each line and key:
  cpu      CPU time of this process (the app, the completion and the Textual pilot), ms per key
  wall     ms per key from the key event until the app is idle again (Textual's pilot.press)
  jdwp     JDWP requests sent per key (suggestions while typing; the first run of a line at a stop reads
           what completion needs once, the later runs find it kept)
  repaint  widgets repainted per key (the command line itself, plus whatever a key dirties)
Medians over --reps runs of each line.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(BENCH))

import run as suite  # noqa: E402  (benchmarks/run.py: JVM targets, javac, markers)

SIZE = (140, 40)


class Counters:
    """JDWP requests sent and widgets repainted, counted by wrapping the two methods from outside."""

    def __init__(self) -> None:
        from textual.widget import Widget

        from tracepilot.jdwp.connection import JdwpConnection

        self.jdwp = 0
        self.repaints = 0
        send, render = JdwpConnection.send_nowait, Widget.render_lines

        def counted_send(conn: Any, *args: Any, **kwargs: Any) -> Any:
            self.jdwp += 1
            return send(conn, *args, **kwargs)

        def counted_render(widget: Any, crop: Any) -> Any:
            self.repaints += 1
            return render(widget, crop)

        JdwpConnection.send_nowait = counted_send  # type: ignore[method-assign]
        Widget.render_lines = counted_render  # type: ignore[method-assign]


async def until(pilot: Any, condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out: {condition}")
        await pilot.pause(0.01)


async def type_line(pilot: Any, app: Any, counters: Counters, line: str) -> dict[str, float]:
    from tracepilot.tui.widgets.command_line import CommandLine

    command = app.query_one(CommandLine)
    command.value = ""
    command.focus()
    await pilot.pause(0.2)
    counters.jdwp = counters.repaints = 0
    cpu, wall = time.process_time(), time.monotonic()
    for key in line:
        await pilot.press(key)
    await app.workers.wait_for_complete()  # the last key's suggestion
    keys = len(line)
    figures = {"cpu": (time.process_time() - cpu) * 1000 / keys, "wall": (time.monotonic() - wall) * 1000 / keys,
               "jdwp": counters.jdwp / keys, "repaint": counters.repaints / keys}
    assert command.value == line, command.value
    return figures


async def main(ns: argparse.Namespace) -> None:
    from tracepilot.core.debugger import Debugger
    from tracepilot.core.model import SessionState
    from tracepilot.tui.app import TracepilotApp

    with tempfile.TemporaryDirectory(prefix="tp-bench-typing-") as tmp:
        classes = Path(tmp)
        suite.compile_all(classes)
        line = suite.markers()["inspect"]
        sourcepath = [str(BENCH / "java")]
        lines = {"location": f"stop at BenchTarget:{line}", "expression": "print map.size() + text.length()"}
        with suite.target(classes, "BenchTarget", "inspect", suspend=False) as t:
            debugger = Debugger(sourcepath=sourcepath)

            async def startup(app: Any) -> None:
                await app.debugger.attach(t.address, 10.0)

            app = TracepilotApp(debugger, startup, sourcepath=sourcepath, clock=False)
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.ready.is_set() and app.refreshes > 0)
                await debugger.breakpoint_set(f"BenchTarget:{line}")
                await until(pilot, lambda: app.view.status and app.view.status.state is SessionState.STOPPED
                            and app.view.variables)
                counters = Counters()
                print(f"per key, median of {ns.reps} runs: cpu ms, wall ms, JDWP requests, widgets repainted")
                for name, text in lines.items():
                    runs = [await type_line(pilot, app, counters, text) for _ in range(ns.reps)]
                    median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                    print(f"  {name:<10} ({len(text)} keys)  cpu {median['cpu']:5.1f}  wall {median['wall']:5.1f}  "
                          f"jdwp {median['jdwp']:4.1f} (first run {runs[0]['jdwp']:4.1f})  "
                          f"repaint {median['repaint']:4.1f}", flush=True)
                await debugger.detach(terminate=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
