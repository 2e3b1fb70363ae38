"""What agents asked for (issue 29 item 12), through the MCP client in memory on real JVMs: `events` with
`tail` and a `limit` beyond 50 lines, breakpoint answers that say what a round-trip condition costs and
where a class that is not loaded yet was looked for, a `diagnose` that never writes to a port not known to be
JDWP, and log templates that show what Java's string concatenation shows."""

from __future__ import annotations

import re
import socket

import pytest

pytestmark = pytest.mark.timeout(120)

EVENT_LINE = re.compile(r"^#\d+ ", re.MULTILINE)


async def test_events_tail_and_a_limit_beyond_fifty_lines(mcp_session, java_classes, line_of):
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Quotes", args=["150"], classpath=[str(java_classes)])
        await s.ok("breakpoint_set", location=f"fixtures.Quotes:{line_of('quote-line')}", log="q {i}")
        done = await s.ok("resume", timeout=60)
        assert done.data["state"] == "EXITED" or "terminated" in done.text, done.text

        everything = await s.ok("events", limit=10_000)
        total = len(everything.data["events"])
        assert total > 160, everything.text[-500:]

        page = await s.ok("events", limit=120)
        assert len(page.data["events"]) == 120
        assert len(EVENT_LINE.findall(page.text)) == 120, page.text[:300]  # every event asked for, not 50
        last = page.data["events"][-1]["seq"]
        assert f"{total - 120} later event(s) not shown: pass since={last}" in page.text, page.text[-300:]

        tail = await s.ok("events", tail=5)
        assert [e["seq"] for e in tail.data["events"]] == [e["seq"] for e in everything.data["events"][-5:]]
        assert len(EVENT_LINE.findall(tail.text)) == 5
        assert f"{total - 5} earlier event(s) not shown: tail={total}" in tail.text, tail.text

        logs = await s.ok("events", kinds=["log"], tail=3)
        assert [e["text"].split(" — ")[0] for e in logs.data["events"]] == ["q 147", "q 148", "q 149"], logs.text


async def test_breakpoint_answers_on_round_trips_and_classes_not_loaded_yet(mcp_session, java_classes,
                                                                           java_source_root, line_of, tmp_path,
                                                                           monkeypatch):
    monkeypatch.setenv("TRACEPILOT_NO_INSTRUMENT", "1")  # conditions evaluated by the debugger: a round trip
    shop = tmp_path / "src" / "com" / "acme" / "shop"
    shop.mkdir(parents=True)
    (shop / "Order.java").write_text("package com.acme.shop;\n\npublic class Order {\n    int cents;\n}\n")
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Quotes", args=["3"], classpath=[str(java_classes)],
                   sourcepath=[str(java_source_root), str(tmp_path / "src")])

        on_source_path = await s.ok("breakpoint_set", location="com.acme.shop.Order:4")
        assert on_source_path.data["verified"] is False
        assert "binds when it loads" in on_source_path.text, on_source_path.text
        assert "ByteOrder" not in on_source_path.text and "did you mean" not in on_source_path.text

        typo = await s.ok("breakpoint_set", location="com.acme.shop.Ordr:4")
        assert "did you mean com.acme.shop.Order" in typo.text, typo.text
        assert "java." not in typo.text, typo.text  # only the program's own classes are suggested

        on_class_path = await s.ok("breakpoint_set", location="fixtures.Invoice:5")  # compiled, never loaded
        assert "binds when it loads" in on_class_path.text, on_class_path.text

        await s.ok("breakpoint_set", location=f"fixtures.Quotes:{line_of('quote-line')}", temporary=True)
        await s.ok("resume", timeout=30)
        conditional = await s.ok("breakpoint_set", location=f"fixtures.Quotes:{line_of('quote-line')}",
                                 condition="i == 2")
        assert "round trip" in conditional.text
        assert "every hit" in conditional.text and "race" in conditional.text, conditional.text
        in_list = await s.ok("breakpoint_list")
        assert "every hit" not in in_list.text  # the list stays one line a breakpoint


