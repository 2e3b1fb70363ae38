"""A scripted stand-in for the core `Debugger` (same method names, same result types) so the TUI's layout
and snapshots can be checked without a JVM and with fully deterministic content. The functional tests
use the real core against real JVMs."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from support.jvm import line_of, source_path_of
from tracepilot.core.errors import NotFound
from tracepilot.core.history import EventHistory
from tracepilot.core.model import (
    Actor,
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    FrameInfo,
    Inspection,
    OutputChunk,
    SessionState,
    Status,
    StopKind,
    StopReason,
    ThreadInfo,
    ValueView,
    Variable,
    WaitResult,
    WatchInfo,
    WatchSample,
)

CLASS = "fixtures.Playground"


class FakeDebugger:
    def __init__(self) -> None:
        self.history = EventHistory()
        self.path = source_path_of("Playground")
        self.line = line_of("loop-body")
        self.state = SessionState.STOPPED
        self.launched = True
        self.bps: list[BreakpointInfo] = []
        self.watch_list: list[WatchInfo] = []
        self.stdout = "playground started\niteration 0 result 1\niteration 1 result 3\n"
        self.i = 2
        self._changed = False
        self._add_initial_breakpoints()
        self.scripted_captures: list[Any] = []
        self.history.add("vm_start", "VM started (suspended)")
        self.history.add("breakpoint_set", "bp-1 at fixtures.Playground:" + str(self.line), Actor.PERSON)
        self.history.add("stop", self._stop().headline())

    # DebuggerApi's synchronous reads

    @property
    def current_stop(self) -> StopReason | None:
        return self._stop() if self.state is SessionState.STOPPED else None

    @property
    def sourcepath(self) -> list[str]:
        return [str(Path(self.path).parent)]

    read_only = False
    target = "127.0.0.1:5005"

    def _loc(self, line: int, method: str = "main") -> CodeLocation:
        return CodeLocation(CLASS, method, line, "Playground.java", str(self.path))

    def _add_initial_breakpoints(self) -> None:
        loop = self._loc(self.line)
        self.bps = [
            BreakpointInfo("bp-1", "line", f"Playground:{self.line}", verified=True, locations=[loop], hits=3),
            BreakpointInfo("bp-2", "line", f"Playground:{line_of('compute-body')}", verified=True,
                           locations=[self._loc(line_of("compute-body"), "compute")], condition="x > 5"),
            BreakpointInfo("bp-3", "line", f"Playground:{line_of('loop-print')}", enabled=False, verified=True,
                           locations=[self._loc(line_of("loop-print"))]),
            BreakpointInfo("bp-4", "line", f"Playground:{line_of('loop-static')}", verified=True,
                           locations=[self._loc(line_of("loop-static"))], log="static={staticCounter}"),
            BreakpointInfo("bp-5", "line", f"Playground:{line_of('worker-body')}", verified=False),
            BreakpointInfo("bp-6", "exception", "*", verified=True, caught=False, uncaught=True),
        ]

    def _stop(self) -> StopReason:
        return StopReason(StopKind.BREAKPOINT if self.line == line_of("loop-body") else StopKind.STEP, 1, "main",
                          self._loc(self.line), breakpoint_id="bp-1", hit_count=3, time=0.0)

    def on_target(self, name: str | None) -> Any:
        return contextlib.nullcontext()  # one target: the fake has nothing to choose

    async def targets_list(self) -> list[Any]:
        return []

    async def select_target(self, name: str, actor: Actor | None = None) -> Status:
        raise NotFound(f"no target named '{name}'")

    async def status(self) -> Status:
        return Status(self.state, "127.0.0.1:5005", None, self._stop() if self.state is SessionState.STOPPED else None,
                      len(self.bps), launched=self.launched)

    async def breakpoint_list(self) -> list[BreakpointInfo]:
        return list(self.bps)

    async def breakpoint_set(self, location: str, condition: str | None = None, hit_count: str | int | None = None,
                             log: str | None = None, thread: str | int | None = None, temporary: bool = False,
                             suspend: str = "all", after: str | None = None, enabled: bool = True,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        line = int(location.rpartition(":")[2])
        bp = BreakpointInfo(f"bp-{len(self.bps) + 1}", "line", location, verified=True, locations=[self._loc(line)])
        self.bps.append(bp)
        self.history.add("breakpoint_set", f"{bp.id} at {location}", Actor.PERSON)
        return bp

    async def breakpoint_remove(self, id: str, actor: Actor | None = None) -> list[str]:  # noqa: A002
        self.bps = [b for b in self.bps if b.id != id]
        self.history.add("breakpoint_removed", id, Actor.PERSON)
        return [id]

    async def breakpoint_update(self, id: str, actor: Actor | None = None, **options: Any) -> BreakpointInfo:  # noqa: A002
        bp = next(b for b in self.bps if b.id == id)
        for k, v in options.items():
            setattr(bp, k, v)
        self.history.add("breakpoint_updated", id, Actor.PERSON)
        return bp

    async def watches(self) -> Any:
        return list(self.watch_list)

    async def watch_add(self, expression: str, breakpoint: str | None = None, actor: Actor | None = None) -> Any:
        w = WatchInfo(f"w-{len(self.watch_list) + 1}", expression, value=ValueView("int", "4"),
                      history=[WatchSample("2", 0, 1), WatchSample("3", 0, 2), WatchSample("4", 0, 3)])
        self.watch_list.append(w)
        self.history.add("watch_add", expression, Actor.PERSON)
        return w

    async def watch_remove(self, id: str, actor: Actor | None = None) -> Any:  # noqa: A002
        self.watch_list = [w for w in self.watch_list if w.id != id]

    async def threads(self, include_system: bool = False, with_locks: bool = False) -> list[ThreadInfo]:
        return [ThreadInfo(1, "main", "main", "running", True, location=self._loc(self.line), current=True),
                ThreadInfo(22, "worker-1", "main", "sleeping", True, location=self._loc(line_of("worker-body"), "lambda$startWorker$0"))]

    async def stack(self, thread: str | int | None = None, start: int = 0, count: int = 20,
                    locals: bool = False) -> list[FrameInfo]:  # noqa: A002
        if thread == 22:
            return [FrameInfo(0, CodeLocation("java.lang.Thread", "sleep", -1, None), is_native=True, is_library=True),
                    FrameInfo(1, self._loc(line_of("worker-body"), "lambda$startWorker$0"))]
        return [FrameInfo(0, self._loc(self.line))]

    async def locals(self, frame: int = 0, thread: str | int | None = None) -> list[Variable]:
        p = ValueView("fixtures.Playground", "Playground{counter=2, name=\"playground\"}", "object", "@1", expandable=True)
        return [
            Variable("args", ValueView("java.lang.String[]", "String[0] []", "array", "@2", 0, True), "argument"),
            Variable("iterations", ValueView("int", "1000000")),
            Variable("doThrow", ValueView("boolean", "false")),
            Variable("sleep", ValueView("boolean", "true")),
            Variable("p", p),
            Variable("i", ValueView("int", str(self.i)), changed=self._changed),
        ]

    async def inspect(self, target: str, frame: int = 0, thread: str | int | None = None, start: int = 0,
                      count: int = 50) -> Any:
        if target != "@1":
            raise NotFound(f"no object {target}")
        return Inspection(target, ValueView("fixtures.Playground", "Playground", "object", "@1"), children=[
            Variable("counter", ValueView("int", "2"), "field"),
            Variable("name", ValueView("java.lang.String", '"playground"', "string", "@3"), "field"),
        ], total=2)

    async def step(self, kind: str = "over", thread: str | int | None = None, count: int = 1, timeout: float = 5.0,
                   actor: Actor | None = None) -> WaitResult:
        self.line += 1
        self._changed = True
        self.history.add("step", f"step {kind}", Actor.PERSON)
        self.history.add("stop", self._stop().headline())
        return WaitResult(True, self.state, self._stop(), 1)

    async def resume(self, thread: str | int | None = None, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        self.i += 1
        self.line = line_of("loop-body")
        self.history.add("resume", "resumed", Actor.PERSON)
        self.history.add("stop", self._stop().headline())
        return WaitResult(True, self.state, self._stop(), 1)

    async def source(self, location: str | None = None, context: int = 5) -> Any:
        raise NotFound("no source")

    async def classes(self, pattern: str = "*", members: bool = False) -> Any:
        return []

    async def output(self, stream: str = "both", since: int = 0) -> list[OutputChunk]:
        text = self.stdout if stream == "stdout" else ""
        return [OutputChunk(stream, text[since:], since, len(text))]

    async def close(self) -> None:
        self.state = SessionState.EXITED

    # Not scripted: the calls a test of the layout never makes answer that they are not there. (`snapshot`
    # and `restart` are left out: the TUI asks whether a debugger has them and takes another path without.)

    async def attach(self, address: str = "localhost:5005", timeout: float = 10.0, sourcepath: Sequence[str] = (),
                     actor: Actor | None = None, name: str | None = None) -> Status:
        raise NotFound("the fake debugger does not script attach")

    async def launch(self, main: str | None = None, classpath: str | Sequence[str] | None = None, jar: str | None = None,
                     source: str | None = None, args: Sequence[str] = (), jvm_args: Sequence[str] = (),
                     cwd: str | None = None, env: dict[str, str] | None = None, sourcepath: Sequence[str] = (),
                     suspend: bool = True, java: str | None = None, actor: Actor | None = None,
                     name: str | None = None) -> Status:
        raise NotFound("the fake debugger does not script launch")

    async def detach(self, terminate: bool = False, actor: Actor | None = None, keep_running: bool = False) -> Status:
        raise NotFound("the fake debugger does not script detach")

    async def reset(self, actor: Actor | None = None) -> Status:
        raise NotFound("the fake debugger does not script reset")

    async def diagnose(self) -> dict[str, Any]:
        raise NotFound("the fake debugger does not script diagnose")

    async def add_sourcepath(self, paths: Sequence[str]) -> list[str]:
        raise NotFound("the fake debugger does not script add_sourcepath")

    async def pause(self, thread: str | int | None = None, actor: Actor | None = None) -> WaitResult:
        raise NotFound("the fake debugger does not script pause")

    async def run_to(self, location: str, thread: str | int | None = None, timeout: float = 5.0,
                     actor: Actor | None = None) -> WaitResult:
        raise NotFound("the fake debugger does not script run_to")

    async def run_to_main(self, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        raise NotFound("the fake debugger does not script run_to_main")

    async def wait_for_stop(self, timeout: float = 5.0) -> WaitResult:
        raise NotFound("the fake debugger does not script wait_for_stop")

    async def thread_id(self, thread: str | int | None = None) -> int:
        raise NotFound("the fake debugger does not script thread_id")

    async def interrupt(self, thread: str | int | None = None, actor: Actor | None = None) -> str:
        raise NotFound("the fake debugger does not script interrupt")

    async def exception_break(self, exception: str = "*", caught: bool = True, uncaught: bool = True,
                              condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                              enabled: bool = True, capture: bool | int | None = None,
                              expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                              actor: Actor | None = None) -> BreakpointInfo:
        raise NotFound("the fake debugger does not script exception_break")

    async def watchpoint_set(self, field: str, access: bool = False, modify: bool = True, instance: str | None = None,
                             condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        raise NotFound("the fake debugger does not script watchpoint_set")

    async def method_break(self, method: str, on: str = "entry", condition: str | None = None, log: str | None = None,
                           thread: str | int | None = None, capture: bool | int | None = None,
                           expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                           actor: Actor | None = None) -> BreakpointInfo:
        raise NotFound("the fake debugger does not script method_break")

    async def captures(self, id: str | None = None, wait: float = 0.0, limit: int = 100,  # noqa: A002
                       since: int = 0) -> list[Any]:
        return [c for c in self.scripted_captures if c.seq > since][:limit]

    def script_capture(self) -> None:
        """One capture of a capture point in Playground.compute (for the frozen view's snapshot): a fixed local
        time, values with children, a cut list."""
        from tracepilot.core.capture.model import Capture, CapturedFrame, CapturedValue  # noqa: PLC0415

        def value(name: str, type_: str, text: str, kind: str = "primitive", children=(), cut=None) -> Any:  # noqa: ANN001
            return CapturedValue(name, type_, text, kind, list(children), cut)

        items = value("items", "java.util.ArrayList", "ArrayList(size=25)", "collection",
                      [value(f"[{k}]", "java.lang.String", f'"item-{k}"', "string") for k in range(20)],
                      cut="20 of 25 elements")
        this = value("this", CLASS, 'Playground{counter=7, name="playground"}', "object",
                     [value("counter", "int", "7"), value("name", "java.lang.String", '"playground"', "string"),
                      items])
        frames = [CapturedFrame(0, self._loc(line_of("compute-body"), "compute"),
                                [value("x", "int", "3"), this, value("doubled", "int", "6")]),
                  CapturedFrame(1, self._loc(line_of("loop-call")), [value("i", "int", "3")]),
                  CapturedFrame(2, CodeLocation("java.lang.Thread", "run", 1583, "Thread.java"), None)]
        at = time.mktime((2026, 1, 5, 10, 42, 7, 0, 0, -1)) + 0.125  # 10:42:07.125 in any time zone
        self.scripted_captures = [Capture(1, "bp-2", 1, at, 1, "main", 4, "in-JVM", frames,
                                          [value("items.size()", "int", "25")], took_ms=0.4)]

    async def events(self, since: int = 0, kinds: Sequence[str] | None = None, limit: int = 100) -> list[EventRecord]:
        raise NotFound("the fake debugger does not script events")

    async def trace(self, pattern: str, duration: float = 5.0, max_calls: int = 100_000,
                    actor: Actor | None = None, resume: bool = False, folded: str | None = None,
                    folded_by: str | None = None) -> Any:
        raise NotFound("the fake debugger does not script trace")

    async def evaluate(self, expression: str, frame: int = 0, thread: str | int | None = None,
                       actor: Actor | None = None) -> ValueView:
        raise NotFound("the fake debugger does not script evaluate")

    async def set_value(self, target: str, value: str, frame: int = 0, thread: str | int | None = None,
                        actor: Actor | None = None) -> ValueView:
        raise NotFound("the fake debugger does not script set_value")

    async def locks(self) -> Any:
        raise NotFound("the fake debugger does not script locks")

    async def heap(self, pattern: str) -> Any:
        raise NotFound("the fake debugger does not script heap")

    async def referrers(self, target: str, limit: int = 20) -> Any:
        raise NotFound("the fake debugger does not script referrers")

    async def mark(self, target: str, label: str, actor: Actor | None = None) -> Any:
        raise NotFound("the fake debugger does not script mark")

    async def unmark(self, label: str, actor: Actor | None = None) -> Any:
        raise NotFound("the fake debugger does not script unmark")

    async def marks(self) -> Any:
        raise NotFound("the fake debugger does not script marks")

    async def hotswap(self, path: str, since: float | None = None, actor: Actor | None = None) -> Any:
        raise NotFound("the fake debugger does not script hotswap")

    async def pop_frames(self, frame: int = 0, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        raise NotFound("the fake debugger does not script pop_frames")

    async def force_return(self, value: str, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        raise NotFound("the fake debugger does not script force_return")


def fake_app(**kwargs):
    from tracepilot.tui.app import TracepilotApp

    fake = FakeDebugger()
    app = TracepilotApp(fake, None, launched=True, sourcepath=[str(Path(fake.path).parent)], clock=False, **kwargs)
    app.animation_level = "none"  # the tab underline slides otherwise; snapshots must not catch it mid-way
    return app
