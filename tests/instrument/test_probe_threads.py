"""Stops of several threads at once, in-JVM and by round trip: each comes, once, and the program finishes.

DifferentialThreads runs worker-0..N-1 through work(t, i) at once; every stop is resumed as it comes (as an
agent does) until the program prints "gate 0" (every worker done). What each breakpoint must stop at follows
from the program alone, whatever the interleaving:

- in-JVM conditions with a hit rule, where threads stopped at one probe used to hang the JVM's debug agent
  (PopFrames of a thread while another popped one was still held: the agent's command thread waited forever);
- an in-JVM condition that throws: one stop per hit, never the same thread at the same hit twice;
- plain hit counts ">=N" and "%N" (the JVM's Count filter expires when it fires: hits of other threads were
  lost while it was set again).

A hang is rare per run: TRACEPILOT_THREAD_RUNS=N repeats each scenario N times (CI: once, more threads).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind

MAIN = "fixtures.DifferentialThreads"
THREADS, ROUNDS = 6, 24
RUNS = int(os.environ.get("TRACEPILOT_THREAD_RUNS", "1"))
FINISH = 40.0  # seconds for every worker to finish, stops included (a hang fails here, not at the timeout)


async def _stops(jvm_factory: Any, line_of: Any, in_jvm: bool, breakpoints: dict[str, dict[str, Any]],
                 ) -> tuple[dict[str, list[tuple[str, int]]], dict[str, int]]:
    """Run the program to its end, resuming every stop: per breakpoint name, the (thread, i) of each stop; and
    each breakpoint's hits."""
    gate = Path(tempfile.mkdtemp(prefix="tp-threads-"))
    jvm = jvm_factory("DifferentialThreads", str(THREADS), str(ROUNDS), str(gate))
    debugger = Debugger()
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await debugger.attach(jvm.address, timeout=10)
        names = {}
        for name, spec in breakpoints.items():
            line, rest = spec["at"], {k: v for k, v in spec.items() if k != "at"}
            names[(await debugger.breakpoint_set(f"{MAIN}:{line_of(line)}", **rest)).id] = name
        stops: dict[str, list[tuple[str, int]]] = {name: [] for name in breakpoints}
        deadline = time.monotonic() + FINISH
        result = await debugger.resume(timeout=0)
        while "gate 0" not in jvm.stdout_text():
            assert time.monotonic() < deadline, (
                f"the workers did not finish in {FINISH:g}s: a stop never came after {sum(map(len, stops.values()))} "
                f"stops ({debugger.session.state.value})")
            if not result.stopped:
                result = await debugger.wait_for_stop(timeout=0.05)
                continue
            stop = result.stop
            assert stop.kind is StopKind.BREAKPOINT, stop
            i = next(int(v.value.text) for v in await debugger.locals() if v.name == "i")
            stops[names[stop.breakpoint_id]].append((stop.thread_name, i))
            result = await debugger.resume(timeout=0)
        hits = {names[b.id]: b.hits for b in await debugger.breakpoint_list()}
        return stops, hits
    finally:
        await debugger.close()
        jvm.close()


def _each(predicate: Any) -> set[tuple[str, int]]:
    """The (thread, i) of every call of work(t, i) where predicate(t, i, v, sq) holds."""
    return {(f"worker-{t}", i) for t in range(THREADS) for i in range(ROUNDS)
            if predicate(t, i, t * 100 + i, (t * 100 + i) % 7)}


def _once_each(stops: list[tuple[str, int]]) -> set[tuple[str, int]]:
    repeated = [key for key, n in Counter(stops).items() if n > 1]
    assert not repeated, f"stopped more than once at the same hit: {repeated}"
    return set(stops)


@pytest.mark.timeout(60 + 45 * RUNS)
async def test_in_jvm_conditions_stop_every_thread_once_and_never_hang(jvm_factory, line_of) -> None:
    even = _each(lambda t, i, v, sq: v % 2 == 0)
    throws_or_holds = _each(lambda t, i, v, sq: i % 4 == 0 or sq > 10 // (i % 4))
    for _ in range(RUNS):
        stops, hits = await _stops(jvm_factory, line_of, True, {
            "ruled": {"at": "dt-sq", "condition": "v % 2 == 0", "hit_count": ">=5"},
            "throws": {"at": "dt-return", "condition": "sq > 10 / (i % 4)"},
        })
        assert hits == {"ruled": len(even), "throws": len(throws_or_holds)}
        assert len(stops["ruled"]) == len(even) - 4  # which 4 hits go by depends on the interleaving
        assert _once_each(stops["ruled"]) <= even
        assert _once_each(stops["throws"]) == throws_or_holds


@pytest.mark.timeout(60 + 45 * RUNS)
async def test_plain_hit_counts_count_every_threads_hits(jvm_factory, line_of) -> None:
    calls = THREADS * ROUNDS
    for _ in range(RUNS):
        stops, hits = await _stops(jvm_factory, line_of, False, {
            "from 5": {"at": "dt-sq", "hit_count": ">=5"},
            "every 4th": {"at": "dt-return", "hit_count": "%4"},
        })
        assert hits == {"from 5": calls, "every 4th": calls}
        assert {name: len(found) for name, found in stops.items()} == {"from 5": calls - 4, "every 4th": calls // 4}
        assert _once_each(stops["from 5"]) and _once_each(stops["every 4th"])
