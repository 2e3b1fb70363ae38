"""Security: --read-only refuses every side effect at every front end (MCP, the command catalog the REPL
and the TUI command line share), --redact hides secret-looking values at every front end, and names the
target sends are never used as paths outside the source roots."""

from __future__ import annotations

import pytest

from tracepilot.core.catalog import Selection, default_catalog
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor
from tracepilot.core.sources import SourcePath

pytestmark = pytest.mark.timeout(120)

SECRETS = ("hunter2", "tok-STATIC", "s3-MAP", "pw-LOCAL")


def no_secret(text: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"secret values leaked: {leaked} in {text[:500]}"


# -- read-only ----------------------------------------------------------------------------------------


async def test_mcp_read_only_refuses_every_side_effect(mcp_session, jvm_factory, line_of):
    target = jvm_factory("Secrets")
    async with mcp_session("memory", read_only=True) as s:
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Secrets:{line_of('secrets-stop')}")
        await s.ok("resume", timeout=20)
        refusals = [
            ("launch", {"main": "fixtures.Secrets", "classpath": "."}),
            ("set_value", {"target": "round", "value": "5"}),
            ("set_value", {"target": "s.password", "value": '"x"'}),
            ("evaluate", {"expression": "s.bump()"}),
            ("evaluate", {"expression": "round = 7"}),
            ("evaluate", {"expression": "round++"}),
            ("evaluate", {"expression": "new StringBuilder()"}),
            ("pop_frames", {}),
            ("force_return", {"value": "0"}),
            ("hotswap", {"path": "/nonexistent"}),
            ("detach", {"terminate": True}),
        ]
        for tool, args in refusals:
            reply = await s.err(tool, **args)
            assert "read-only" in reply.text or "side effects are disabled" in reply.text, (tool, args, reply.text)
        # conditions, logpoints and watchers cannot invoke methods either
        await s.ok("watch_add", expression="s.bump()")
        await s.ok("breakpoint_set", location=f"Secrets:{line_of('secrets-write')}", log="bumped {s.bump()}")
        stop = await s.ok("resume", timeout=20)
        assert "STOPPED" in stop.text
        # nothing changed in the target, and it still runs under us
        assert (await s.ok("evaluate", expression="s.changes")).data["text"] == "0"
        assert target.returncode is None
        events = await s.ok("events", limit=500)
        assert "bumped <error" in events.text or "side effects" in events.text, events.text[-2000:]


@pytest.mark.parametrize("line", [
    "set round = 5", "set s.password = \"x\"", "print s.bump()", "print round = 3", "pop", "return 0",
    "redefine /nonexistent", "interrupt main", "launch -- -cp . fixtures.Secrets", "detach kill",
])
async def test_catalog_read_only_refuses_every_side_effect(jvm_factory, line_of, line):
    """The REPL and the TUI command line both run lines through this catalog."""
    target = jvm_factory("Secrets")
    debugger = Debugger(read_only=True)
    catalog, selection = default_catalog(), Selection(wait_timeout=20.0)

    async def run(text: str):
        return await catalog.execute(debugger, text, Actor.PERSON, selection)

    try:
        assert (await run(f"attach {target.address}")).ok
        assert (await run(f"stop at Secrets:{line_of('secrets-stop')}")).ok
        assert (await run("cont")).ok
        result = await run(line)
        assert not result.ok, f"{line!r} was allowed in read-only mode: {result.text}"
        assert "read-only" in result.text or "side effects are disabled" in result.text, result.text
        changes = await run("print s.changes")
        assert changes.ok and changes.text.endswith("0"), changes.text
        assert target.returncode is None
    finally:
        await debugger.close()


# -- redact -------------------------------------------------------------------------------------------


async def test_mcp_redact_hides_secret_values_everywhere(tmp_path, jvm_factory, line_of):
    from mcp.client import Client

    from tracepilot.mcp.server import build_server

    target = jvm_factory("Secrets")
    server, app = build_server(redact=True, log_file=str(tmp_path / "mcp.log"))
    try:
        async with Client(server) as client:
            async def call(tool: str, **args):
                result = await client.call_tool(tool, args)
                text = "\n".join(getattr(b, "text", "") for b in result.content)
                assert not result.is_error, (tool, text)
                no_secret(text)
                no_secret(repr(result.structured_content))
                return text

            await call("attach", address=target.address)
            await call("watchpoint_set", field="fixtures.Secrets.password", modify=True)
            await call("breakpoint_set", location=f"Secrets:{line_of('secrets-stop')}",
                       log="pw={s.password} db={dbPassword} tok={apiToken}")
            await call("watch_add", expression="s.password")
            first = await call("resume", timeout=20)  # the watchpoint stops in the constructor
            assert "redacted" in first
            stop = await call("resume", timeout=20)  # the logpoint logs, the watchpoint stops in main
            assert "redacted" in stop and "main" in stop
            await call("snapshot")
            await call("locals")
            await call("stack", locals=True)
            inspected = await call("inspect", target="s")
            assert "redacted" in inspected and "alice" in inspected  # only the secret is hidden
            await call("inspect", target="s.config")
            await call("inspect", target="fixtures.Secrets.apiToken")
            await call("evaluate", expression="s.password")
            await call("evaluate", expression="dbPassword")
            await call("events", limit=500)
            await call("resume", timeout=20)
            await call("events", limit=500)
    finally:
        await app.close()


async def test_catalog_redact_hides_secret_values(jvm_factory, line_of):
    target = jvm_factory("Secrets")
    debugger = Debugger(redact=True)
    catalog, selection = default_catalog(), Selection(wait_timeout=20.0)
    try:
        for line in [f"attach {target.address}", f"stop at Secrets:{line_of('secrets-stop')}", "cont",
                     "locals", "print s", "dump s", "print s.password", "print dbPassword", "print apiToken",
                     "dump s.config", "display s.password", "where", "events"]:
            result = await catalog.execute(debugger, line, Actor.PERSON, selection)
            assert result.ok, (line, result.text)
            no_secret(result.text)
    finally:
        await debugger.close()


# -- names from the target are not paths ------------------------------------------------------------------


def test_source_names_from_the_target_cannot_escape_the_source_roots(tmp_path):
    root = tmp_path / "src"
    (root / "com" / "acme").mkdir(parents=True)
    (root / "com" / "acme" / "Foo.java").write_text("package com.acme;\nclass Foo {}\n")
    outside = tmp_path / "outside.java"
    outside.write_text("secret\n")
    sources = SourcePath([str(root)], cwd=str(root))
    assert sources.find("com.acme.Foo", "Foo.java") == root / "com" / "acme" / "Foo.java"
    for hostile in ["../../outside.java", str(outside), "..", "a/../../outside.java", "..\\..\\outside.java",
                    "Foo.java\x00.txt"]:
        assert sources.find("com.acme.Foo", hostile) is None, hostile
    assert sources.find("..", None) is None and sources.find("...outside", None) is None


# -- issue 25, point 3: --redact decides at the output, for every front end --------------------------------

LEAK_SECRETS = (*SECRETS, "cfg-PASSWORD", "props-SECRET")


def no_leak(text: str, what: str) -> None:
    leaked = [s for s in LEAK_SECRETS if s in text]
    assert not leaked, f"{what} leaked {leaked}: {text[:600]}"


async def test_mcp_redact_holds_for_computed_values_events_and_the_log_file(tmp_path, jvm_factory, line_of):
    """A real `tracepilot --mcp --redact`: answers, errors, events and its log file never carry a secret,
    whoever computed it (a toString() in the target, an exception message, a map lookup by a computed key);
    the log file is its owner's only."""
    import os
    import stat

    from mcp.client import Client
    from mcp_harness import server_command

    target = jvm_factory("Secrets")
    log_file = tmp_path / "mcp.log"
    log_file.write_text("")
    log_file.chmod(0o644)  # as an older tracepilot left it
    async with Client(server_command("--redact", log_file=log_file)) as client:
        async def call(tool: str, **args) -> str:
            result = await client.call_tool(tool, args)
            text = "\n".join(getattr(b, "text", "") for b in result.content)
            no_leak(text, f"{tool} {args}")
            no_leak(repr(result.structured_content), f"{tool} {args} (structured)")
            return text

        await call("attach", address=target.address)
        await call("breakpoint_set", location=f"Secrets:{line_of('secrets-leaks')}")
        assert "STOPPED" in await call("resume", timeout=20)
        for expression in ("String.valueOf(u)", 'String.format("%s", u)', "java.util.Arrays.toString(users)",
                           "login.toString()", 'cfg.get("pass" + "word")', "cfg.toString()",
                           'props.getProperty("db." + "pass" + "word")', "Integer.parseInt(u.password)"):
            await call("evaluate", expression=expression)
        await call("inspect", target="cfg.head")
        await call("mark", target="u.password", label="pw")
        await call("referrers", target="u.password")
        await call("watch_add", expression="Integer.parseInt(u.password)")
        await call("breakpoint_set", location=f"Secrets:{line_of('secrets-step')}",
                   log="pw={Integer.parseInt(u.password)}")
        await call("method_break", method="fixtures.Secrets.passwordOf", on="exit")
        assert "returning <redacted>" in await call("resume", timeout=20)
        await call("evaluate", expression="$return")
        await call("events", limit=500)
        await call("watch_add", expression="u.name")  # the watch list with its history
        await call("detach")
    no_leak(log_file.read_text(encoding="utf-8"), "the log file")
    assert stat.S_IMODE(os.stat(log_file).st_mode) == 0o600


async def test_dap_evaluate_under_redact_hides_computed_secrets(jvm_factory, line_of):
    """DAP's evaluate request (the debug console, hovers) answers through the same core: no secret."""
    from tracepilot.dap.adapter import Adapter

    target = jvm_factory("Secrets")
    debugger = Debugger(redact=True)
    sent: list[dict] = []
    adapter = Adapter(debugger, sent.append)
    try:
        await debugger.attach(target.address, timeout=20)
        await debugger.breakpoint_set(f"Secrets:{line_of('secrets-leaks')}")
        assert (await debugger.resume(timeout=20)).stopped
        for seq, expression in enumerate(["String.valueOf(u)", "Integer.parseInt(u.password)",
                                           'cfg.get("pass" + "word")', "new StringBuilder().append(u)"], 1):
            await adapter.handle({"seq": seq, "type": "request", "command": "evaluate",
                                  "arguments": {"expression": expression, "context": "repl"}})
            answer = next(m for m in sent if m.get("request_seq") == seq)
            no_leak(repr(answer), f"DAP evaluate {expression}")
        assert any(m.get("success") and "<redacted>" in m["body"]["result"] for m in sent), sent
    finally:
        await adapter.close()
        await debugger.close()
