"""A debugger joined over JDWP (IntelliJ, Eclipse: JDI) sets a breakpoint that fires once on a line running threads
pass: its one event can reach the session before the reply that names the request (tests/core/
test_requests_in_flight.py has the session's own case), and was taken for the session's, then resumed: the IDE's
breakpoint never stopped. Attached through a relay that hands on the JVM's bytes in chunks, as a port forward
does."""

from __future__ import annotations

import pytest

from support.coalescing import coalescing_relay
from support.lines import line_process
from tracepilot.core.debugger import Debugger
from tracepilot.jdwpfront import JdwpFrontEnd

pytestmark = pytest.mark.timeout(90)


async def test_a_jdi_guests_breakpoint_that_fires_once_gets_its_event(jvm_factory, line_of, jdk17_tools,
                                                                      guest_client_classes) -> None:
    jvm = jvm_factory("fixtures.Spinners", "4", suspend=False)
    jvm.wait_for_output("spinning 4", 20)
    debugger = Debugger()
    async with coalescing_relay(jvm.address) as address:
        try:
            await debugger.attach(address, timeout=10)
            front = JdwpFrontEnd(debugger, name="IDE")
            port = await front.start()
            try:
                async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestFirstHit", str(port),
                                        "fixtures.Spinners", str(line_of("spin"))) as client:
                    await client.expect("DONE", timeout=60)
                    said = await client.lines_so_far()
                    hits = [line.split()[0] for line in said if line.split()[0] in ("HIT", "MISSED")]
                    assert hits == ["HIT"] * 3, said
            finally:
                await front.close()
        finally:
            await debugger.close()
