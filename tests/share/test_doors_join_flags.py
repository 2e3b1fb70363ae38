"""Issue 25 point 2: a front end that joins a session with --read-only --redact holds its own flags on top of
the host's (here a host with neither): no secret reaches it, no write leaves it, on a real JVM.
Also point 10 for the share protocol: an argument a method does not have is refused with the nearest one."""

from __future__ import annotations

import json

import pytest

from dap.raw_dap import RawDap, adapter_env
from share.conftest import agent_session
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import InvalidArgument
from tracepilot.core.model import SessionState
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import SessionHost

pytestmark = pytest.mark.timeout(120)

SECRETS = ("hunter2-FIELD", "pw-LOCAL", "s3-MAP-VALUE", "tok-STATIC")


def _no_secret(text: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{leaked} leaked: {text[max(0, text.find(leaked[0]) - 300):][:600] if leaked else ''}"


@pytest.fixture
async def open_host(jvm_factory, default_jdk, java_source_root, line_of):
    """A session neither read-only nor redacting, stopped in Secrets.main, published."""
    jvm = jvm_factory("Secrets", jdk=default_jdk)
    debugger = Debugger(sourcepath=[str(java_source_root)])
    await debugger.attach(jvm.address, timeout=20)
    await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-stop')}")
    assert (await debugger.resume(timeout=30)).stopped
    await debugger.breakpoint_remove("all")
    host = SessionHost(debugger, "test")
    info = await host.start()
    try:
        yield debugger, info
    finally:
        await host.close()
        await debugger.close()


async def _host_unchanged(debugger: Debugger) -> None:
    status = await debugger.status()
    assert status.state is SessionState.STOPPED, status
    assert (await debugger.evaluate("s.changes")).text == "0", "a joined read-only client changed the program"
    assert (await debugger.evaluate("round")).text != "5"


async def test_mcp_join_holds_its_own_read_only_and_redact(open_host):
    debugger, info = open_host
    async with agent_session("--join", info.id, "--read-only", "--redact") as agent:
        seen = []
        for tool, args in (("locals", {}), ("evaluate", {"expression": "s.password"}),
                           ("evaluate", {"expression": "dbPassword"}), ("evaluate", {"expression": "s"}),
                           ("inspect", {"target": "s"}), ("snapshot", {}), ("events", {})):
            text, data, error = await agent.call(tool, **args)
            seen.append(f"{tool} {args}: {text} {json.dumps(data)}")
            _no_secret(text + json.dumps(data))
        assert "<redacted>" in "\n".join(seen)
        for tool, args in (("set_value", {"target": "round", "value": "5"}),
                           ("evaluate", {"expression": "s.bump()"}),
                           ("breakpoint_set", {"location": "fixtures.Secrets:1", "condition": "s.bump() > 0"}),
                           ("watch_add", {"expression": "s.password"}),
                           ("detach", {"terminate": True})):
            text, _, error = await agent.call(tool, **args)
            assert error, f"{tool} {args} was not refused: {text}"
        text, _, _ = await agent.call("diagnose")
        assert "read-only" in text
    await _host_unchanged(debugger)


async def test_dap_join_holds_its_own_read_only_and_redact(open_host, share_dir):
    debugger, info = open_host
    dap = await RawDap.stdio("--join", info.id, "--read-only", "--redact",
                             env=adapter_env(TRACEPILOT_SHARE_DIR=str(share_dir)))
    try:
        await dap.request("initialize", {"adapterID": "java"})
        assert (await dap.request("attach", {}))["success"]
        stop = await dap.event("stopped")
        frames = (await dap.request("stackTrace", {"threadId": stop["body"]["threadId"]}))["body"]["stackFrames"]
        scopes = (await dap.request("scopes", {"frameId": frames[0]["id"]}))["body"]["scopes"]
        variables = (await dap.request("variables", {"variablesReference": scopes[0]["variablesReference"]}))
        shown = {v["name"]: v for v in variables["body"]["variables"]}
        assert shown["dbPassword"]["value"] == "<redacted>", shown
        inner = await dap.request("variables", {"variablesReference": shown["s"]["variablesReference"]})
        evaluated = await dap.request("evaluate", {"expression": "s.password", "frameId": frames[0]["id"]})
        _no_secret(json.dumps([variables, inner, evaluated]))
        refused = await dap.request("setVariable", {"variablesReference": scopes[0]["variablesReference"],
                                                    "name": "round", "value": "5"})
        assert not refused["success"] and "read-only" in refused["message"], refused
        refused = await dap.request("disconnect", {"terminateDebuggee": True})
        assert not refused["success"] and "read-only" in refused["message"], refused
    finally:
        await dap.close()
    await _host_unchanged(debugger)


async def test_share_protocol_refuses_an_argument_a_method_does_not_have():
    host = SessionHost(Debugger(), "test")
    info = await host.start()
    remote = await RemoteDebugger.join(info.id)
    try:
        with pytest.raises(InvalidArgument, match="did you mean `condition`"):
            await remote.call("breakpoint_set", location="Orders:25", conditon="n % 7 == 0")
        assert await remote.breakpoint_list() == []
    finally:
        await remote.close()
        await host.close()


def test_what_the_guard_counts_as_a_side_effect_and_a_secret():
    from tracepilot.share.guard import scrub_text, secret_named, side_effect

    assert side_effect("(int) x + a[2] == 3 && s.length > 0") is None
    assert side_effect('name == "f(x) = y"') is None  # inside a string literal: text, not code
    assert side_effect("s.bump() > 0") == "calls a method"
    assert side_effect("x = 5") == "assigns" and side_effect("i++") == "assigns"
    assert side_effect("new int[3]") == "creates an object (`new`)"
    assert secret_named("user.password + 1") == "password" and secret_named('"password"') is None
    assert scrub_text('User{name="bob", apiToken="t-1", n=2}') == 'User{name="bob", apiToken=<redacted>, n=2}'
    assert scrub_text("set bp-1 line fixtures.Secrets:25") == "set bp-1 line fixtures.Secrets:25"
