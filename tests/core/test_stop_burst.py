"""A stop's reads sent in one burst with a guessed frame id (issue 32: resume -> stop, core/inspect/stop_burst.py),
on a real JVM: what a stop notes of its locals is what a fresh read finds, when the guess is right and when a
thread ran more than once since it was last seen (the guess is wrong: the values are read again)."""

from __future__ import annotations

import pytest

from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(90)


async def _stop(debugger, thread=None):
    result = await debugger.resume(thread, timeout=20)
    if result.stopped and result.stop.kind is StopKind.VM_START:
        result = await debugger.resume(thread, timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()
    return result


async def _noted_as_read(debugger, result) -> None:
    """What the stop noted of its top frame's locals equals a fresh read of them (values and previews)."""
    reads = debugger.session.inspector.stop_reads
    await reads.settled()
    assert reads.noted is not None and reads.noted[0] is result.stop, "the stop's locals were not noted"
    fresh = {v.name: v.value.text for v in await debugger.locals(0, result.stop.thread_id)}
    assert reads.noted[1] == fresh


async def test_locals_from_the_burst_equal_a_fresh_read_whether_the_frame_id_guess_holds_or_not(
        debugger, jvm_factory, line_of):
    jvm = jvm_factory("Crowd", "2", "100000")
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"fixtures.Crowd:{line_of('crowd-enter')}")  # suspend all
    reads = debugger.session.inspector.stop_reads
    first = await _stop(debugger)
    x = first.stop.thread_name
    y = "crowd-1" if x == "crowd-0" else "crowd-0"
    await _noted_as_read(debugger, first)
    for _ in range(3):  # x alone runs once between its stops: its next top frame id is guessed right
        await _noted_as_read(debugger, await _stop(debugger, x))
    assert reads.guessed >= 1 and reads.missed == 0, (reads.guessed, reads.missed)
    await _noted_as_read(debugger, await _stop(debugger, y))  # y seen once
    for _ in range(5):
        # Every thread runs on a resume of all; the one that did not stop then runs again alone: it ran twice
        # since it was seen, so the guess is one generation short (INVALID_FRAMEID: read again).
        both = await _stop(debugger)
        await _noted_as_read(debugger, both)
        if both.pending:
            continue  # (both stopped at once: the other one's stop is the next answer, not a second run)
        other = y if both.stop.thread_name == x else x
        await _noted_as_read(debugger, await _stop(debugger, other))
        if reads.missed:
            break
    assert reads.missed >= 1, (reads.guessed, reads.missed)
    assert reads.values_taken >= reads.guessed >= 1
