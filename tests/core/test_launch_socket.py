"""Issue 25, point 5: a launched JVM's debug agent is reachable by tracepilot only.

The JVM connects out (server=n) to a loopback port tracepilot listens on, so the JVM itself listens on no
port; a connection to tracepilot's port from any other process (another user's, or our own user's) is
closed unanswered and the launch still takes the JVM. Real JVMs; the second user is created with useradd
when the tests run as root.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState

pytestmark = pytest.mark.timeout(60)

LISTEN = "0A"
PEER_USER = "tp-jdwp-peer"


def _listening_ports_of(pid: int) -> list[int]:
    """TCP ports process `pid` listens on (its socket inodes matched against /proc/net/tcp{,6})."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(int(link[8:-1]))
    ports = []
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == LISTEN and int(cols[9]) in inodes:
                ports.append(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads /proc (Linux)")
async def test_a_launched_jvm_listens_on_no_port(java_classes, line_of):
    debugger = Debugger()
    try:
        await debugger.launch(main="fixtures.Findings", classpath=[str(java_classes)], args=["300"])
        pid = debugger.session.launched.pid
        command = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        agent = next(arg for arg in command if arg.startswith("-agentlib:jdwp="))
        assert "server=n" in agent and "address=127.0.0.1:" in agent, agent
        assert _listening_ports_of(pid) == [], "the JVM listens: another local user could connect to it"
        port = int(agent.rsplit(":", 1)[1])
        with pytest.raises(ConnectionRefusedError):  # tracepilot's own port closed once the JVM was in
            await asyncio.open_connection("127.0.0.1", port)
        await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
        assert (await debugger.resume(timeout=30)).stopped
    finally:
        await debugger.close()


async def test_a_jvm_that_never_connects_says_why(java_classes):
    debugger = Debugger()
    try:
        with pytest.raises(DebuggerError, match="before its debug agent connected") as failure:
            await debugger.launch(main="fixtures.Findings", classpath=[str(java_classes)],
                                  jvm_args=["-XX:+NoSuchOptionForTracepilot"])
        assert "NoSuchOptionForTracepilot" in str(failure.value)
    finally:
        await debugger.close()


# -- someone else connects to tracepilot's port before the JVM does -----------------------------------------

# A `java` that tells the test its command line, then gives the intruder a head start before the real JVM.
WRAPPER = """#!/bin/sh
printf '%s\\n' "$@" > "{args_file}.part" && mv "{args_file}.part" "{args_file}"
sleep 1.5
exec "{java}" "$@"
"""

# Connects to the launch port as the JVM would, sends the debugger's half of the handshake, reports what
# came back. Started as root, it drops to the other user (when one is given) before connecting.
INTRUDER = r"""
import encodings.idna, json, os, socket, sys  # (imported before the uid drop: the other user may not read them)
port, uid = int(sys.argv[1]), int(sys.argv[2])
if uid >= 0:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
out = {"uid": os.getuid()}
s = socket.socket()
s.settimeout(10)
s.connect(("127.0.0.1", port))
out["connected"] = True
try:
    s.sendall(b"JDWP-Handshake")
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except OSError as e:
    data = b""
    out["error"] = type(e).__name__
out["received"] = data.decode(errors="replace")
print(json.dumps(out))
"""


@pytest.fixture
def second_user():
    """The uid of another OS user, created with useradd for the test (and removed after it)."""
    if os.geteuid() != 0:
        pytest.skip("a second OS user needs root (useradd); the same-user intruder test still runs")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not installed: no second user to connect as")
    created = False
    try:
        pwd.getpwnam(PEER_USER)
    except KeyError:
        done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                               PEER_USER], capture_output=True, text=True)
        if done.returncode != 0 and "already exists" not in done.stderr:
            pytest.skip(f"useradd {PEER_USER} failed: {done.stderr.strip()}")
        created = done.returncode == 0
    try:
        yield pwd.getpwnam(PEER_USER).pw_uid
    finally:
        if created and shutil.which("userdel"):
            subprocess.run(["userdel", PEER_USER], capture_output=True)


async def _intrude_on_launch(tmp_path: Path, java_classes: Path, jdks: dict[str, str], uid: int) -> None:
    args_file = tmp_path / "java-args"
    wrapper = tmp_path / "java"
    wrapper.write_text(WRAPPER.format(args_file=args_file, java=jdks["17"]))
    wrapper.chmod(0o755)
    debugger = Debugger()
    launch = asyncio.ensure_future(debugger.launch(main="fixtures.Findings", classpath=[str(java_classes)],
                                                   args=["300"], java=str(wrapper)))
    try:
        for _ in range(200):
            if args_file.exists() or launch.done():
                break
            await asyncio.sleep(0.05)
        assert args_file.exists(), "the wrapper never ran"
        agent = next(a for a in args_file.read_text().splitlines() if a.startswith("-agentlib:jdwp="))
        port = int(re.search(r"address=127\.0\.0\.1:(\d+)", agent).group(1))
        intruder = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-c", INTRUDER, str(port), str(uid),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(intruder.communicate(), 30)
        assert intruder.returncode == 0, err.decode()
        seen = json.loads(out)
        assert seen["connected"], seen
        assert seen["received"] == "", f"the intruder got an answer: {seen}"
        await asyncio.wait_for(launch, 40)
        status = await debugger.status()
        assert status.vm is not None and status.vm.pid == debugger.session.launched.pid
        events = await debugger.events(since=0)
        assert any("refused a connection to the launch port" in e.text for e in events), events
        assert (await debugger.resume(timeout=30)).state is SessionState.EXITED  # it ran, under us, to its end
        assert "findings ready" in "".join(c.text for c in await debugger.output())
    finally:
        if not launch.done():
            launch.cancel()
        await asyncio.gather(launch, return_exceptions=True)
        await debugger.close()


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="the peer check reads /proc (Linux)")
async def test_another_process_of_the_same_user_cannot_take_the_launched_jvm(tmp_path, java_classes, jdks):
    await _intrude_on_launch(tmp_path, java_classes, jdks, uid=-1)


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="the peer check reads /proc (Linux)")
async def test_another_user_cannot_take_the_launched_jvm(tmp_path, java_classes, jdks, second_user):
    await _intrude_on_launch(tmp_path, java_classes, jdks, uid=second_user)
