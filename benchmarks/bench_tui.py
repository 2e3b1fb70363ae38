"""TUI repaint benchmark: how long a stop takes to reach the screen, locally and in a `tracepilot watch`
watcher following another process's session over the share socket (issue 7: "stepping updates everything
in well under a second"; issue 9: "a stop in the host reaches a watcher's screen in well under 100 ms").

    .venv/bin/python benchmarks/bench_tui.py [--reps 20] [--only local,deep,big,watcher,footer] [--lines 20000]

Scenarios (real JVMs, Textual `run_test` at 140x40, headless):
  local    BenchTarget loop: F5 -> the breakpoint stop -> repainted (one small source file)
  deep     BenchTarget stack 20: a 20+-frame stack, 4 locals per frame
  big      two generated Java files of --lines lines each; the stops alternate between them, so every
           stop shows the other file (reading, highlighting)
  watcher  the session hosted by a child process (a Debugger published on the share socket, driven the
           way an agent drives it); the TUI is `tracepilot watch`'s WatchApp; the child resumes
  footer   the footer's cost: --reps rounds of F10, three pane keys (2 3 1) and F5 back to the loop's
           breakpoint, each action waited for; footer recomposes per action and the app's CPU per round,
           against a reference run in the same process with Textual's own Footer (which recomposes on every
           "bindings changed" signal of the screen)

For every stop the figures are measured from the stop (the time of its history record in the process
that owns the JDWP connection) to the first frame the app writes to its (headless) terminal after a pane
got the new content:
  status   the status bar shows the new stop
  source   the source pane shows the current line of the stop (the right file)
  frame0   ... and the stack pane shows frame 0 of the stop and the variables pane its locals
  all      the refresh finished (threads, breakpoints, watches too; panes whose content did not change
           are not re-rendered, so this is the later of "frame0 on screen" and "the last answer handled")
`resume->frame0` adds the JVM's own way from the resume to the stop. Medians and maxima over --reps.
The script only reads the app's widgets from outside (wrapping a few of their methods), so it runs
unchanged against older versions of the TUI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(BENCH))

import run as suite  # noqa: E402  (benchmarks/run.py: JVM targets, javac, markers)

SIZE = (140, 40)
PHASES = ("status", "source", "frame0", "all")


# --- generated big sources --------------------------------------------------------------------------


def big_sources(dest: Path, lines: int) -> dict[str, int]:
    """BigA.java and BigB.java, `lines` lines each (filler methods); BigA.main calls BigB.work forever.
    Returns the line of each breakpoint ("a", "b")."""
    filler = max(0, (lines - 40) // 6)

    def methods(prefix: str) -> list[str]:
        out = []
        for i in range(filler):
            out += [f"    static int {prefix}{i}(int x) {{",
                    f"        int y = x * {i % 97} + {i};  // filler \"{i}\"",
                    "        return y > 1000 ? y - 1000 : y + 1;",
                    "    }", ""]
        return out

    a = ["public class BigA {", "    static long sink;", "",
         "    public static void main(String[] args) throws Exception {",
         "        for (long i = 0; ; i++) {",
         "            sink += BigB.work(i); // @break:a",
         "        }", "    }", "", *methods("a"), "}"]
    b = ["public class BigB {", "    static long work(long i) {",
         "        long r = i * 3; // @break:b",
         "        return r;", "    }", "", *methods("b"), "}"]
    (dest / "BigA.java").write_text("\n".join(a) + "\n")
    (dest / "BigB.java").write_text("\n".join(b) + "\n")
    subprocess.run([suite.tool("javac"), "-g", "-d", str(dest), str(dest / "BigA.java"), str(dest / "BigB.java")],
                   check=True)
    return {"a": a.index("            sink += BigB.work(i); // @break:a") + 1,
            "b": b.index("        long r = i * 3; // @break:b") + 1}


# --- probes on the app's widgets ----------------------------------------------------------------------


@dataclass
class Probe:
    """Timestamps (time.time()) of what the panes were given and of the frames written to the terminal."""

    status: list[tuple[float, float | None]] = field(default_factory=list)  # (t, stop.time)
    source: list[tuple[float, str | None, int | None]] = field(default_factory=list)  # (t, file name, line)
    stack: list[tuple[float, str | None, int | None]] = field(default_factory=list)  # (t, method, line) of frame 0
    variables: list[tuple[float, int]] = field(default_factory=list)
    refreshes: list[float] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)  # terminal writes

    def clear(self) -> None:
        for name in ("status", "source", "stack", "variables", "refreshes", "frames"):
            getattr(self, name).clear()


def install_probe(app: Any) -> Probe:
    from tracepilot.tui.widgets.source import SourceView
    from tracepilot.tui.widgets.stack import StackPane
    from tracepilot.tui.widgets.status import StatusBar
    from tracepilot.tui.widgets.variables import VariablesPane

    probe = Probe()

    def wrap(cls: type, name: str, record: Any) -> None:
        original = getattr(cls, name)
        if getattr(original, "_bench_wrapped", False):
            original = original._bench_original  # noqa: SLF001

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            record(self)
            return result

        wrapper._bench_wrapped = True  # type: ignore[attr-defined]
        wrapper._bench_original = original  # type: ignore[attr-defined]
        setattr(cls, name, wrapper)

    def status(bar: Any) -> None:
        stop = bar.status.stop if bar.status is not None else None
        probe.status.append((time.time(), stop.time if stop else None))

    def source(view: Any) -> None:
        probe.source.append((time.time(), view.path.name if view.path else None, view.current_line))

    def stack(pane: Any) -> None:
        frames = getattr(pane, "_frames", [])
        top = frames[0].location if frames else None
        probe.stack.append((time.time(), top.method if top else None, top.line if top else None))

    def variables(pane: Any) -> None:
        probe.variables.append((time.time(), pane_rows(pane)))

    wrap(StatusBar, "show", status)
    wrap(SourceView, "_changed", source)
    wrap(SourceView, "show", source)  # (a newer source pane skips _changed when nothing changed)
    wrap(StackPane, "show", stack)
    wrap(VariablesPane, "show", variables)

    display = app._display  # noqa: SLF001

    def displayed(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            probe.frames.append(time.time())
        display(screen, renderable)

    app._display = displayed  # noqa: SLF001
    return probe


def pane_rows(pane: Any) -> int:
    with contextlib.suppress(Exception):
        return len(pane.root.children)
    return 0


def first(rows: list[tuple], since: float, ok: Any) -> float | None:
    for row in rows:
        if row[0] >= since and ok(row):
            return row[0]
    return None


def on_screen(probe: Probe, t: float | None) -> float | None:
    """The first terminal write at or after `t` (the moment that content became visible)."""
    if t is None:
        return None
    return next((f for f in probe.frames if f >= t), None)


@dataclass
class Expect:
    file: str
    line: int
    method: str


class Figures:
    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {p: [] for p in (*PHASES, "resume->frame0")}

    def add(self, name: str, seconds: float) -> None:
        self.values[name].append(seconds)

    def line(self, label: str) -> str:
        cells = []
        for name, values in self.values.items():
            if values:
                cells.append(f"{name} {1000 * statistics.median(values):6.1f} / {1000 * max(values):6.1f}")
        return f"{label:<8} " + "  ".join(cells)


async def measure_stop(pilot: Any, app: Any, probe: Probe, stop: tuple[float, float], resumed_at: float,
                       expect: Expect, figures: Figures, refreshes_before: int, timeout: float = 30.0) -> None:
    """`stop`: the time of the stop's history record and the StopReason's own `time` (which identifies it)."""
    stop_time, reason_time = stop
    deadline = time.monotonic() + timeout
    marks: dict[str, float | None] = dict.fromkeys(PHASES)
    while True:
        marks["status"] = first(probe.status, stop_time, lambda r: r[1] == reason_time)
        marks["source"] = first(probe.source, stop_time, lambda r: r[1] == expect.file and r[2] == expect.line)
        stack = first(probe.stack, stop_time, lambda r: r[1] == expect.method and r[2] == expect.line)
        variables = first(probe.variables, stop_time, lambda r: r[1] > 0)
        marks["frame0"] = max(marks["source"], stack, variables) if None not in (
            marks["source"], stack, variables) else None
        if marks["frame0"] is not None and app.refreshes > refreshes_before and not app.refresher.pending:
            with contextlib.suppress(Exception):
                await app.workers.wait_for_complete()
            marks["all"] = max(marks["frame0"], probe.refreshes[-1] if probe.refreshes else marks["frame0"])
            while on_screen(probe, marks["frame0"]) is None:  # the frame that shows it
                if time.monotonic() > deadline:
                    raise RuntimeError("no frame written after the update")
                await asyncio.sleep(0.001)
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"the stop never reached the screen: {marks}, {expect}; source {probe.source[-3:]}, "
                               f"stack {probe.stack[-3:]}, variables {probe.variables[-3:]}")
        await asyncio.sleep(0)
    # The refresh's last answers may change nothing visible (unchanged panes are not re-rendered): "all" is
    # when the refresh finished, or when frame 0 was on screen if that was later.
    marks["all"] = max(on_screen(probe, marks["frame0"]), marks["all"])  # type: ignore[type-var]
    if os.environ.get("BENCH_TUI_DEBUG"):
        rel = {k: round(1000 * (t - stop_time), 1) for k, t in marks.items() if t}
        frames = [round(1000 * (f - stop_time), 1) for f in probe.frames if f > resumed_at]
        print(f"  updates {rel}; resumed {1000 * (resumed_at - stop_time):.1f}; frames {frames}")
    for name in PHASES:
        shown = on_screen(probe, marks[name]) if name != "all" else marks["all"]
        if shown is None:
            raise RuntimeError(f"{name}: no frame written after the update")
        figures.add(name, shown - stop_time)
    figures.add("resume->frame0", on_screen(probe, marks["frame0"]) - resumed_at)  # type: ignore[operator]


def watch_refreshes(app: Any, probe: Probe) -> None:
    """Record the time of every finished refresh (the app counts them in `refreshes`)."""
    cls = type(app)
    if "refreshes" in cls.__dict__ and isinstance(cls.__dict__["refreshes"], property):
        return

    def get(self: Any) -> int:
        return self.__dict__.get("_bench_refreshes", 0)

    def set_(self: Any, value: int) -> None:
        self.__dict__["_bench_refreshes"] = value
        if value:
            probe.refreshes.append(time.time())

    app.__dict__["_bench_refreshes"] = app.__dict__.pop("refreshes", 0)
    type(app).refreshes = property(get, set_)


# --- scenarios ------------------------------------------------------------------------------------------


async def until(pilot: Any, condition: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out: {condition}")
        await pilot.pause(0.01)


async def settle(pilot: Any, app: Any) -> None:
    await until(pilot, lambda: not app.refresher.pending)
    with contextlib.suppress(Exception):
        await app.workers.wait_for_complete()
    await pilot.pause(0.05)


async def local(classes: Path, sourcepath: list[str], main: str, args: list[str], breaks: list[tuple[str, Expect]],
                reps: int) -> Figures:
    """A TUI owning the JDWP connection: F5, the stop, the repaint."""
    from tracepilot.core.debugger import Debugger
    from tracepilot.core.model import SessionState
    from tracepilot.tui.app import TracepilotApp

    figures = Figures()
    with suite.target(classes, main, *args, suspend=False) as t:
        d = Debugger(sourcepath=sourcepath)

        async def startup(app: Any) -> None:
            await app.debugger.attach(t.address, 10.0)

        app = TracepilotApp(d, startup, sourcepath=sourcepath, clock=False)
        async with app.run_test(size=SIZE) as pilot:
            probe = install_probe(app)
            watch_refreshes(app, probe)
            await until(pilot, lambda: app.ready.is_set() and app.refreshes > 0)
            for spec, _ in breaks:
                await d.breakpoint_set(spec)
            await until(pilot, lambda: app.view.status and app.view.status.state is SessionState.STOPPED)
            for rep in range(reps + 2):  # two warm-up stops (first highlight of each file)
                await settle(pilot, app)
                probe.clear()
                seq, before = d.history.last_seq, app.refreshes
                resumed_at = time.time()
                app.action_resume()
                record = await next_stop(d.history, seq)
                expect = expectation(record, breaks)
                if rep >= 2:
                    await measure_stop(pilot, app, probe, stop_of(record), resumed_at, expect, figures, before)
                else:
                    await measure_stop(pilot, app, probe, stop_of(record), resumed_at, expect, Figures(), before)
            await d.detach(terminate=True)
    return figures


async def next_stop(history: Any, seq: int, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        for record in history.since(seq):
            if record.kind == "stop":
                return record
        if time.monotonic() > deadline:
            raise RuntimeError("no stop")
        await asyncio.sleep(0.001)


def stop_of(record: Any) -> tuple[float, float]:
    return record.time, record.data["stop"]["time"]


def expectation(record: Any, breaks: list[tuple[str, Expect]]) -> Expect:
    location = (record.data.get("stop") or {}).get("location") or {}
    line = location.get("line")
    for _, expect in breaks:
        if expect.line == line:
            return expect
    raise RuntimeError(f"unexpected stop {record.text}")


async def watcher(classes: Path, sourcepath: list[str], main: str, args: list[str],
                  breaks: list[tuple[str, Expect]], reps: int) -> Figures:
    """`tracepilot watch` on a session a child process hosts and drives (the way an agent's server does)."""
    from tracepilot.core.model import Actor
    from tracepilot.share.client import RemoteDebugger
    from tracepilot.tui.watch import WatchApp

    figures = Figures()
    with suite.target(classes, main, *args, suspend=False) as t:
        child = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--host-child", t.address, "--sourcepath", *sourcepath, "--breaks",
            *[spec for spec, _ in breaks], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=suite._py_env())  # noqa: SLF001
        assert child.stdin and child.stdout
        try:
            hello = json.loads(await child.stdout.readline())
            remote = await RemoteDebugger.join(hello["session"], actor=Actor.PERSON)
            app = WatchApp(remote, clock=False)
            async with app.run_test(size=SIZE) as pilot:
                probe = install_probe(app)
                watch_refreshes(app, probe)
                await until(pilot, lambda: app.ready.is_set() and app.refreshes > 0)
                for rep in range(reps + 2):
                    await settle(pilot, app)
                    probe.clear()
                    before = app.refreshes
                    resumed_at = time.time()
                    child.stdin.write(b"resume\n")
                    await child.stdin.drain()
                    reply = json.loads(await child.stdout.readline())  # the host's stop (its own clock)
                    expect = next(e for _, e in breaks if e.line == reply["line"])
                    await measure_stop(pilot, app, probe, (reply["stop_time"], reply["reason_time"]), resumed_at, expect,
                                       figures if rep >= 2 else Figures(), before)
            await remote.close()
        finally:
            with contextlib.suppress(Exception):
                child.stdin.close()
            try:
                await asyncio.wait_for(child.wait(), 15)
            except TimeoutError:
                child.kill()
                await child.wait()
    return figures


