"""Scripted differential cases (issue 26's exactness rule) for what happens at one line: several breakpoints
on it, a step that ends at it, and the order of lines two logpoints log. Each script runs on two JVMs of the
deterministic Differential program, one debugger in-JVM, one `--no-instrument`; every answer must be the same."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind

MAIN = "fixtures.Differential"
SETTLE = 20.0


class Side:
    """One debugger on one JVM of the Differential program, as a user of one mode reads it."""

    def __init__(self, jvm_factory: Any, line_of: Any, root: Path, jdk: str, in_jvm: bool, rounds: int) -> None:
        self.gate_dir = Path(tempfile.mkdtemp(prefix="tp-lines-"))
        self.jvm = jvm_factory("Differential", str(rounds), "8", str(self.gate_dir), jdk=jdk)
        self.debugger = Debugger(sourcepath=[str(root)])
        self.debugger.session.breakpoints.in_jvm.enabled = in_jvm
        self.line_of = line_of
        self.answers: list[Any] = []
        self.gates = Gates(self.debugger, self.jvm, self.gate_dir, SETTLE, so_far=self.answers)

    def at(self, marker: str) -> str:
        return f"{MAIN}:{self.line_of(marker)}"

    async def stop_answer(self, result: Any) -> Any:
        stop = result.stop
        if stop is None or stop.kind is StopKind.VM_DEATH:
            return "exited"
        local = [(v.name, v.value.text) for v in await self.debugger.locals() if v.name in ("i", "w", "total")]
        return (stop.kind.value, stop.location.line if stop.location else None, stop.breakpoint_id,
                stop.hit_count, sorted(stop.also), stop.message, local)

    async def go(self) -> None:
        self.answers.append(await self.gates.go(self.stop_answer))
        await self.seen()

    async def step(self, kind: str = "over") -> None:
        result = await self.debugger.step(kind, timeout=SETTLE)
        self.answers.append(await self.stop_answer(result) if result.stopped else ("not stopped", result.message))
        await self.seen()

    async def seen(self) -> None:
        """What the user reads after each action: hits, and every line logged so far, in order."""
        self.answers.append([(b.id, b.hits) for b in await self.debugger.breakpoint_list()])
        self.answers.append(await self.logs())

    async def logs(self) -> list[tuple[Any, str, Any]]:
        return [(r.data.get("breakpoint"), r.text, r.data.get("thread_name"))
                for r in await self.debugger.events(kinds=["log"], limit=10_000)]

    async def to_the_end(self, last_gate: int | None = None) -> None:
        """On to the program's exit (or to its gate `last_gate`, where the program waits), then every line."""
        for _ in range(60):
            if self.answers and self.answers[-3] in ("exited", f"gate {last_gate}"):
                break
            await self.go()
        self.answers.append(await self.logs())


Script = Callable[[Side], Awaitable[None]]


async def _both(jvm_factory: Any, line_of: Any, root: Path, jdk: str, script: Script, rounds: int = 16) -> None:
    transcripts = []
    for in_jvm in (True, False):
        side = Side(jvm_factory, line_of, root, jdk, in_jvm, rounds)
        try:
            await side.debugger.attach(side.jvm.address, timeout=10)
            await script(side)
            transcripts.append(side.answers)
        finally:
            await side.debugger.close()
            side.jvm.close()
    mine, theirs = transcripts
    for n, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a == b, "\n".join(map(repr, mine[:n])) + f"\nanswer {n}:\nin-JVM:     {a!r}\nround trip: {b!r}"


