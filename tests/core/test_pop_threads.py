"""pop_frames with several threads held: the JDWP agent of JDK 17 and 25 hung (its command thread never answered
again) on PopFrames of one thread while another popped thread was still in its pop code. Popping the frames
of the thread at a breakpoint several threads hit, resuming, popping again: a hang came within a few hundred
rounds. Each pop parks its thread outside the agent's code first (instrument/pops.py), held as before.

TRACEPILOT_POP_ROUNDS=N runs more rounds (a hang is a race: one round in a few hundred).
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind
from tracepilot.jdwp import ThreadReference

MAIN = "fixtures.PopThreads"
THREADS = 4
ROUNDS = int(os.environ.get("TRACEPILOT_POP_ROUNDS", "600"))
POP_WAIT = 10.0  # seconds: a pop answers in milliseconds; one that does not hung the agent


async def _bounded(call, what: str):
    try:
        return await asyncio.wait_for(call, POP_WAIT)
    except TimeoutError:
        pytest.fail(f"{what} did not answer in {POP_WAIT:g}s: the JDWP agent hung (PopFrames while another popped "
                    "thread was held in its pop code)")


async def _pop(debugger: Debugger, thread: str | None = None):
    return await _bounded(debugger.pop_frames(0, thread=thread), "pop_frames")


async def _attached(jvm_factory, line_of, jdk: str, suspend: str) -> tuple[Debugger, object]:
    jvm = jvm_factory("PopThreads", str(THREADS), jdk=jdk)
    debugger = Debugger()
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"{MAIN}:{line_of('pt-step')}", suspend=suspend)
    return debugger, jvm


async def _next_stop(debugger: Debugger):
    result = await _bounded(debugger.resume(timeout=5), "resume")
    while result.stopped and result.stop.kind is StopKind.VM_START:
        result = await _bounded(debugger.resume(timeout=5), "resume")
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()
    return result.stop


async def _closed(debugger: Debugger) -> None:
    """Closed; a hung agent answers nothing, not even the detach: the JVM is killed with its fixture."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(debugger.close(), 5)


@pytest.mark.timeout(60 + ROUNDS // 10)
async def test_popping_threads_that_stop_at_one_breakpoint_never_hangs(jvm_factory, line_of, jdk) -> None:
    debugger, _jvm = await _attached(jvm_factory, line_of, jdk, "all")
    try:
        seen = set()
        for _ in range(ROUNDS):
            stop = await _next_stop(debugger)  # (another thread's stop may have come with the last pop)
            seen.add(stop.thread_name)
            popped = await _pop(debugger)
            assert (popped.location.method, popped.location.line) == ("work", line_of("pt-call")), popped.message
        assert len(seen) > 1, f"one thread only stopped in {ROUNDS} rounds: {seen}"
        stack = await debugger.stack()
        assert (stack[0].location.method, stack[0].location.line) == ("work", line_of("pt-call"))
        # No suspension lost or left over by the parking: without the breakpoint, each resume lets go of one
        # stop, and then every thread runs.
        await debugger.breakpoint_remove("all")
        while (await debugger.resume(timeout=0.5)).stopped:
            pass
        vm = debugger.session.require_vm()
        for t in await debugger.threads():
            if t.name.startswith("popper-"):
                assert (await vm.send(ThreadReference.SuspendCount, t.id)).suspend_count == 0, t.description
    finally:
        await _closed(debugger)


@pytest.mark.timeout(60)
async def test_popping_two_threads_held_by_their_own_stops(jvm_factory, line_of) -> None:
    debugger, _jvm = await _attached(jvm_factory, line_of, "17", "thread")
    try:
        first = (await _next_stop(debugger)).thread_name
        result = await debugger.wait_for_stop(timeout=15)
        while result.stopped and result.stop.thread_name == first:
            result = await debugger.wait_for_stop(timeout=15)
        assert result.stopped, result.headline()
        second = result.stop.thread_name
        for name in (first, second):
            popped = await _pop(debugger, name)
            assert popped.thread == name and popped.location.line == line_of("pt-call"), popped.message
        # The first one resumed alone re-runs its call and stops in step() again; the second stays popped.
        result = await debugger.resume(thread=first, timeout=15)
        while result.stopped and result.stop.thread_name != first:
            result = await debugger.wait_for_stop(timeout=15)
        assert result.stopped and result.stop.location.line == line_of("pt-step"), result.headline()
        top = (await debugger.stack(thread=second))[0].location
        assert (top.method, top.line) == ("work", line_of("pt-call"))
        popped = await _pop(debugger, first)  # popped again while the second one stands popped
        assert popped.location.line == line_of("pt-call")
    finally:
        await _closed(debugger)