async def _log_lines(s, java_classes, line_of) -> tuple[list[str], str]:
    await s.ok("launch", main="fixtures.Quotes", args=["3"], classpath=[str(java_classes)])
    await s.ok("breakpoint_set", location=f"fixtures.Quotes:{line_of('quotes-done')}")  # loads Quotes first
    await s.ok("method_break", method="fixtures.Quotes.main")
    await s.ok("resume", timeout=30)
    answer = await s.ok("breakpoint_set", location=f"fixtures.Quotes:{line_of('quote-line')}",
                        log="key={key} price={price} i={i}")
    await s.ok("resume", timeout=30)
    logs = await s.ok("events", kinds=["log"])
    return [e["text"].split(" — ")[0] for e in logs.data["events"]], answer.text


@pytest.mark.parametrize("mode", ["round trip", "default"])
async def test_a_log_template_shows_the_programs_own_to_string(mcp_session, java_classes, line_of, mode,
                                                                monkeypatch):
    if mode == "round trip":
        monkeypatch.setenv("TRACEPILOT_NO_INSTRUMENT", "1")
    async with mcp_session("memory") as s:
        lines, answer = await _log_lines(s, java_classes, line_of)
    # QuoteKey has its own toString (what "" + key gives); Plain has Object's: its fields are shown
    assert lines[:3] == ["key=BOLT-0/BULK price=Quotes$Plain{cents=100} i=0",
                         "key=BOLT-1/RETAIL price=Quotes$Plain{cents=101} i=1",
                         "key=BOLT-2/BULK price=Quotes$Plain{cents=102} i=2"], lines
    assert "log toString:" in answer, answer  # the breakpoint says which view its {parts} use
    if mode == "default":  # an object part is not compiled into the class: the breakpoint says why
        assert "round trip (not compilable: a fixtures.Quotes$QuoteKey in a log message is formatted by the " \
               "debugger (its own toString()" in answer, answer


async def test_under_redact_a_log_template_shows_fields(tmp_path, java_classes, line_of):
    from mcp.client import Client
    from mcp_harness import McpSession

    from tracepilot.mcp.server import build_server

    server, app = build_server(redact=True, log_file=str(tmp_path / "mcp.log"))
    try:
        async with Client(server, mode="auto") as client:
            lines, answer = await _log_lines(McpSession(client, app), java_classes, line_of)
    finally:
        await app.close()
    assert lines[0] == 'key=Quotes$QuoteKey{sku="BOLT-0", tier=BULK} price=Quotes$Plain{cents=100} i=0', lines
    assert "log field view:" in answer and "--redact" in answer, answer


def _connections(jvm) -> list[str]:
    return [line for line in jvm.stdout_text().splitlines() if line.startswith("connection ")]


async def test_diagnose_never_writes_to_an_application_port(mcp_session, jvm_factory):
    jvm = jvm_factory("AppPort", suspend=False)  # address=127.0.0.1:0: the agent chose its port
    app_port = int(jvm.wait_for_output("app port").split("app port ")[1].split()[0])
    async with mcp_session("memory") as s:
        before = (await s.ok("diagnose")).text
        assert f"{jvm.port} (JDWP" in before, before
        assert f"{app_port} (not JDWP)" in before, before
        await s.ok("attach", address=jvm.address)
        attached = (await s.ok("diagnose")).text
        mine = next(line for line in attached.splitlines() if f"pid {jvm.pid}:" in line)
        assert f"{jvm.port} (JDWP, attached here)" in mine, attached
        assert f"localhost:{app_port}" not in attached, attached
    with socket.create_connection(("127.0.0.1", app_port), timeout=5):
        pass
    jvm.wait_for_output("connection 1")
    assert _connections(jvm) == ["connection 1"], jvm.stdout_text()  # ours: diagnose made none