@pytest.mark.timeout(60)
async def test_several_breakpoints_on_one_line_are_one_event(jvm_factory, line_of, java_source_root):
    """A logpoint, a condition and a plain breakpoint with a hit count on one line, a capture point and a
    logpoint on the next: by round trip one event each (one stop, the others in `also`, the line logged and
    captured before the stop). The others removed, the logpoint goes on alone, back in the JVM."""

    async def script(side: Side) -> None:
        d = side.debugger
        log = await d.breakpoint_set(side.at("diff-total"), log="i={i}")
        cond = await d.breakpoint_set(side.at("diff-total"), condition="i % 3 == 1")
        plain = await d.breakpoint_set(side.at("diff-total"), hit_count="%2")
        await d.breakpoint_set(side.at("diff-late"), capture=2, condition="i % 4 == 1")
        await d.breakpoint_set(side.at("diff-late"), log="total={total}")
        for _ in range(4):
            await side.go()
        modes = {b.id: b.mode for b in await d.breakpoint_list()}
        await d.breakpoint_remove(cond.id)
        for _ in range(3):
            await side.go()
        await d.breakpoint_remove(plain.id)  # the logpoint is alone on its line
        await side.to_the_end(last_gate=1)  # (not the exit: capture points there are another matter)
        if d.session.breakpoints.in_jvm.enabled:  # each says why it is on the round trip, then goes back
            assert all(mode.startswith("round trip (another breakpoint is on this line") for mode in modes.values() if mode), modes
            assert [b.mode for b in await d.breakpoint_list() if b.id == log.id] == ["in-JVM"]
        side.answers.append([(c.breakpoint_id, c.hit, [(v.name, re.sub(r"@\d+", "@", v.text)) for v in c.frames[0].locals or []])
                             for c in await d.captures(limit=100)])

    await _both(jvm_factory, line_of, java_source_root, "17", script)


@pytest.mark.timeout(60)
async def test_a_step_that_ends_at_an_in_jvm_line_fires_it_there(jvm_factory, line_of, java_source_root):
    """A step that ends at a line with a logpoint, a capture point or a condition: by round trip the step's
    event and the breakpoint's are one (the line logged and counted at the step's stop; a true condition makes
    it the breakpoint's stop)."""

    async def script(side: Side) -> None:
        d = side.debugger
        await d.breakpoint_set(side.at("diff-call"), hit_count="==2")
        await d.breakpoint_set(side.at("diff-total"), log="i={i} total={total}")
        await d.breakpoint_set(side.at("diff-late"), condition="i % 2 == 1")
        await d.breakpoint_set(side.at("diff-end"), capture=3)
        await side.go()  # the VM start -> diff-call, i=1
        for _ in range(4):  # diff-total (logged), diff-late (i=1: the condition's stop), diff-end (captured), main
            await side.step("over")
        await side.go()  # diff-late, i=3
        await side.step("out")
        await side.step("into")  # round(4): diff-name
        for _ in range(4):  # diff-call, diff-total (logged), diff-late (i=4: no stop), diff-end (captured)
            await side.step("over")
        # To the exit: the stop at diff-late (i=1) is a step's event that suspends all threads and a condition's,
        # one composite; it once held every thread once more than a resume released, and the program hung at
        # its exit (DestroyJavaVM starts suspended as often as the VM is).
        await side.to_the_end()
        side.answers.append([(c.breakpoint_id, c.hit, [(v.name, re.sub(r"@\d+", "@", v.text)) for v in c.frames[0].locals or []])
                             for c in await d.captures(limit=100)])

    await _both(jvm_factory, line_of, java_source_root, "17", script)


@pytest.mark.timeout(60)
async def test_lines_of_several_logpoints_are_in_the_order_logged(jvm_factory, line_of, java_source_root):
    """Two in-JVM logpoints on neighbouring lines and one by round trip (set while running, after its class
    loaded): the history holds every line in the order logged, one removed at a gate included."""

    async def script(side: Side) -> None:
        d = side.debugger
        await d.breakpoint_set(side.at("diff-name"), log="name {i}")
        second = await d.breakpoint_set(side.at("diff-total"), log="total {total}")
        await side.go()  # gate 0
        await d.breakpoint_set(side.at("diff-late"), log="i {i}")  # running: by round trip
        await side.go()  # gate 1
        await d.breakpoint_remove(second.id)
        await side.to_the_end()

    await _both(jvm_factory, line_of, java_source_root, "17", script, rounds=24)
