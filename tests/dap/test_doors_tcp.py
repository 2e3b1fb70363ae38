"""Issue 25 point 1: `tracepilot dap --port N` (and `dap --join S --port N`) serves only its own user.

A client must present the adapter's token in its launch/attach arguments; the token is printed on stderr and
in a 0600 file of the private session directory. The owner's editor (npm DebugClient, tcp_token.mjs) runs a
session with it; a second OS user (created here when the tests run as root) can neither read the token nor
launch, attach, or see anything of a joined session."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.share.host import SessionHost

from .conftest import DAP_DIR, SCENARIO_TIMEOUT, scenario_env
from .raw_dap import adapter_env

pytestmark = pytest.mark.timeout(120)

SECOND_USER = "tpdoors"
LISTENING = re.compile(r'listening on 127\.0\.0\.1:(\d+); a client must send "token": "([^"]+)".*also in (\S+),')


class TcpAdapter:
    def __init__(self, proc: asyncio.subprocess.Process, port: int, token: str, token_file: Path) -> None:
        self.proc, self.port, self.token, self.token_file = proc, port, token, token_file

    @classmethod
    async def start(cls, *args: str, share_dir: Path) -> TcpAdapter:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tracepilot.cli", "dap", *args, "--port", "0",
            env=adapter_env(TRACEPILOT_SHARE_DIR=str(share_dir)), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        match = LISTENING.search(line)
        assert match, f"no listening line with the token and its file: {line!r}"
        return cls(proc, int(match.group(1)), match.group(2), Path(match.group(3)))

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 20)
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


async def test_the_owner_with_the_token_runs_a_session_and_strangers_are_refused(
        dap_client_installed, share_dir, java_classes, jdks, default_jdk):
    adapter = await TcpAdapter.start(share_dir=share_dir)
    try:
        mode = stat.S_IMODE(adapter.token_file.stat().st_mode)
        assert mode == 0o600 and adapter.token_file.read_text().strip() == adapter.token, oct(mode)
        env = scenario_env(java_classes, jdks, default_jdk, port=adapter.port, token=adapter.token)
        result = await asyncio.to_thread(
            subprocess.run, ["node", str(DAP_DIR / "tcp_token.mjs")], cwd=DAP_DIR, env=env, capture_output=True,
            text=True, timeout=SCENARIO_TIMEOUT, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    finally:
        await adapter.stop()
    assert not adapter.token_file.exists(), "the token file outlived the adapter"


# -- a second user ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def second_user() -> str:
    """An unprivileged OS user of our own (created once; left for later runs: other tests may be using it)."""
    if os.geteuid() != 0:
        pytest.skip("a second OS user can only be created when the tests run as root")
    if not (shutil.which("useradd") and shutil.which("runuser")):
        pytest.skip("useradd and runuser are needed to act as a second user")
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the second user runs /usr/bin/python3, which is missing")
    try:
        pwd.getpwnam(SECOND_USER)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                               SECOND_USER], capture_output=True, text=True)
        try:
            pwd.getpwnam(SECOND_USER)
        except KeyError:
            pytest.skip(f"could not create user {SECOND_USER}: {made.stderr.strip()}")
    return SECOND_USER


# Runs as the second user: reads the token file, then speaks DAP to the port without the token.
INTRUDER = r"""
import json, socket, sys
port, token_file, requests = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
out = {}
try:
    open(token_file).read()
    out["token_file"] = "read"
except OSError as e:
    out["token_file"] = type(e).__name__
s = socket.create_connection(("127.0.0.1", port), timeout=20)
for seq, (command, arguments) in enumerate(requests, 1):
    body = json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
    s.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
s.settimeout(8)
data = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
except OSError:
    pass
out["received"] = data.decode(errors="replace")
print(json.dumps(out))
"""


async def _as_second_user(user: str, adapter: TcpAdapter, requests: list) -> dict:
    proc = await asyncio.create_subprocess_exec(
        "runuser", "-u", user, "--", "/usr/bin/python3", "-I", "-c", INTRUDER, str(adapter.port),
        str(adapter.token_file), json.dumps(requests), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd="/")
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    return json.loads(out)


def _messages(received: str) -> list[dict]:
    return [json.loads(body) for body in re.split(r"Content-Length: \d+\r\n\r\n", received) if body.strip()]


async def test_a_second_user_cannot_launch_through_the_port(second_user, share_dir, java_classes, tmp_path):
    marker = tmp_path / "ran"
    adapter = await TcpAdapter.start(share_dir=share_dir)
    try:
        evil = {"mainClass": "fixtures.Quick", "classPaths": [str(java_classes)],
                "vmArgs": [f"-Dignored={marker}"], "javaExec": "/usr/bin/touch"}
        result = await _as_second_user(second_user, adapter, [
            ("initialize", {"adapterID": "java"}), ("threads", {}), ("launch", evil), ("configurationDone", {})])
        assert result["token_file"] == "PermissionError", result
        replies = {m["command"]: m for m in _messages(result["received"]) if m.get("type") == "response"}
        assert replies["initialize"]["success"]
        assert not replies["threads"]["success"] and "token" in replies["threads"]["message"]
        assert not replies["launch"]["success"] and "token" in replies["launch"]["message"], replies
        assert "configurationDone" not in replies, "the connection should end after a launch without the token"
        assert not any(m.get("event") == "process" for m in _messages(result["received"]))
    finally:
        await adapter.stop()


async def test_a_second_user_sees_nothing_of_a_joined_session(
        second_user, share_dir, jvm_factory, default_jdk, java_source_root, line_of):
    jvm = jvm_factory("Secrets", jdk=default_jdk)
    debugger = Debugger(sourcepath=[str(java_source_root)])
    await debugger.attach(jvm.address, timeout=20)
    await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-stop')}")
    assert (await debugger.resume(timeout=30)).stopped
    host = SessionHost(debugger, "test")
    info = await host.start()
    adapter = await TcpAdapter.start("--join", info.id, share_dir=share_dir)
    try:
        result = await _as_second_user(second_user, adapter, [
            ("initialize", {"adapterID": "java"}), ("evaluate", {"expression": "s.password"}),
            ("attach", {}), ("setVariable", {"variablesReference": 1, "name": "round", "value": "5"})])
        assert result["token_file"] == "PermissionError", result
        assert "hunter2" not in result["received"] and "Secrets" not in result["received"], result["received"]
        messages = _messages(result["received"])
        assert not any(m.get("event") in ("stopped", "continued", "output") and "token" not in json.dumps(m)
                       for m in messages), messages
        replies = {m["command"]: m for m in messages if m.get("type") == "response"}
        assert not replies["evaluate"]["success"] and not replies["attach"]["success"], replies
        assert not host.clients, "the adapter joined the session for a stranger"
        assert (await debugger.evaluate("round")).text != "5"
    finally:
        await adapter.stop()
        await host.close()
        await debugger.close()
