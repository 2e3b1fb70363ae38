"""The JDWP front end's doors as a person uses them, each through real processes: `tracepilot --mcp --jdwp-port 0`
(the port on stderr, jdb in through it while the stdio MCP client holds the JVM), and `tracepilot jdwp --join
tcp://... --token T` over a session shared with --share-tcp (the right token works; a wrong or missing one is
refused with a message saying so)."""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp_harness import McpSession, server_command

from support.jdb import clear, jdb_attached, jdb_of, quit_cleanly, stop_at
from support.relay import announced_port, start_relay
from tracepilot.core.debugger import Debugger
from tracepilot.jdwpfront import hosting
from tracepilot.share import hooks
from tracepilot.share.host import published

pytestmark = pytest.mark.timeout(60)
PORT_LINE = re.compile(r"JDWP front end on 127\.0\.0\.1:(\d+)")


@pytest.fixture
def share_dir(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    path = Path(tempfile.mkdtemp(prefix="tp-jdoor-"))  # short: Unix socket paths are limited to ~100 bytes
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(path))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def _port_from(log: Path, timeout: float = 20.0) -> int:
    async with asyncio.timeout(timeout):
        while not (found := PORT_LINE.search(log.read_text(errors="replace"))):
            await asyncio.sleep(0.05)  # (a file the subprocess writes its stderr to: nothing to await on)
    return int(found.group(1))


async def test_mcp_with_jdwp_port_prints_it_and_the_agent_sees_jdbs_stop(share_dir, tmp_path, default_jdk,
                                                                          jvm_factory, line_of, jdk17_tools):
    jdb = jdb_of(jdk17_tools)
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    line = line_of("guest-alpha-only")
    stderr_path = tmp_path / "mcp-stderr.txt"
    with stderr_path.open("w") as stderr:
        params = server_command("--jdwp-port", "0", log_file=tmp_path / "mcp.log")
        async with Client(stdio_client(params, errlog=stderr)) as client:
            agent = McpSession(client)
            await agent.ok("attach", address=target.address)  # the session publishes: the front end listens
            port = await _port_from(stderr_path)
            async with jdb_attached(jdb, port) as person:
                hit = await stop_at(person, f"fixtures.JdwpGuest:{line}")
                assert "thread=alpha" in hit and f"line={line}" in hit, hit
                await person.send("print who")
                await person.expect('who = "alpha"')

                status = await agent.ok("status")
                assert "alpha: breakpoint of IDE" in status.text, status.text  # jdb's hold, counted as the guest's
                events = (await agent.ok("events")).text
                assert re.search(r"\w+: breakpoint in thread alpha", events), events
                held = await agent.ok("evaluate", expression="who", thread="alpha")  # the agent looks at it too
                assert "alpha" in held.text, held.text

                await clear(person, f"fixtures.JdwpGuest:{line}")
                await quit_cleanly(person)
            async with asyncio.timeout(10):  # the agent keeps its session, running again
                while (status := await agent.ok("status")).data.get("suspended") or "RUNNING" not in status.text:
                    await asyncio.sleep(0.1)  # (the guest's leaving is the front end's to notice, a moment later)
            assert "the JDWP debugger left" in (await agent.ok("events")).text


@pytest.fixture
def tcp_shared(share_dir, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """This process hosts sessions the way `--share-tcp 0` does, with the JDWP front end's stream handler."""
    monkeypatch.setenv("TRACEPILOT_SHARE_TCP", "0")
    monkeypatch.delenv(hosting.PORT_ENV, raising=False)
    monkeypatch.setattr(hooks, "PUBLISH_HOOKS", [])
    monkeypatch.setattr(hooks, "STREAM_HANDLERS", {})
    monkeypatch.setattr("tracepilot.share.host.PUBLISH_HOOKS", hooks.PUBLISH_HOOKS)
    monkeypatch.setattr("tracepilot.share.host.STREAM_HANDLERS", hooks.STREAM_HANDLERS)
    hosting.install()
    return share_dir


async def test_jdwp_join_over_tcp_needs_the_sessions_token(tcp_shared, default_jdk, jvm_factory, line_of, jdk17_tools):
    jdb = jdb_of(jdk17_tools)
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    debugger = Debugger()
    await debugger.attach(target.address)
    try:
        async with published(debugger, "test") as host:
            session = f"tcp://{host.info.tcp}"
            # No token: refused at once, saying what to pass.
            missing = await start_relay(session, "--port", "0")
            _out, err = await asyncio.wait_for(missing.communicate(), 20)
            assert missing.returncode == 1 and "needs its token" in err.decode() and "--token" in err.decode(), err

            # A wrong token: refused at once too, not when the IDE connects.
            wrong = await start_relay(session, "--port", "0", "--token", "not-the-token")
            _out, err = await asyncio.wait_for(wrong.communicate(), 20)
            assert wrong.returncode == 1 and "refused the token" in err.decode() and "--token" in err.decode(), err

            # The right token: jdb works through it.
            relay = await start_relay(session, "--port", "0", "--token", host.tcp_token, "--name", "remote")
            try:
                port = await announced_port(relay)
                async with jdb_attached(jdb, port) as person:
                    await stop_at(person, f"fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                    await person.send("print who")
                    await person.expect('who = "alpha"')
                    texts = [r.text for r in debugger.history.since(0)]
                    assert any(t.startswith("remote: breakpoint in thread alpha") for t in texts), texts
                    await clear(person, f"fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                    await quit_cleanly(person)
                await hosting.front_end_for(debugger).guest_left()
            finally:
                relay.kill()
                await relay.wait()
            status = await debugger.status()
            assert status.state.value == "RUNNING" and not status.suspended, status
    finally:
        await debugger.close()
