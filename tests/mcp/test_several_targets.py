"""Issue 28: several JVMs in one session, through MCP on real JVMs. A price server and its client, launched
side by side, a conditional breakpoint in each: the server's stop is answered named with its locals, resuming
the server leads to the client's stop, `evaluate` takes a `target`, and detaching the server leaves the
client debuggable to its end."""

from __future__ import annotations

import pytest

from support.jvm import free_port

pytestmark = pytest.mark.timeout(60)


async def test_price_server_and_client_side_by_side(mcp_session, java_classes, java_source_root, line_of):
    port = str(free_port())
    sources = [str(java_source_root)]
    async with mcp_session("memory") as s:
        server = await s.ok("launch", main="fixtures.PriceServer", classpath=[str(java_classes)], args=[port],
                            sourcepath=sources, name="server")
        assert "VM start" in server.text and "targets" not in server.text  # one target: answers as before
        client = await s.ok("launch", main="fixtures.PriceClient", classpath=[str(java_classes)], args=[port],
                            sourcepath=sources)
        assert "STOPPED [PriceClient]" in client.text  # named after its main class by default
        status = await s.ok("status")
        assert "targets (2):" in status.text
        assert "  server: STOPPED — VM start" in status.text and "* PriceClient: STOPPED — VM start" in status.text

        # Without a target a breakpoint applies wherever its class lives; breakpoint_list says where.
        await s.ok("breakpoint_set", location=f"PriceServer:{line_of('server-answer')}", condition="qty == 3")
        await s.ok("breakpoint_set", location=f"PriceClient:{line_of('client-total')}", condition="total > 100",
                   target="PriceClient")
        listed = await s.ok("breakpoint_list")
        assert "in server (pending), PriceClient (pending)" in listed.text, listed.text
        assert "bp-2" in listed.text and listed.data

        # With nothing stopped but VM starts, a tool without target acts on the current (last) target.
        running = await s.ok("resume", target="server", timeout=0)
        assert not running.error
        stop = await s.ok("resume", target="PriceClient", timeout=20)  # the client asks, the server stops
        assert stop.text.startswith("STOPPED [server] at fixtures.PriceServer.answer"), stop.text
        assert stop.data["stop"]["target"] == "server"
        locals_ = await s.ok("locals")  # the current stop's target
        assert "qty = 3" in locals_.text and "item = \"pear\"" in locals_.text, locals_.text
        # unmark names the target as mark does (jvm), and as it always did (target); two different ones are refused.
        await s.ok("mark", target="item", label="it", jvm="server")
        await s.ok("unmark", label="it", jvm="server")
        await s.ok("mark", target="item", label="it", jvm="server")
        await s.ok("unmark", label="it", target="server")
        both = await s.err("unmark", label="it", jvm="server", target="PriceClient")
        assert "name different targets" in both.text, both.text
        value = await s.ok("evaluate", expression="unit * qty", target="server")
        assert "135" in value.text
        wrong = await s.err("evaluate", expression="1", target="nosuch")
        assert "server" in wrong.text and "PriceClient" in wrong.text

        # Resuming the server (the current stop's target) answers the client's stop: its total is 400 (plum).
        client_stop = await s.ok("resume", timeout=20)
        assert client_stop.text.startswith("STOPPED [PriceClient] at fixtures.PriceClient.main"), client_stop.text
        total = await s.ok("evaluate", expression="total", target="PriceClient")
        assert "135" in total.text, total.text

        # Dropping the server leaves the client debuggable to its end.
        detached = await s.ok("detach", target="server", terminate=True)
        assert "target server detached" in detached.text and "still debugging: PriceClient" in detached.text
        assert "targets" not in detached.text  # one target again: answers as before
        await s.ok("breakpoint_set", location=f"PriceClient:{line_of('client-end')}")
        end_stop = await s.ok("resume", timeout=20)
        assert "PriceClient.main" in end_stop.text and "[" not in end_stop.text.splitlines()[0], end_stop.text
        status_text = await s.ok("evaluate", expression="status")
        assert "server gone" in status_text.text
        ended = await s.ok("resume", timeout=20)
        assert "EXITED" in ended.text
        out = await s.ok("output")
        assert "client server gone" in out.text
