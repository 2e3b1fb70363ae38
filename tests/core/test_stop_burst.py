"""A stop's reads sent in one burst with a guessed frame id (issue 32: resume -> stop, core/inspect/stop_burst.py),
on a real JVM: what a stop notes of its locals is what a fresh read finds, when the guess is right and when a
thread ran more than once since it was last seen (the guess is wrong: the values are read again)."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from _inspect_support import stop_at

from tracepilot.core.eager import run_eagerly
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
    result = await _stop(debugger)
    for _ in range(12):
        # The stopped thread alone runs on (the other stays suspended): it ran once since it was seen, so
        # its top frame id is guessed right. (A stop of the other thread that came meanwhile answers first.)
        await _noted_as_read(debugger, result)
        result = await _stop(debugger, result.stop.thread_name)
        if reads.guessed >= 2:
            break
    await _noted_as_read(debugger, result)
    assert reads.guessed >= 1, (reads.guessed, reads.missed)
    seen = {result.stop.thread_name}
    for _ in range(12):
        # All threads run; then the one that did not stop runs again alone: it ran twice since it was seen,
        # so the guess is a generation short (the JVM answers INVALID_FRAMEID; the values are read again).
        both = await _stop(debugger)
        await _noted_as_read(debugger, both)
        seen.add(both.stop.thread_name)
        if both.pending or len(seen) < 2:
            continue  # (the other thread's stop is the next answer, or it was never seen: no guess for it)
        other = next(name for name in seen if name != both.stop.thread_name)
        alone = await _stop(debugger, other)
        await _noted_as_read(debugger, alone)
        if reads.missed:
            break
    assert reads.missed >= 1, (reads.guessed, reads.missed)
    assert reads.values_taken >= reads.guessed


async def test_previews_read_ahead_show_the_object_as_it_is_at_this_stop(debugger, jvm_factory, line_of):
    # `p.counter++` each turn: the read of p's fields the last stop made is sent ahead with the burst and
    # taken by the same read at this stop; its reply is this stop's (the counter moved on), as a fresh read.
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "100000", "nosleep")
    reads = debugger.session.inspector.stop_reads
    shown = []
    for _ in range(4):
        result = await _stop(debugger)
        await _noted_as_read(debugger, result)
        shown.append(reads.noted[1]["p"])
    assert len(set(shown)) == 4, shown  # a new counter at every stop
    assert reads.values_taken >= 3, (reads.bursts, reads.values_taken)


async def test_a_call_cancelled_while_it_reads_a_stops_locals_leaves_them_read_for_the_others(
        debugger, jvm_factory, line_of):
    # The first call to wait for a stop's locals reads them in its own task (stop_reads.py); cancelled
    # meanwhile (a call given up), the reads start over in a task of their own, and whoever waits gets them.
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "100000", "nosleep")
    reads = debugger.session.inspector.stop_reads
    loop = asyncio.get_running_loop()
    cancelled_midway = 0
    for _ in range(10):
        result = await _stop(debugger)
        caller = run_eagerly(loop, reads.settled(), contextvars.copy_context())  # (before anything else runs)
        other = asyncio.ensure_future(reads.settled())
        await asyncio.sleep(0)
        if not caller.done():
            caller.cancel()
            with pytest.raises(asyncio.CancelledError):
                await caller
            cancelled_midway += 1
        await other
        assert reads.noted is not None and reads.noted[0] is result.stop
        await _noted_as_read(debugger, result)
        if cancelled_midway >= 2:
            break
    assert cancelled_midway >= 1