async def host_child(address: str, sourcepath: list[str], breaks: list[str]) -> None:
    """The other process: owns the JDWP connection, publishes it, resumes when told (stdin)."""
    from tracepilot.core.debugger import Debugger
    from tracepilot.core.model import Actor
    from tracepilot.share.host import SessionHost

    d = Debugger(sourcepath=sourcepath, default_actor=Actor.AGENT)
    await d.attach(address, 10.0)
    host = SessionHost(d, "bench")
    await host.start()
    await host.wait_started()
    for spec in breaks:
        await d.breakpoint_set(spec)
    out = sys.stdout
    out.write(json.dumps({"session": host.info.id}) + "\n")
    out.flush()
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while (await reader.readline()).strip() == b"resume":
            seq = d.history.last_seq
            await d.resume(None, 10.0)
            record = await next_stop(d.history, seq)
            out.write(json.dumps({"stop_time": record.time, "reason_time": record.data["stop"]["time"],
                                  "line": record.data["stop"]["location"]["line"]}) + "\n")
            out.flush()
    finally:
        await host.close()
        with contextlib.suppress(Exception):
            await d.detach(terminate=True)


async def footer_session(classes: Path, sourcepath: list[str], breaks: list[tuple[str, Expect]], reps: int,
                         textual_footer: bool) -> dict[str, float]:
    """One TUI session of `reps` rounds (F10, 2, 3, 1, F5); `textual_footer`: the app composes Textual's own
    Footer (the reference). Returns footer recomposes per action and CPU seconds per round."""
    from textual.widgets import Footer

    import tracepilot.tui.app as app_module
    from tracepilot.core.debugger import Debugger
    from tracepilot.core.model import SessionState
    from tracepilot.tui.app import TracepilotApp

    recomposes = [0]
    original = Footer.recompose

    async def counted(self: Any) -> None:
        recomposes[0] += 1
        await original(self)

    Footer.recompose = counted  # (a KeysFooter recomposes through it too)
    ours = getattr(app_module, "KeysFooter", None)
    if textual_footer and ours is not None:
        app_module.KeysFooter = Footer
    try:
        with suite.target(classes, "BenchTarget", "loop", suspend=False) as t:
            d = Debugger(sourcepath=sourcepath)

            async def startup(app: Any) -> None:
                await app.debugger.attach(t.address, 10.0)

            app = TracepilotApp(d, startup, sourcepath=sourcepath, clock=False)
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.ready.is_set() and app.refreshes > 0)
                for spec, _ in breaks:
                    await d.breakpoint_set(spec)
                await until(pilot, lambda: app.view.status and app.view.status.state is SessionState.STOPPED)
                await settle(pilot, app)
                counts = dict.fromkeys(("f10", "2", "3", "1", "f5"), 0)
                cpu = time.process_time()
                for rep in range(reps + 1):  # (a warm-up round first: code paths used the first time)
                    if rep == 1:
                        counts = dict.fromkeys(counts, 0)
                        cpu = time.process_time()
                    for key in counts:
                        before, seq = recomposes[0], d.history.last_seq
                        await pilot.press(key)
                        if key.startswith("f"):
                            await next_stop(d.history, seq)
                        await settle(pilot, app)
                        counts[key] += recomposes[0] - before
                cpu = time.process_time() - cpu
                await d.detach(terminate=True)
    finally:
        Footer.recompose = original
        if ours is not None:
            app_module.KeysFooter = ours
    return {**{key: n / reps for key, n in counts.items()}, "cpu": cpu / reps}


