"""An event whose request the debugger has not filed yet: a breakpoint set on a line running threads pass is hit
as its request is made, and the JVM's first event can reach the debugger in the same read as the reply that
names the request, or before it (the agent's event and command threads write to one socket). It was taken for
nobody's and resumed: a hit lost. A breakpoint with a hit count of 1 (the JVM's own Count modifier, which
fires once) then never stopped at all. Attached through a relay that hands on the JVM's bytes in chunks, as a
port forward does, the reply and the first event come together every time."""

from __future__ import annotations

import pytest

from support.coalescing import coalescing_relay
from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(90)


async def test_the_first_hit_of_a_breakpoint_set_on_a_busy_line_is_not_lost(debugger, jvm_factory, line_of) -> None:
    jvm = jvm_factory("fixtures.Spinners", "4", suspend=False)
    jvm.wait_for_output("spinning 4", 20)
    line = line_of("spin")
    async with coalescing_relay(jvm.address) as address:
        await debugger.attach(address, timeout=10)
        for round_no in range(3):  # (each a new request: its first hit is the only one it reports)
            bp = await debugger.breakpoint_set(f"fixtures.Spinners:{line}", hit_count=1)
            waited = await debugger.wait_for_stop(10)
            stop = debugger.session.stop
            assert stop is not None and stop.kind is StopKind.BREAKPOINT and stop.breakpoint_id == bp.id, (
                round_no, waited, [(e.kind, e.text) for e in debugger.session.history.since()[-8:]])
            await debugger.breakpoint_remove(bp.id)
            await debugger.resume(timeout=0)

