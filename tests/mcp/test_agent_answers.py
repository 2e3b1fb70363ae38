"""Scripted agent sessions: a real bug's root cause in as few MCP calls as the answers allow (issue 21).

Each test plays an agent on a real JVM and asserts the facts an agent needs in the answers it gets, not
their exact wording.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.timeout(120)


async def test_invoice_bug_root_cause_in_four_calls(mcp_session, java_classes, java_source_root, line_of):
    """A HashMap key whose hashCode uses a field written after insertion: the lookup misses. launch,
    a field log on the field (no template), a conditional breakpoint where the lookup misses, resume:
    that one answer shows the key, the map, and the logged write with where it happened and old -> new."""
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Invoice", classpath=[str(java_classes)],
                   sourcepath=[str(java_source_root)])
        await s.ok("watchpoint_set", field="fixtures.Invoice$Sku.region", log=True)
        await s.ok("breakpoint_set", location=f"fixtures.Invoice:{line_of('invoice-after-lookup')}",
                   condition="cents == null")
        stop = await s.ok("resume", timeout=30)
        assert s.calls == 4
        text = stop.text
        assert stop.data["stop"]["kind"] == "BREAKPOINT"
        assert stop.data["stop"]["location"]["line"] == line_of("invoice-after-lookup")
        # the key and the map at the stop
        assert re.search(r"sku = .*pen", text), text
        assert re.search(r"prices = .*HashMap", text), text
        assert "cents = null" in text
        # the logged write: where (class.method:line), and old -> new
        write_line = line_of("invoice-write")
        assert re.search(rf"Invoice\.normalise:{write_line}\b", text), text
        assert re.search(r'"eu"\s*->\s*"EU"', text), text
