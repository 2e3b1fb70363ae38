"""A guest debugger's suspensions at threads' ends are released by its resumes: the program exits.

A ThreadDeath event that suspends its thread (or all threads) holds the ending thread until the guest resumes
the event set; one suspension too many (one the guest's book forgot, or one more VM-wide one added for a
packet that already suspended all threads) keeps that thread from ending, and DestroyJavaVM waits for it
forever. The session watches threads end too (its own ThreadDeath requests), so the packet is both sides'.
"""

from __future__ import annotations

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
            await client.expect("DEATH ender-1")
            await client.expect("DEATH ender-0") if "DEATH ender-0" not in client.seen else None
            try:
                code = await _exited(target)
            except TimeoutError:
                pytest.fail(f"the program did not exit in {EXIT_WAIT:g}s after the guest resumed every thread "
                            f"death: a thread is held once too often\n{client.seen}\n{target.describe()}")
            assert code == 0 and "enders done" in target.stdout_text()
            await client.expect("GONE")
    finally:
        if front is not None:
            await front.close()
        await debugger.close()


async def _exited(target) -> int:  # noqa: ANN001
    import asyncio

    return await asyncio.wait_for(asyncio.to_thread(target.wait, EXIT_WAIT + 1), EXIT_WAIT)
