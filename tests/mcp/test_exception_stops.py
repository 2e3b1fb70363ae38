"""Issue 29, point 5: an exception stop says what the exception says, through the MCP client on a real JVM.

The JDK's helpful NullPointerException text (computed by the JVM when asked: there is no detailMessage to
read), the cause chain with each link's type, message and top frame, and the exception object first among the
locals (`$exception`, as IntelliJ lists it).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(60)

HELPFUL = 'Cannot invoke "fixtures.Causes$Address.city()" because "customer.address" is null'


async def test_exception_stops_say_the_message_and_the_causes(mcp_session, java_classes, line_of):
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Causes", classpath=[str(java_classes)])
        await s.ok("exception_break", exception="java.lang.NullPointerException", caught=True, uncaught=False)
        await s.ok("exception_break", exception="*", caught=False, uncaught=True)

        npe = await s.ok("resume", timeout=30)
        assert f"java.lang.NullPointerException: {HELPFUL}" in npe.text, npe.text
        assert npe.data is None or HELPFUL in str(npe.data)
        local = (await s.ok("locals")).text
        assert local.lstrip().startswith("$exception") or "\n$exception" in local, local
        assert "NullPointerException" in local.split("\n", 3)[0] + local, local

        last = await s.ok("resume", timeout=30)  # the uncaught RuntimeException with two causes
        text = last.text
        assert "java.lang.RuntimeException: order failed" in text, text
        assert (f"caused by java.lang.IllegalStateException: lookup failed for a customer at "
                f"fixtures.Causes.lookup(Causes.java:{line_of('causes-wrap')})") in text, text
        assert (f"caused by java.lang.NullPointerException: {HELPFUL} at "
                f"fixtures.Causes.cityOf(Causes.java:{line_of('causes-npe')})") in text, text
        snapshot = (await s.ok("snapshot")).text
        assert "$exception" in snapshot and "caused by java.lang.IllegalStateException" in snapshot, snapshot