async def footer(classes: Path, sourcepath: list[str], breaks: list[tuple[str, Expect]], reps: int) -> str:
    ours = await footer_session(classes, sourcepath, breaks, reps, textual_footer=False)
    reference = await footer_session(classes, sourcepath, breaks, reps, textual_footer=True)

    def row(label: str, figures: dict[str, float]) -> str:
        per_key = "  ".join(f"{key} {n:.1f}" for key, n in figures.items() if key != "cpu")
        return f"  {label:<9} recomposes per action: {per_key};  CPU per round {1000 * figures['cpu']:6.1f} ms"

    return "\n".join(["footer", row("Textual", reference), row("ours", ours),
                      f"  ratio     CPU per round ours/Textual {ours['cpu'] / reference['cpu']:.2f}"])


# --- main -----------------------------------------------------------------------------------------------


async def main(ns: argparse.Namespace) -> None:
    chosen = ns.only.split(",")
    with tempfile.TemporaryDirectory(prefix="tp-bench-tui-") as tmp:
        classes = Path(tmp) / "classes"
        big = Path(tmp) / "big"
        classes.mkdir()
        big.mkdir()
        suite.compile_all(classes)
        marks = suite.markers()
        java = str(BENCH / "java")
        loop = [(f"BenchTarget:{marks['loop']}", Expect("BenchTarget.java", marks["loop"], "main"))]
        deep = [(f"BenchTarget:{marks['stack']}", Expect("BenchTarget.java", marks["stack"], "recurse"))]
        lines = big_sources(big, ns.lines) if "big" in chosen else {}
        print(f"ms from the stop to the screen, median / max of {ns.reps} stops "
              f"(resume->frame0 includes the JVM's way to the stop)")
        for name in chosen:
            if name == "local":
                figures = await local(classes, [java], "BenchTarget", ["loop"], loop, ns.reps)
            elif name == "deep":
                figures = await local(classes, [java], "BenchTarget", ["stack", "20"], deep, ns.reps)
            elif name == "big":
                breaks = [(f"BigA:{lines['a']}", Expect("BigA.java", lines["a"], "main")),
                          (f"BigB:{lines['b']}", Expect("BigB.java", lines["b"], "work"))]
                figures = await local(big, [str(big)], "BigA", [], breaks, ns.reps)
                name = f"big({ns.lines // 1000}k)"
            elif name == "watcher":
                figures = await watcher(classes, [java], "BenchTarget", ["loop"], loop, ns.reps)
            elif name == "footer":
                print(await footer(classes, [java], loop, ns.reps), flush=True)
                continue
            else:
                raise SystemExit(f"unknown scenario {name}")
            print(figures.line(name), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--only", default="local,deep,big,watcher,footer")
    parser.add_argument("--lines", type=int, default=20000, help="lines of each generated file (big)")
    parser.add_argument("--host-child", help=argparse.SUPPRESS)
    parser.add_argument("--sourcepath", nargs="*", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--breaks", nargs="*", default=[], help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.host_child:
        asyncio.run(host_child(ns.host_child, ns.sourcepath, ns.breaks))
    else:
        private = tempfile.mkdtemp(prefix="tp-bench-")  # a registry of its own: never lists real sessions
        os.environ["TRACEPILOT_SHARE_DIR"] = private
        try:
            asyncio.run(main(ns))
        finally:
            with contextlib.suppress(OSError):
                os.rmdir(private)
