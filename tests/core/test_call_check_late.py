"""A call the debugger makes in the target (evaluate, an in-JVM probe's definition at a move) never lets its thread
run on. While a call has not answered for a while (InvocationCall.CHECK_AFTER), the session asks the thread's
suspend count: above 0, another thread's suspend-all event may have suspended it before the call started, and
the call is unblocked with one resume. But the JVM suspends the thread again as soon as the call returns, before
it writes the reply: a check that comes after that, with the reply not taken yet (an event loop running late on
a loaded machine), read the returned call's own suspension as a call that had not started, and resumed the
thread: it ran on from its stop, which the debugger still reported ("not stopped" right after "stopped", seen
once in tests/instrument/test_method_in_jvm.py on a loaded 2-core machine).

A hook makes the check late on purpose (past the call's return), or the reply: the JVM and the calls are real.
"""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.session.base import InvocationCall
from tracepilot.jdwp import ClassType, JdwpConnection, ObjectReference, ThreadReference

HOT = "fixtures.HotCondition"
LATE = 0.3  # seconds the check waits: the call (a String.valueOf) has long returned by then
REPLY_LATE = 0.1  # seconds a call's reply is held back (the JVM's writer, or the reader, running late)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["check", "reply"])
def late_check(request, monkeypatch):
    """Every call's check comes at once, and is answered only once the call has returned ("check"); or the
    checks come at once and the reply of a returned call is taken REPLY_LATE after it came ("reply")."""
    monkeypatch.setattr(InvocationCall, "CHECK_AFTER", 0.0)
    if request.param == "check":
        original = InvocationCall._unblock  # noqa: SLF001

        async def late(self, *args):
            await asyncio.sleep(LATE)
            return await original(self, *args)

        monkeypatch.setattr(InvocationCall, "_unblock", late)
        return
    send_nowait = JdwpConnection.send_nowait

    def late_reply(self, command, *args, **kwargs):
        future = send_nowait(self, command, *args, **kwargs)
        if command not in (ClassType.InvokeMethod, ObjectReference.InvokeMethod):
            return future
        held: asyncio.Future = asyncio.get_running_loop().create_future()

        def later(done: asyncio.Future) -> None:
            asyncio.get_running_loop().call_later(REPLY_LATE, lambda: held.done() or (
                held.set_exception(done.exception()) if done.exception() else held.set_result(done.result())))

        future.add_done_callback(later)
        return held

    monkeypatch.setattr(JdwpConnection, "send_nowait", late_reply)


async def _stopped_in_the_loop(debugger, jvm_factory, line_of):
    """Attached to HotCondition while it runs, stopped at its loop's body line."""
    jvm = jvm_factory(HOT, "300", "100000000", suspend=False)
    await asyncio.to_thread(jvm.wait_for_output, "round 1 ", 30)
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"{HOT}:{line_of('hc-body')}")
    stop = await debugger.wait_for_stop(30)
    assert stop.stopped, stop.message
    return stop


async def test_a_call_that_returned_before_its_check_leaves_the_thread_at_its_stop(debugger, jvm_factory, line_of,
                                                                                  late_check):
    stop = await _stopped_in_the_loop(debugger, jvm_factory, line_of)
    before = {v.name: v.value.text for v in await debugger.locals()}
    assert (await debugger.evaluate("String.valueOf(sum + i)")).text.strip('"').isdigit()
    # Still where it stopped: the same iteration, suspended as the debugger's books say.
    assert {v.name: v.value.text for v in await debugger.locals()} == before
    thread = stop.stop.thread_id
    count = (await debugger.session.require_vm().send(ThreadReference.SuspendCount, thread)).suspend_count
    assert count == debugger.session.threads.expected_count(thread) == 1
    following = await debugger.resume(timeout=30)  # one turn of the loop: the next i
    assert following.stopped
    after = {v.name: v.value.text for v in await debugger.locals()}
    assert int(after["i"]) == (int(before["i"]) + 1) % 300, (before, after)


async def test_a_move_into_the_jvm_keeps_the_stops_it_made_calls_at(jvm_factory, late_check):
    # The flaky test's own path: the round-trip hit reads the class's bytes through its loader (calls), the move
    # defines the probe (calls); every stop answered is still there when its stack is read.
    jvm = jvm_factory(HOT, "300", "100000000", suspend=False)
    await asyncio.to_thread(jvm.wait_for_output, "round 1 ", 30)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.method_break(f"{HOT}.run", on="exit", condition="$return > 0 && n == 300")
        modes = []
        for _ in range(3):
            stop = await d.wait_for_stop(30)
            assert stop.stopped and stop.stop.breakpoint_id == bp.id, stop
            assert stop.stop.message is None, stop.stop.message  # (no "thread 1 is running" condition error)
            frames = await d.stack()
            assert [f.location.method for f in frames[:2]] == ["run", "main"], frames
            modes.append(next(b for b in await d.breakpoint_list() if b.id == bp.id).mode)
            await d.resume(timeout=0)
        assert modes[-1] == "in-JVM", modes
    finally:
        await d.close()


async def test_a_call_held_before_it_started_is_still_unblocked(debugger, jvm_factory, line_of, monkeypatch):
    # The case the check is for: a suspension made between the session's look at the count and the call (as by
    # another thread's suspend-all event) keeps the call from starting. Unblocked after REPLY_WAIT, and put back.
    stop = await _stopped_in_the_loop(debugger, jvm_factory, line_of)
    thread = stop.stop.thread_id
    vm = debugger.session.require_vm()
    send = InvocationCall.send

    async def suspended_first(self, *args, **kwargs):
        await vm.send(ThreadReference.Suspend, self.thread_id)
        return await send(self, *args, **kwargs)

    monkeypatch.setattr(InvocationCall, "send", suspended_first)
    before = {v.name: v.value.text for v in await debugger.locals()}
    assert (await debugger.evaluate("String.valueOf(i)")).text == f'"{before["i"]}"'
    monkeypatch.undo()
    assert {v.name: v.value.text for v in await debugger.locals()} == before
    assert (await vm.send(ThreadReference.SuspendCount, thread)).suspend_count == 2  # the stop's and the extra one
    await vm.send(ThreadReference.Resume, thread)  # (the extra one is the test's own)
    assert (await debugger.resume(timeout=30)).stopped
    after = {v.name: v.value.text for v in await debugger.locals()}
    assert int(after["i"]) == (int(before["i"]) + 1) % 300, (before, after)
