"""A guest debugger's suspensions at threads' ends are released by its resumes: the program exits.

A ThreadDeath event that suspends its thread (or all threads) holds the ending thread until the guest resumes
the event set; one suspension too many (one the guest's book forgot, or one more VM-wide one added for a
packet that already suspended all threads) keeps that thread from ending, and DestroyJavaVM waits for it
forever. The session watches threads end too (its own ThreadDeath requests), so the packet is both sides'.
"""

from __future__ import annotations

import asyncio

import pytest
from guest_support import line_process

from tracepilot.core.debugger import Debugger
from tracepilot.jdwpfront import JdwpFrontEnd

pytestmark = pytest.mark.timeout(60)
EXIT_WAIT = 15.0  # seconds: the program ends in milliseconds once nothing holds its threads


@pytest.mark.parametrize("policy", ["thread", "all"])
async def test_the_program_exits_after_the_guest_resumed_its_thread_deaths(policy, default_jdk, jvm_factory,
                                                                        jdk17_tools, guest_client_classes):
    target = jvm_factory("Enders", jdk=default_jdk, suspend=True)
    debugger = Debugger()
    front = None
    try:
        await debugger.attach(target.address, timeout=10)  # held at its start (the VM start stop)
        front = JdwpFrontEnd(debugger, name="IDE")
        port = await front.start()
        async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestDeaths", str(port),
                                policy) as client:
            await client.expect("ARMED")
            await debugger.resume(timeout=0)
            for name in ("ender-0", "ender-1"):  # (in either order)
                if f"DEATH {name}" not in client.seen:
                    await client.expect(f"DEATH {name}")
            await _exits(target, client, "thread death")
            assert "enders done" in target.stdout_text()
            await client.expect("GONE")
    finally:
        if front is not None:
            await front.close()
        await debugger.close()


async def _exits(target, client, what: str) -> None:  # noqa: ANN001
    try:
        code = await asyncio.wait_for(asyncio.to_thread(target.wait, EXIT_WAIT + 1), EXIT_WAIT)
    except TimeoutError:
        pytest.fail(f"the program did not exit in {EXIT_WAIT:g}s after the guest resumed every {what}: threads "
                    f"are held once too often\n{client.seen}\n{target.describe()}")
    assert code == 0, target.describe()


async def test_the_program_exits_after_a_guests_method_breakpoint_shared_packets_with_a_trace(
        default_jdk, jvm_factory, jdk17_tools, guest_client_classes):
    """The guest's method breakpoint (MethodEntry, suspending all threads) and the session's round-trip trace
    (MethodEntry, suspending none) report each call in one packet: one suspension more is made for the session's
    share, and the trace, which takes its events without a stop, must resume it."""
    calls = 40
    target = jvm_factory("HotLoop", str(calls), jdk=default_jdk, suspend=True)
    debugger = Debugger()
    debugger.session.breakpoints.in_jvm.enabled = False  # (the round trip: the trace's own MethodEntry events)
    front = None
    try:
        await debugger.attach(target.address, timeout=10)
        front = JdwpFrontEnd(debugger, name="IDE")
        port = await front.start()
        async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestEntries", str(port),
                                "fixtures.HotLoop") as client:
            await client.expect("ARMED")
            trace = asyncio.ensure_future(debugger.trace("fixtures.HotLoop", duration=EXIT_WAIT + 5, resume=True))
            try:
                await _exits(target, client, "method entry")
            finally:
                result = await trace
            await client.expect("GONE")
            assert int(client.value("ENTRIES")) >= calls + 1  # <clinit>, main and every step()
            step = next(m for m in result.methods if m.method == "fixtures.HotLoop.step(int)")
            assert step.calls == calls and result.stopped_by == "vm_death", result
    finally:
        if front is not None:
            await front.close()
        await debugger.close()
