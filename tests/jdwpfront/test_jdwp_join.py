"""The two ways in from the command line: `--jdwp-port N` on the session's owner (its publish hook), and
`tracepilot jdwp --join SESSION --port 0` from another process (a relay over the share socket), read-only here;
and what --redact hides from a client."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest
from guest_support import line_process

from support.jdb import jdb_attached, jdb_of, quit_cleanly, stop_at
from support.relay import announced_port, start_relay
from tracepilot.core.debugger import Debugger
from tracepilot.jdwpfront import JdwpFrontEnd, hosting
from tracepilot.share import hooks
from tracepilot.share.host import published

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def share_dir(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    path = Path(tempfile.mkdtemp(prefix="tp-jdwp-"))  # short: Unix socket paths are limited to ~100 bytes
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(path))
    monkeypatch.setenv(hosting.PORT_ENV, "0")
    monkeypatch.setattr(hooks, "PUBLISH_HOOKS", [])
    monkeypatch.setattr(hooks, "STREAM_HANDLERS", {})
    monkeypatch.setattr("tracepilot.share.host.PUBLISH_HOOKS", hooks.PUBLISH_HOOKS)
    monkeypatch.setattr("tracepilot.share.host.STREAM_HANDLERS", hooks.STREAM_HANDLERS)
    hosting.install()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def test_the_owner_offers_jdwp_and_another_process_joins_read_only(share_dir, default_jdk, jvm_factory, line_of,
                                                                          jdk17_tools, guest_client_classes):
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    debugger = Debugger()
    await debugger.attach(target.address)
    try:
        async with published(debugger, "test") as host:
            front = hosting.front_end_for(debugger)
            async with asyncio.timeout(10):
                while not front.port:
                    await asyncio.sleep(0.05)  # (the listener starts in a task of the publish hook)
            # --jdwp-port: a JDI client on the owner's port.
            async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestRounds", str(front.port),
                                    str(line_of("guest-alpha-only")), "2") as client:
                await client.expect("DONE")
                await client.send("leave")
                await client.expect("DETACHED")
            await front.guest_left()

            # jdwp --join: jdb through a relay in another process, read-only.
            relay = await start_relay(host.info.id, "--port", "0", "--name", "joined", "--read-only")
            try:
                port = await announced_port(relay)
                async with jdb_attached(jdb_of(jdk17_tools), port) as person:
                    await stop_at(person, f"fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                    await person.send("print who")
                    await person.expect('who = "alpha"')
                    await person.send("print basket.total()")  # a call: refused in a read-only guest
                    refusal = await wait_for_text(debugger, "joined: ObjectReference.InvokeMethod refused")
                    assert "read-only" in refusal
                    texts = [r.text for r in debugger.history.since(0)]
                    assert any(t.startswith("joined: breakpoint in thread alpha") for t in texts), texts
                    await quit_cleanly(person, cont=False)
                await front.guest_left()
            finally:
                relay.kill()
                await relay.wait()
            status = await debugger.status()
            assert status.state.value == "RUNNING" and not status.suspended, status
    finally:
        await debugger.close()


async def wait_for_text(debugger: Debugger, needle: str, timeout: float = 10.0) -> str:
    async with asyncio.timeout(timeout):
        while True:
            for record in debugger.history.since(0):
                if needle in record.text:
                    return record.text
            await asyncio.sleep(0.05)


async def test_a_redacting_session_hides_its_secrets_and_keeps_its_jvm_from_the_client(default_jdk, jvm_factory, line_of,
                                                                                 jdk17_tools, guest_client_classes):
    target = jvm_factory("Secrets", jdk=default_jdk, suspend=False)
    debugger = Debugger(redact=True)
    await debugger.attach(target.address)
    front = JdwpFrontEnd(debugger, name="IDE")
    try:
        await debugger.breakpoint_set(f"Secrets:{line_of('secrets-leaks')}")
        await debugger.wait_for_stop(15)
        assert "redacted" in (await debugger.evaluate("u.password")).text  # the session learns the secret
        port = await front.start()
        async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestRead", str(port), "main",
                                "u", "password", "exit") as client:
            await client.expect("VALUE")
            assert client.value("VALUE") == "<redacted>"
            await client.expect("EXIT")
            assert await client.proc.wait() == 0
        await front.guest_left()
        # Its VirtualMachine.Exit was refused and detached it: the JVM and the session are still there.
        assert "VirtualMachine.Exit refused" in " ".join(r.text for r in debugger.history.since(0))
        assert target.returncode is None
        assert (await debugger.status()).state.value == "STOPPED"
    finally:
        await front.close()
        await debugger.close()
