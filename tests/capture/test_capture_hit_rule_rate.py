"""A capture point with a hit count whose rate limit skips the hits the rule lets by answers alike in the JVM and
by round trip (--no-instrument): the same hits counted, the same captures with the same hit numbers, the same
skipped count. By round trip a hit count alone (`==N`) is the JVM's Count filter: the debugger hears of hit N
only, and counts it (hits=N) whether the rate limit lets it be captured or not; the probe in the JVM counts it
and skips it in take(), where the debugger heard of neither. `%N` and `>=N` alone count every hit in both."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates

MAIN = "fixtures.Differential"
SLOW = {"rate": 0.02}  # one capture, then none for 50 s: every later hit the rule lets by is skipped

pytestmark = pytest.mark.timeout(90)


async def _transcript(jvm_factory: Any, line_of: Any, java_source_root: Path, in_jvm: bool) -> list:
    answers: list = []
    gates = Gates.started(jvm_factory, java_source_root, in_jvm, so_far=answers)
    debugger, jvm = gates.debugger, gates.jvm

    async def stop_answer(result: Any) -> Any:
        return (result.stop.kind.value, result.stop.breakpoint_id)

    async def listed() -> list:
        return [(b.id, b.hit_count, b.hits) + ((b.capture.taken, b.capture.skipped, b.capture.done) if b.capture
                                                else ()) for b in await debugger.breakpoint_list()]

    try:
        await debugger.attach(jvm.address, timeout=10)
        # bp-1: a hit count alone (round trip: a Count filter): its 2nd hit captured; the rule anew at a stop
        # (updated in the JVM: its 2nd hit skipped there), then anew while running (by round trip until it
        # moves: its 2nd hit skipped by the debugger, after the JVM took the capture).
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-end')}", hit_count="==2", capture=5,
                                      capture_limits=SLOW)
        # bp-2: every 3rd hit, counted hit by hit in both modes: the 1st captured, the others skipped.
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-total')}", hit_count="%3", capture=5,
                                      capture_limits=SLOW)
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-gate')}")  # bp-3: a stop before each gate
        # bp-4: from the 5th hit on, two captures (no rate limit to speak of): done at hit 6, counted no more.
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-weigh')}", hit_count=">=5", capture=2)
        updates = {"stop 1": "==2", "gate 1": "==2"}
        stops = 0
        answers.append(await gates.go(stop_answer))  # (attached stopped: the VM's start)
        while answers[-1] != "exited":
            if isinstance(answers[-1], tuple) and answers[-1][1] == "bp-3":
                stops += 1
                answers[-1] = f"stop {stops}"
            answers.append(await listed())
            if answers[-2] in updates:  # (a new rule counts from 0 again)
                await debugger.breakpoint_update("bp-1", hit_count=updates[answers[-2]])
            answers.append(await gates.go(stop_answer))
        answers.append(await listed())
        answers.append([(c.breakpoint_id, c.number, c.hit, c.skipped,
                         [(v.name, v.text) for v in c.frames[0].locals if v.name in ("i", "w", "late")])
                        for c in await debugger.captures(limit=100)])
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_a_hit_count_under_the_rate_limit_counts_alike_in_the_jvm_and_by_round_trip(
        jvm_factory, line_of, java_source_root) -> None:
    in_jvm = await _transcript(jvm_factory, line_of, java_source_root, in_jvm=True)
    round_trip = await _transcript(jvm_factory, line_of, java_source_root, in_jvm=False)
    for n, (mine, theirs) in enumerate(zip(in_jvm, round_trip, strict=True)):
        assert mine == theirs, f"answer {n}: in-JVM {mine!r}, round trip {theirs!r}"
    listed = round_trip[-2]
    assert "stop 3" in round_trip and "gate 2" in round_trip, round_trip
    assert listed[0][2:5] == (2, 1, 2), round_trip  # bp-1: ==2 (captured), ==2 anew twice (skipped: hits=2)
    assert listed[1][2:5] == (24, 1, 7), round_trip  # bp-2: %3 over 24 hits: 8 let by, the first captured
    assert listed[3][2:6] == (6, 2, 0, True), round_trip
    assert [(c[0], c[2]) for c in round_trip[-1]] == [("bp-1", 2), ("bp-2", 3), ("bp-4", 5), ("bp-4", 6)], \
        round_trip


async def _skipped_before(jvm_factory: Any, line_of: Any, java_source_root: Path, in_jvm: bool) -> list:
    """Hits skipped, then a capture once the rate limit let one by again, read from the ring at one go."""
    answers: list = []
    gates = Gates.started(jvm_factory, java_source_root, in_jvm, so_far=answers, args=("16", "8"))
    debugger, jvm = gates.debugger, gates.jvm

    async def stop_answer(result: Any) -> Any:
        return (result.stop.kind.value, result.stop.breakpoint_id)

    try:
        await debugger.attach(jvm.address, timeout=10)
        # Every 2nd hit, one capture a second: hit 2 captured, 4 6 8 skipped; the refill at the gate; 10 captured.
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-name')}", hit_count="%2", capture=3,
                                      capture_limits={"rate": 1})
        # No hit rule: hit 1 captured, 2-8 skipped, 9 captured (its number counts the skipped ones).
        await debugger.breakpoint_set(f"{MAIN}:{line_of('diff-total')}", capture=3, capture_limits={"rate": 1})
        answers.append(await gates.go(stop_answer))  # (attached stopped: the VM's start)
        while answers[-1] != "exited":
            if answers[-1] == "gate 0":  # nobody asks meanwhile: the JVM's captures wait in its ring
                await asyncio.sleep(1.2)  # (the rate limit's refill: time is what it counts)
            answers.append(await gates.go(stop_answer))
        answers.append([(c.breakpoint_id, c.number, c.hit, c.skipped) for c in await debugger.captures(limit=100)])
        answers.append([(b.id, b.hits, b.capture.taken, b.capture.skipped) for b in await debugger.breakpoint_list()])
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_a_capture_says_the_hits_skipped_before_it_in_the_jvm_as_by_round_trip(
        jvm_factory, line_of, java_source_root) -> None:
    in_jvm = await _skipped_before(jvm_factory, line_of, java_source_root, in_jvm=True)
    round_trip = await _skipped_before(jvm_factory, line_of, java_source_root, in_jvm=False)
    assert in_jvm == round_trip
    assert round_trip[-2:] == [[("bp-2", 1, 1, 0), ("bp-1", 1, 2, 0), ("bp-2", 2, 9, 7), ("bp-1", 2, 10, 3)],
                               [("bp-1", 16, 2, 6), ("bp-2", 16, 2, 14)]], round_trip
