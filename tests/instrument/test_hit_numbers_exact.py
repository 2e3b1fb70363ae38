"""Hit numbers of in-JVM breakpoints are the round trip's (--no-instrument), with several threads and at the end.

- Several threads hit one line at once (PacedThreads). A hit the probe lets by stops with its own number
  (`hit N`), the one the probe counted it as, whatever other threads counted before the debugger heard of it;
  by round trip each event is numbered as it is counted. (The probe's count read at the event, and the
  breakpoint's count read at the stop, had moved on: "==3" stopped as hit 5, two stops said the same number.)
- The hits a probe counted that the debugger never heard of (a hit rule that did not let them by) are read
  when the program exits, the breakpoint is disabled or the debugger detaches: breakpoint_list after the end
  says the round trip's hits.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates
from tracepilot.core.debugger import Debugger

THREADS, ROUNDS = 4, 300
pytestmark = pytest.mark.timeout(90)


async def _numbers(jvm_factory: Any, line_of: Any, in_jvm: bool) -> list:
    """Each breakpoint's stops' hit numbers (sorted: which thread comes first varies), its hits at the gate
    (every worker done) and after the program ended."""
    main = "fixtures.PacedThreads"
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-hitexact-"))
    jvm = jvm_factory("PacedThreads", str(THREADS), str(ROUNDS), str(gate_dir))
    debugger = Debugger()
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    answers: list = []
    gates = Gates(debugger, jvm, gate_dir, so_far=answers)

    async def stop_answer(result: Any) -> Any:
        return (result.stop.breakpoint_id, result.stop.hit_count)

    async def hits() -> list:
        return [(b.id, b.hits) for b in await debugger.breakpoint_list()]

    try:
        await debugger.attach(jvm.address, timeout=10)
        # The 3rd true hit stops, every thread's later ones are counted in the JVM.
        await debugger.breakpoint_set(f"{main}:{line_of('paced-step')}", condition="v >= 0", hit_count="==3")
        # Every 100th true hit stops (600 of them, 6 stops).
        await debugger.breakpoint_set(f"{main}:{line_of('paced-sq')}", condition="i % 2 == 0", hit_count="%100")
        # No hit rule: every true hit stops (20), numbered by the debugger as it hears of it.
        await debugger.breakpoint_set(f"{main}:{line_of('paced-return')}", condition="i % 60 == 0")
        # A condition that throws (every even i) is a hit too: every 150th stops, an error or not.
        await debugger.breakpoint_set(f"{main}:{line_of('paced-end')}", condition="10 / (i % 2) > 2", hit_count="%150")
        stops: dict[str, list[int]] = {}
        result = await debugger.resume(timeout=0)  # (attached stopped: the VM's start)
        while True:  # every stop as it comes: a resume may answer with the next (another thread's)
            if not result.stopped:
                answer = await gates.settle(stop_answer)
                if not isinstance(answer, tuple):
                    break
            else:
                answer = await stop_answer(result)
            stops.setdefault(answer[0], []).append(answer[1])
            result = await debugger.resume(timeout=0)
        answers += [answer, sorted((bp, sorted(numbers)) for bp, numbers in stops.items()), await hits()]
        answers += [await gates.go(stop_answer), await hits()]
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_several_threads_stop_with_their_own_hit_numbers(jvm_factory, line_of) -> None:
    in_jvm = await _numbers(jvm_factory, line_of, in_jvm=True)
    round_trip = await _numbers(jvm_factory, line_of, in_jvm=False)
    calls = THREADS * ROUNDS
    hits = [("bp-1", calls), ("bp-2", calls // 2), ("bp-3", calls // 60), ("bp-4", calls)]
    assert round_trip == ["gate 0", [("bp-1", [3]), ("bp-2", list(range(100, calls // 2 + 1, 100))),
                                     ("bp-3", list(range(1, calls // 60 + 1))),
                                     ("bp-4", list(range(150, calls + 1, 150)))], hits, "exited", hits], round_trip
    assert in_jvm == round_trip


async def _hits_at_the_end(jvm_factory: Any, line_of: Any, java_source_root: Path, in_jvm: bool) -> list:
    """Differential (one thread): stops and gates as they come, nobody reading the breakpoints until the
    program ended; then every breakpoint's hits."""
    main = "fixtures.Differential"
    answers: list = []
    gates = Gates.started(jvm_factory, java_source_root, in_jvm, so_far=answers)
    debugger, jvm = gates.debugger, gates.jvm

    async def stop_answer(result: Any) -> Any:
        return (result.stop.breakpoint_id, result.stop.hit_count)

    try:
        await debugger.attach(jvm.address, timeout=10)
        at = {name: f"{main}:{line_of(name)}" for name in ("diff-total", "diff-end", "diff-name", "diff-weigh")}
        await debugger.breakpoint_set(at["diff-total"], condition="i > 1", hit_count="==2")  # then 20 unheard of
        await debugger.breakpoint_set(at["diff-end"], condition="i % 2 == 0", hit_count="%5")  # stops at 5, 10
        await debugger.breakpoint_set(at["diff-name"], condition="i >= 0", hit_count=">=30")  # never stops
        await debugger.breakpoint_set(at["diff-weigh"], condition="i >= 0", hit_count="==100")  # disabled at 16
        answers.append(await gates.go(stop_answer))  # (attached stopped: the VM's start)
        while answers[-1] != "exited":
            if answers[-1] == "gate 1":
                answers.append((await debugger.breakpoint_update("bp-4", enabled=False)).enabled)
            answers.append(await gates.go(stop_answer))
        answers.append([(b.id, b.hits) for b in await debugger.breakpoint_list()])
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_hits_counted_in_the_jvm_are_read_at_exit_and_disable(jvm_factory, line_of, java_source_root) -> None:
    in_jvm = await _hits_at_the_end(jvm_factory, line_of, java_source_root, in_jvm=True)
    round_trip = await _hits_at_the_end(jvm_factory, line_of, java_source_root, in_jvm=False)
    assert round_trip[-1] == [("bp-1", 22), ("bp-2", 12), ("bp-3", 24), ("bp-4", 16)], round_trip
    assert in_jvm == round_trip
