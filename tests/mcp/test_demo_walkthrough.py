"""An agent finds the NullPointerException in the bundled demo in at most four tool calls.

This is the walkthrough of the README's MCP section, run through a real `tracepilot --mcp` subprocess (what
an agent runs). It ran through the in-memory client too: the same tool code with the same assertions, short of
the transport, at the price of the demo's ~6 s walk again (the in-memory client's scenarios are in
test_seed_scenarios.py and test_tools.py).
"""

from __future__ import annotations

import pytest

from support.jvm import DEMO_SOURCE, demo_line_of

pytestmark = pytest.mark.timeout(120)


async def test_agent_finds_the_demo_npe_in_four_calls(mcp_session, default_jdk):
    npe_line = demo_line_of("npe")
    async with mcp_session("stdio") as s:
        launched = await s.ok("launch", source=str(DEMO_SOURCE))
        assert "VM start" in launched.text

        await s.ok("exception_break", exception="java.lang.NullPointerException")

        stop = await s.ok("resume", timeout=60)
        assert stop.data["stop"]["kind"] == "EXCEPTION"
        assert f"STOPPED at ShopDemo.shippingLabel(ShopDemo.java:{npe_line})" in stop.text
        assert "NullPointerException" in stop.text
        # the stop context already shows the failing line and the caller it came from
        assert "customer.address.city()" in stop.text
        assert "ShopDemo.main(ShopDemo.java" in stop.text

        snap = await s.ok("snapshot")
        # where the null came from: Cy's customer record has no address
        assert "customer = " in snap.text
        assert '"Cy"' in snap.text or "Cy" in snap.text
        assert "address=null" in snap.text.replace(" ", "") or "address = null" in snap.text
        assert s.calls <= 4
