"""A guest debugger's PopFrames ("drop frame" in an IDE) with several threads: the JDWP agent of JDK 17 and 25
hangs (its command thread never answers again) on PopFrames of one thread while another popped thread is still
held in its pop code. A JDI client popping the frames of threads that stop at one suspend-all breakpoint, round
after round, hung it within a few hundred rounds when its pops went straight to the JVM. Through the front end
each pop goes through the session's pop lock and parks its thread outside the agent's code
(core/instrument/pops.py); the client sees JDWP's answer only: the thread where the pop left it, held as before.

TRACEPILOT_GUEST_POP_ROUNDS=N runs more rounds (a hang is a race).
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest
from guest_support import line_process

from tracepilot.core.debugger import Debugger
from tracepilot.jdwp import ThreadReference
from tracepilot.jdwpfront import JdwpFrontEnd

ROUNDS = int(os.environ.get("TRACEPILOT_GUEST_POP_ROUNDS", "300"))
THREADS = 4


@pytest.mark.timeout(60 + ROUNDS // 10)
async def test_a_guest_popping_threads_that_stop_at_one_breakpoint_never_hangs(default_jdk, jvm_factory, line_of,
                                                                               jdk17_tools, guest_client_classes):
    target = jvm_factory("PopThreads", str(THREADS), jdk=default_jdk, suspend=False)
    target.wait_for_output("pop threads started")
    debugger = Debugger()
    await debugger.attach(target.address, timeout=10)
    front = JdwpFrontEnd(debugger, name="IDE")
    port = await front.start()
    try:
        async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestPops", str(port),
                                "fixtures.PopThreads", str(line_of("pt-step")), str(line_of("pt-call")),
                                str(ROUNDS)) as client:
            last = await client.expect("threads=", timeout=30 + ROUNDS // 10)  # DONE, HUNG (or WRONG) ...
            assert last.startswith("DONE"), "\n".join(client.seen[-5:])
            assert int(last.split("threads=")[1]) > 1, last
            await client.send("leave")
            await client.expect("DETACHED")
        await front.guest_left()
        # Nothing the guest's pops did stays: every popper runs, and the session saw none of the parking stops.
        vm = debugger.session.require_vm()
        for thread in await debugger.threads():
            if thread.name.startswith("popper-"):
                assert (await vm.send(ThreadReference.SuspendCount, thread.id)).suspend_count == 0, thread.description
        assert (await debugger.wait_for_stop(timeout=0.3)).stopped is False
    finally:
        with contextlib.suppress(TimeoutError):  # a hung agent answers nothing, not even the detach
            await asyncio.wait_for(front.close(), 5)
            await asyncio.wait_for(debugger.close(), 5)
