"""A move into the JVM holds every thread: a refused one must ask the JVM for no more than it needs to refuse.

HeldInsideForever has a thread waiting inside the method, before the line, for good: a capture point set while it
runs tries to move at a round-trip hit and is refused each time ("a call running now could still reach the line"). Its
refusal was decided after reading the class through its loader, registering the capture, instrumenting and
reading every thread's frames three times, one request after another (140-290 ms of Jetty held per attempt).
Now the trial at the round-trip hit (one thread held) says which methods change; the move reads every
thread's frames once, pipelined, and refuses."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.instrument.jvm import LOADED_BEFORE, MAX_UPGRADES

pytestmark = pytest.mark.timeout(60)

ASKED_BY_A_REFUSAL = {"VirtualMachine.AllThreads", "ThreadReference.Frames", "ReferenceType.Methods"}


async def test_a_refused_move_reads_the_frames_once_and_nothing_else(jvm_factory, line_of) -> None:
    jvm = jvm_factory("fixtures.HeldInsideForever", suspend=False)
    await asyncio.to_thread(jvm.wait_for_output, "running", 20)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        in_jvm = d.session.breakpoints.in_jvm
        conn = d.session.conn
        moves: list[Counter[str]] = []
        during: list[Counter[str]] = []
        original_request, original_move = conn._request, in_jvm._move  # noqa: SLF001

        def counting(command, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            for counter in during:
                counter[command.name] += 1
            return original_request(command, *args, **kwargs)

        async def move(*args):  # noqa: ANN002, ANN202
            during.append(Counter())
            try:
                await original_move(*args)
            finally:
                moves.append(during.pop())

        conn._request = counting  # noqa: SLF001
        in_jvm._move = move  # noqa: SLF001
        bp = await d.breakpoint_set(f"fixtures.HeldInsideForever:{line_of('stuck-line')}", capture=30,
                                    capture_limits={"rate": 100_000})
        seen = 0
        while len(moves) < MAX_UPGRADES or in_jvm.upgrade_pending(in_jvm.tracker.by_id[bp.id]):
            found = await d.captures(bp.id, wait=10, since=seen)  # (each move follows a round-trip hit)
            assert found, (moves, bp.describe())
            seen = found[-1].seq
        mode = next(b for b in await d.breakpoint_list() if b.id == bp.id).mode
        assert mode == (f"round trip ({LOADED_BEFORE} and a call running now could still reach the line on the "
                        "original code, where no capture would take its hit)"), mode
        assert len(moves) == MAX_UPGRADES, moves
        for asked in moves:
            assert set(asked) <= ASKED_BY_A_REFUSAL, asked  # (no class read, no capture registered, no call)
            assert asked["VirtualMachine.AllThreads"] == 1 and asked["ReferenceType.Methods"] <= 1, asked
            threads = asked["ThreadReference.Frames"]
            assert threads >= 2, asked  # (main, the stuck one, the JVM's own: one Frames each, once)
        assert 0 < threads < 20, moves
    finally:
        await d.close()
