"""What the random differential test (test_differential.py) found, pinned as short scripts.

Each script is a fixed sequence of actions on tests/java/fixtures/Differential.java, run twice: once with
in-JVM mode on, once by round trip (`--no-instrument`). The two transcripts (every stop, every hit count,
every log line in order, every capture's hit number) must be the same; the round trip is the reference.
Each script is a divergence (or, once, a hang of both modes) a random run found, reduced; about 1 s each.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import StopKind

MAIN = "fixtures.Differential"
SETTLE = 20.0  # seconds an action may take to reach a stop, a gate or the end


def _where(loc: Any) -> Any:
    return None if loc is None else (loc.method, loc.line)


async def _transcript(jvm_factory: Any, line_of: Any, java_source_root: Path, jdk: str, in_jvm: bool,
                      script: list[tuple], rounds: int = 24, chunk: int = 8) -> list:
    """One script, one mode: what a user of either mode reads, answer by answer.

    Steps: ("set", line, options), ("update", bp, options), ("remove", bp), ("go",), ("run",), ("step", kind),
    ("evaluate", expression), ("set_value", name, value). Every step answers; "go" and "step" add the hits of every breakpoint. At the
    end: the program runs out; every log line, in order, per breakpoint; every capture with its hit number."""
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-diff-found-"))
    jvm = jvm_factory("Differential", str(rounds), str(chunk), str(gate_dir), jdk=jdk)
    debugger = Debugger(sourcepath=[str(java_source_root)])
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    answers: list = []
    gates = Gates(debugger, jvm, gate_dir, SETTLE)

    async def stop_answer(result: Any) -> Any:
        stop = result.stop
        if stop is None or stop.kind is StopKind.VM_DEATH:
            return "exited"
        if stop.kind is StopKind.VM_START:
            return "started"
        values = [(v.name, v.value.text) for v in await debugger.locals() if v.name in ("i", "w", "late")]
        return (stop.kind.value, _where(stop.location), stop.breakpoint_id, stop.hit_count, stop.message, values)

    async def go() -> Any:
        return await gates.go(stop_answer)

    async def hits() -> Any:
        return [(b.id, b.hits, b.enabled) for b in await debugger.breakpoint_list()]

    async def act(step: tuple) -> Any:
        kind, *args = step
        if kind == "set":
            line, options = args
            return (await debugger.breakpoint_set(f"{MAIN}:{line_of(line)}", **options)).id
        if kind == "update":
            info = await debugger.breakpoint_update(args[0], **args[1])
            return (info.id, info.condition, info.log, info.hit_count, info.hits)
        if kind == "remove":
            return await debugger.breakpoint_remove(args[0])
        if kind == "go":
            return (await go(), await hits())
        if kind == "run":  # as go, without reading the breakpoints (which reads what the JVM logged, captured)
            return await go()
        if kind == "step":
            result = await debugger.step(args[0], timeout=SETTLE)
            return (await stop_answer(result) if result.stopped else ("not stopped", result.message), await hits())
        if kind == "evaluate":
            value = await debugger.evaluate(args[0])
            return (value.type, value.text)
        if kind == "set_value":
            return getattr(await debugger.set_value(*args), "text", None)
        raise AssertionError(f"unknown step {step!r}")

    try:
        await debugger.attach(jvm.address, timeout=10)
        answers.append(await gates.settle(stop_answer))  # the VM start
        for step in script:
            try:
                answers.append((step, await act(step)))
            except DebuggerError as exc:
                answers.append((step, "error", exc.message))
            if answers[-1][1] == "exited" or answers[-1][1][0] == "exited":
                break
        for _ in range(100):  # run out: every breakpoint left goes on stopping
            if await go() == "exited":
                break
        lines: dict[str, list[str]] = {}
        for record in await debugger.events(kinds=["log"], limit=10_000):
            lines.setdefault(record.data.get("breakpoint"), []).append(record.text)
        captures = sorted((c.breakpoint_id, c.number, c.hit, [(v.name, v.text) for v in c.expressions])
                          for c in await debugger.captures(limit=10_000))
        return answers + [lines, captures]
    finally:
        await debugger.close()
        jvm.close()


def _compare(jvm_factory: Any, line_of: Any, java_source_root: Path, jdk: str, script: list[tuple],
             **program: int) -> None:
    loop = asyncio.new_event_loop()
    try:
        in_jvm, round_trip = (loop.run_until_complete(asyncio.wait_for(
            _transcript(jvm_factory, line_of, java_source_root, jdk, mode, script, **program), 60)) for mode in
            (True, False))
    finally:
        loop.close()
    for n, (mine, theirs) in enumerate(zip(in_jvm, round_trip, strict=True)):
        assert mine == theirs, f"answer {n}: in-JVM {mine!r}, round trip {theirs!r}"


@pytest.mark.timeout(60)
def test_a_conditional_logpoint_that_stops_on_an_error_logs_its_earlier_lines_first(
        jvm_factory, line_of, java_source_root, default_jdk):
    # `i / (i % 5)` throws at i=10 (its 7th hit): the logpoint logs i=10 and stops; i=8 and i=9 (the 5th and
    # 6th hits, the first its hit count lets by) were logged in the JVM before it.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("set", "diff-end", {"condition": "i / (i % 5) > 1", "log": "i={i}", "hit_count": ">=5"}),
        ("go",),
        ("go",),
    ], rounds=16)


@pytest.mark.timeout(60)
def test_a_done_capture_point_given_a_hit_count_counts_from_zero(jvm_factory, line_of, java_source_root,
                                                                  default_jdk):
    # The update resets the count: the captures taken before it, read after it, must not count again.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("go",),  # gate 0: set while running
        ("set", "diff-return", {"capture": 3}),
        ("run",),  # gate 1: its three captures taken in the JVM, not read yet
        ("update", "bp-1", {"hit_count": "%4"}),
        ("go",),
    ], rounds=16)


@pytest.mark.timeout(60)
def test_a_capture_point_with_a_hit_count_numbers_its_hits_as_the_round_trip(jvm_factory, line_of,
                                                                           java_source_root, default_jdk):
    # Captures at the 4th and 8th hit (every 4th), and at the 2nd, 4th and 6th hit whose condition holds.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("set", "diff-weigh", {"capture": 2, "hit_count": "%4", "expressions": ["i"]}),
        ("set", "diff-name", {"capture": 3, "condition": "i % 3 == 0", "hit_count": "%2", "expressions": ["i"]}),
        ("go",),  # gate 0
        ("go",),  # gate 1
    ], rounds=24)



@pytest.mark.timeout(60)
def test_a_condition_after_its_class_got_a_probe_reads_the_new_code(jvm_factory, line_of, java_source_root,
                                                                    default_jdk):
    # Set in round(), all three wait on the round trip until round() returns. Then diff-call's logpoint goes
    # into the class: the code below it moves by the probe call's length, and diff-late's code starts where
    # diff-end's did. `late` is a variable at diff-end, not at diff-late (declared there): diff-late's
    # condition (never compilable: a round trip's) must not read it through what diff-end's evaluation learnt.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("set", "diff-name", {"temporary": True}),
        ("go",),
        ("set", "diff-late", {"condition": "late > 3"}),
        ("set", "diff-call", {"log": "i={i}"}),
        ("set", "diff-end", {"condition": "late > 100"}),
        ("go",),  # diff-late: its condition fails (no `late` here yet)
        ("go",),  # diff-end's condition evaluated; round() returns, diff-call goes into the JVM
        ("go",),
    ], rounds=8)


@pytest.mark.timeout(60)
def test_a_step_that_ends_on_a_conditional_breakpoint_leaves_no_thread_suspended(jvm_factory, line_of,
                                                                                 java_source_root, default_jdk):
    # The step's event and the breakpoint's come as one (suspending every thread, for the step): the
    # breakpoint's condition, checked by the debugger (`late` is no variable there: never compiled), must not
    # suspend them all a second time, or they stay suspended (and the JVM cannot exit) after the next resume.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("set", "diff-call", {"temporary": True}),
        ("go",),
        ("set", "diff-return", {"condition": "late > 3", "temporary": True}),
        ("step", "into"),  # weigh:16
        ("step", "into"),
        ("step", "into"),
        ("step", "into"),  # the return: a step and the breakpoint (its condition error) at once
    ], rounds=8)


@pytest.mark.timeout(60)
def test_a_capture_point_set_at_a_stop_leaves_the_stopped_frame_readable(jvm_factory, line_of, java_source_root,
                                                                       default_jdk):
    # Stopped in round(), the first breakpoint of its class gone: a capture point set now may go into the JVM
    # under running threads' calls (they keep the old code), never under the stopped thread's frame, whose
    # locals would then have no names (obsolete code).
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("set", "diff-end", {"temporary": True}),
        ("go",),
        ("set", "diff-total", {"capture": 2}),
        ("evaluate", "i"),
        ("go",),
    ], rounds=8)



@pytest.mark.timeout(60)
def test_a_logpoint_that_becomes_a_plain_hit_count_stays_a_jdwp_count(jvm_factory, line_of, java_source_root,
                                                                     default_jdk):
    # Set while running (the round trip until its method returns), then its log cleared: a plain "==2" now,
    # counted by a JDWP Count filter (the hits after the second are never seen), never by a probe in the JVM.
    _compare(jvm_factory, line_of, java_source_root, default_jdk, [
        ("go",),  # gate 0
        ("set", "diff-end", {"log": "w={w}", "hit_count": "==2"}),
        ("update", "bp-1", {"log": ""}),
        ("go",),  # its second hit
        ("go",),
    ], rounds=16)
