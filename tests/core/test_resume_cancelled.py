"""A resume given up (its task cancelled) while the last stop's locals are still being read: the suspensions the
thread book let go are sent all the same (session/execution.py), or the thread stays suspended with no one
holding it and never stops again. (Seen beside a guest debugger's pops, tests/jdwpfront/test_jdwp_pops.py, whose
session task is cancelled at the end: about one run in five.)"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tracepilot.jdwp import ThreadReference

pytestmark = pytest.mark.timeout(60)


async def test_a_resume_cancelled_at_any_point_leaves_no_thread_held_by_no_one(debugger, jvm_factory, line_of):
    jvm = jvm_factory("PopThreads", "1", suspend=False)
    jvm.wait_for_output("pop threads started")
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"fixtures.PopThreads:{line_of('pt-step')}")  # (suspend all: nothing else runs)
    result = await debugger.wait_for_stop(timeout=10)
    assert result.stopped, result.message
    vm = debugger.session.require_vm()
    for turns in range(16):  # cancelled before, while and after its release is sent
        resume = asyncio.ensure_future(debugger.resume(timeout=10))
        for _ in range(turns):
            await asyncio.sleep(0)
        resume.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await resume
        result = await debugger.wait_for_stop(timeout=5)  # the next stop, or still the last one
        assert result.stopped, f"cancelled after {turns} turns of the event loop: {result.message}"
        thread = result.stop.thread_id
        count = (await vm.send(ThreadReference.SuspendCount, thread)).suspend_count
        assert count == debugger.session.threads.expected_count(thread) == 1, (turns, count)
