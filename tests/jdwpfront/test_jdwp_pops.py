"""A guest debugger's PopFrames ("drop frame" in an IDE) with several threads: the JDWP agent of JDK 17 and 25
hangs (its command thread never answers again) on PopFrames of one thread while another popped thread is still
held in its pop code. A JDI client popping the frames of threads that stop at one suspend-all breakpoint, round
after round, hung it within a few hundred rounds when its pops went straight to the JVM. Through the front end
each pop goes through the session's pop lock and parks its thread outside the agent's code
(core/instrument/pops.py); the client sees JDWP's answer only: the thread where the pop left it, held as before.
The same beside the session's in-JVM probe stops (each one pops and parks a thread too), and the session's own
pop_frames on threads the guest holds as well.

TRACEPILOT_GUEST_POP_ROUNDS=N runs more rounds (a hang is a race).
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest
from guest_support import line_process

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind
from tracepilot.jdwp import ThreadReference
from tracepilot.jdwpfront import JdwpFrontEnd

ROUNDS = int(os.environ.get("TRACEPILOT_GUEST_POP_ROUNDS", "300"))
THREADS = 4


@pytest.mark.timeout(60 + ROUNDS // 10)
async def test_a_guest_popping_threads_that_stop_at_one_breakpoint_never_hangs(default_jdk, jvm_factory, line_of,
                                                                               jdk17_tools, guest_client_classes):
    debugger, target = await _attached(jvm_factory, default_jdk)
    front = JdwpFrontEnd(debugger, name="IDE")
    port = await front.start()
    try:
        await _guest_pops(port, line_of, jdk17_tools, guest_client_classes, ROUNDS)
        await front.guest_left()
        # Nothing the guest's pops did stays: every popper runs, and the session saw none of the parking stops.
        vm = debugger.session.require_vm()
        for thread in await debugger.threads():
            if thread.name.startswith("popper-"):
                assert (await vm.send(ThreadReference.SuspendCount, thread.id)).suspend_count == 0, thread.description
        assert (await debugger.wait_for_stop(timeout=0.3)).stopped is False
    finally:
        await _closed(front, debugger)


@pytest.mark.timeout(60 + ROUNDS // 10)
async def test_a_guest_popping_beside_the_sessions_probe_stops_never_hangs(default_jdk, jvm_factory, line_of,
                                                                           jdk17_tools, guest_client_classes):
    """The session stops popper-0 at an in-JVM condition on the same line (each stop pops the probe's frames and
    parks the thread, under the same lock) and resumes it, while the guest pops the other threads' frames at its
    own suspend-all breakpoint (popper-0's hits it only resumes: the session's stops are at its line too). The
    guest's stops hold popper-0 on its way to parking: lent until it is parked, or the guest's next pop, waiting
    for the lock, was refused after 5 s (JDWP error 113) in most runs."""
    target = jvm_factory("PopThreads", str(THREADS), jdk=default_jdk)  # (suspended: the condition set before
    debugger = Debugger()                                               # the class loads is compiled in)
    await debugger.attach(target.address, timeout=10)
    _only_the_guests_events_reach_it(debugger)
    front = JdwpFrontEnd(debugger, name="IDE")
    port = await front.start()
    stops = 0

    async def session_rounds() -> None:
        nonlocal stops
        while True:
            result = await debugger.resume(timeout=1)
            if result.stopped:
                stops += 1

    try:
        bp = await debugger.breakpoint_set(f"fixtures.PopThreads:{line_of('pt-step')}", condition="id == 0",
                                           suspend="thread")
        result = await debugger.resume()
        while result.stopped and result.stop.kind is StopKind.VM_START:
            result = await debugger.resume()
        await asyncio.to_thread(target.wait_for_output, "pop threads started")
        session = asyncio.ensure_future(session_rounds())
        try:
            await _guest_pops(port, line_of, jdk17_tools, guest_client_classes, ROUNDS // 2, "popper-0")
        finally:
            session.cancel()  # (maybe inside a resume: what it released is still sent, session/execution.py)
            with contextlib.suppress(asyncio.CancelledError):
                await session
        await front.guest_left()
        assert stops > 0, "the session never stopped at its in-JVM condition"
        mode = next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode
        assert mode == "in-JVM", mode
        await debugger.breakpoint_remove("all")
        while (await debugger.resume(timeout=0.5)).stopped:
            pass
        vm = debugger.session.require_vm()
        for thread in await debugger.threads():
            if thread.name.startswith("popper-"):
                count = (await vm.send(ThreadReference.SuspendCount, thread.id)).suspend_count
                assert count == 0, f"{thread.name}: {thread.description}"
    finally:
        await _closed(front, debugger)


@pytest.mark.timeout(60)
async def test_the_sessions_own_pop_on_a_thread_a_guest_holds_too(default_jdk, jvm_factory, line_of, jdk17_tools,
                                                                   guest_client_classes):
    """The session's pop_frames (core/inspect/changes.py) on a thread a guest debugger suspended too: it pops,
    under the same lock, and parks the thread held as many times as before; each debugger's suspend count is what
    it was (JDWP's PopFrames leaves a thread suspended as it was), and each one's resume takes its own share off.
    At the session's own stop, the guest holding the thread alone (ThreadReference.Suspend); and on a thread only
    the guest holds (VirtualMachine.Suspend)."""
    target = jvm_factory("PopThreads", "2", jdk=default_jdk, suspend=False)
    target.wait_for_output("pop threads started")
    debugger = Debugger()
    await debugger.attach(target.address, timeout=10)
    front = JdwpFrontEnd(debugger, name="IDE")
    port = await front.start()
    vm = debugger.session.require_vm()
    step, call = line_of("pt-step"), line_of("pt-call")

    async def jvm_count(name: str) -> int:
        return (await vm.send(ThreadReference.SuspendCount, await debugger.thread_id(name))).suspend_count

    try:
        async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestHolder", str(port)) as guest:
            await guest.expect("ATTACHED", timeout=30)
            bp = await debugger.breakpoint_set(f"fixtures.PopThreads:{step}", thread="popper-1", suspend="thread")
            stop = await debugger.wait_for_stop(timeout=10)
            assert stop.stopped and stop.stop.thread_name == "popper-1" and stop.stop.location.line == step, stop

            # The session's stop, held by the guest too.
            await guest.send("suspend popper-1")
            assert await guest.expect("HELD popper-1") == "HELD popper-1 count=1"
            assert await jvm_count("popper-1") == 2
            change = await debugger.pop_frames(0, thread="popper-1")
            assert change.location.line == call, change.message
            await guest.send("look popper-1")
            assert await guest.expect("HELD popper-1") == f"HELD popper-1 count=1 line={call}"
            assert await jvm_count("popper-1") == 2
            await guest.send("resume popper-1")
            assert await guest.expect("HELD popper-1") == "HELD popper-1 count=0"
            assert await jvm_count("popper-1") == 1  # the session's stop, still where the pop left it
            assert (await debugger.stack("popper-1"))[0].location.line == call

            # A thread only the guest holds (its VirtualMachine.Suspend): the session pops it all the same.
            await guest.send("suspendall")
            await guest.expect("OK")
            assert await jvm_count("popper-0") == 1 and await jvm_count("popper-1") == 2
            change = await debugger.pop_frames(0, thread="popper-0")
            await guest.send("look popper-0")
            assert await guest.expect("HELD popper-0") == f"HELD popper-0 count=1 line={change.location.line}"
            assert await jvm_count("popper-0") == 1 and await jvm_count("popper-1") == 2
            await guest.send("resumeall")
            await guest.expect("OK")
            assert await jvm_count("popper-0") == 0 and await jvm_count("popper-1") == 1
            await guest.send("leave")
            await guest.expect("DETACHED")
        await front.guest_left()
        await debugger.breakpoint_remove(bp.id)
        while (await debugger.resume(timeout=0.5)).stopped:
            pass
        assert [await jvm_count(name) for name in ("popper-0", "popper-1")] == [0, 0]
    finally:
        await _closed(front, debugger)


async def _attached(jvm_factory, jdk: str):  # noqa: ANN001, ANN202
    target = jvm_factory("PopThreads", str(THREADS), jdk=jdk, suspend=False)
    target.wait_for_output("pop threads started")
    debugger = Debugger()
    await debugger.attach(target.address, timeout=10)
    _only_the_guests_events_reach_it(debugger)
    return debugger, target


def _only_the_guests_events_reach_it(debugger: Debugger) -> None:
    """Every event handed to the guest is of a request it made (never a parking breakpoint's)."""
    opened = debugger.foreign_client

    def opening(name, deliver):  # noqa: ANN001, ANN202
        def checked(composite) -> None:  # noqa: ANN001
            strangers = [e for e in composite.events if e.request_id and e.request_id not in guest.requests]
            assert not strangers, f"the guest was sent events of requests not its own: {strangers}"
            deliver(composite)

        guest = opened(name, checked)
        return guest

    debugger.foreign_client = opening


async def _guest_pops(port: int, line_of, jdk17_tools, classes, rounds: int, skip: str = "") -> None:  # noqa: ANN001
    """The JDI client's rounds: each hit of its suspend-all breakpoint popped (but in thread `skip`), checked,
    resumed."""
    async with line_process(jdk17_tools[0], "-cp", str(classes), "GuestPops", str(port), "fixtures.PopThreads",
                            str(line_of("pt-step")), str(line_of("pt-call")), str(rounds),
                            *([skip] if skip else [])) as client:
        last = await client.expect("threads=", timeout=30 + rounds // 10)  # DONE (HUNG or WRONG: it ends first)
        assert last.startswith("DONE"), "\n".join(client.seen[-5:])
        assert int(last.split("threads=")[1]) > 1, last
        # No pop refused (JDWP error 113: another popped thread kept from its parking for 5 s). Nothing but the
        # guest holds these threads on their way; a suspension left unlent (the count asked of the JVM, which races
        # its events) kept one there until the guest resumed, after its next pop: refused, a few runs in twenty.
        assert int(last.split("refused=")[1].split()[0]) == 0, last
        await client.send("leave")
        await client.expect("DETACHED")


async def _closed(front: JdwpFrontEnd, debugger: Debugger) -> None:
    with contextlib.suppress(TimeoutError):  # a hung agent answers nothing, not even the detach
        await asyncio.wait_for(front.close(), 5)
        await asyncio.wait_for(debugger.close(), 5)
