"""The JDWP front end's doors as a person uses them, each through real processes: `tracepilot --mcp --jdwp-port 0`
(the port on stderr, jdb in through it while the stdio MCP client holds the JVM), and `tracepilot jdwp --join
tcp://... --token T` over a session shared with --share-tcp (the right token works; a wrong or missing one is
refused with a message saying so)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from guest_support import line_process
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp_harness import McpSession, server_command

from tracepilot.core.debugger import Debugger
from tracepilot.jdwpfront import hosting
from tracepilot.share import hooks
from tracepilot.share.host import published

pytestmark = pytest.mark.timeout(60)
SRC = Path(__file__).resolve().parents[2] / "src"
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
    jdb = str(Path(jdk17_tools[1]).with_name("jdb"))
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
            async with line_process(jdb, "-attach", f"127.0.0.1:{port}", stderr_to_stdout=True) as person:
                await person.expect("Initializing jdb")
                await person.send(f"stop at fixtures.JdwpGuest:{line}")
                hit = await person.expect("Breakpoint hit:")
                assert "thread=alpha" in hit and f"line={line}" in hit, hit
                await person.send("print who")
                await person.expect('who = "alpha"')

                status = await agent.ok("status")
                assert "alpha: breakpoint of IDE" in status.text, status.text  # jdb's hold, counted as the guest's
                events = (await agent.ok("events")).text
                assert re.search(r"\w+: breakpoint in thread alpha", events), events
                held = await agent.ok("evaluate", expression="who", thread="alpha")  # the agent looks at it too
                assert "alpha" in held.text, held.text

                await person.send(f"clear fixtures.JdwpGuest:{line}")
                await person.expect("Removed:")
                await person.send("cont")
                await person.send("quit")
                assert await person.proc.wait() == 0
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


RELAY_PORT_LINE = re.compile(r"JDWP on 127\.0\.0\.1:(\d+)")


async def _announced_port(relay: asyncio.subprocess.Process, timeout: float = 20.0) -> int:
    """The relay's port, from the first stdout line that carries it (other lines may come first), within `timeout`."""
    seen: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while raw := await relay.stdout.readline():
                seen.append(line := raw.decode(errors="replace").rstrip("\n"))
                if found := RELAY_PORT_LINE.search(line):
                    return int(found.group(1))
    except TimeoutError:
        raise AssertionError(f"no port line from the relay within {timeout:g}s; stdout:\n" + "\n".join(seen)) from None
    err = (await relay.stderr.read()).decode(errors="replace")
    raise AssertionError("the relay ended before announcing its port; stdout:\n" + "\n".join(seen) + "\nstderr:\n" + err)


async def _relay(*args: str) -> asyncio.subprocess.Process:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tracepilot.cli", "jdwp", "--join", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)


async def test_jdwp_join_over_tcp_needs_the_sessions_token(tcp_shared, default_jdk, jvm_factory, line_of, jdk17_tools):
    jdb = str(Path(jdk17_tools[1]).with_name("jdb"))
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    debugger = Debugger()
    await debugger.attach(target.address)
    try:
        async with published(debugger, "test") as host:
            session = f"tcp://{host.info.tcp}"
            # No token: refused at once, saying what to pass.
            missing = await _relay(session, "--port", "0")
            _out, err = await asyncio.wait_for(missing.communicate(), 20)
            assert missing.returncode == 1 and "needs its token" in err.decode() and "--token" in err.decode(), err

            # A wrong token: refused at once too, not when the IDE connects.
            wrong = await _relay(session, "--port", "0", "--token", "not-the-token")
            _out, err = await asyncio.wait_for(wrong.communicate(), 20)
            assert wrong.returncode == 1 and "refused the token" in err.decode() and "--token" in err.decode(), err

            # The right token: jdb works through it.
            relay = await _relay(session, "--port", "0", "--token", host.tcp_token, "--name", "remote")
            try:
                port = await _announced_port(relay)
                async with line_process(jdb, "-attach", f"127.0.0.1:{port}", stderr_to_stdout=True) as person:
                    await person.expect("Initializing jdb")
                    await person.send(f"stop at fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                    await person.expect("Breakpoint hit:")
                    await person.send("print who")
                    await person.expect('who = "alpha"')
                    texts = [r.text for r in debugger.history.since(0)]
                    assert any(t.startswith("remote: breakpoint in thread alpha") for t in texts), texts
                    await person.send(f"clear fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                    await person.expect("Removed:")
                    await person.send("cont")
                    await person.send("quit")
                    assert await person.proc.wait() == 0
                await hosting.front_end_for(debugger).guest_left()
            finally:
                relay.kill()
                await relay.wait()
            status = await debugger.status()
            assert status.state.value == "RUNNING" and not status.suspended, status
    finally:
        await debugger.close()
