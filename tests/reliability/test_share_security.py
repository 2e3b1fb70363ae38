"""Security and load of the share socket (issue 11): the registry directory and sockets are private to the
user (checked), another uid cannot connect (file permissions, and SO_PEERCRED on its own), no front end
that hosts a session listens on TCP, an MCP client and a watcher can hammer one session concurrently, a
follow-only watcher cannot cause side effects even through an expression it inspects, and `--read-only`
holds for a watcher too. tests/share/test_registry_protocol.py covers the basic modes and refusals."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import shutil
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import McpSession, open_session

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import Actor, SessionState
from tracepilot.share import protocol, registry
from tracepilot.share.client import RemoteDebugger
from tracepilot.share.host import SessionHost
from tracepilot.share.protocol import ControlRefused, SessionEnded, ShareError

pytestmark = pytest.mark.timeout(180)

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def share_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's registry (a short path: Unix socket paths are limited to ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="tp-sec-"))
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(path))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def assert_private(info: registry.SessionInfo) -> None:
    directory = Path(info.socket).parent
    assert mode(directory) == 0o700 and os.lstat(directory).st_uid == os.getuid()
    assert stat.S_ISSOCK(os.lstat(info.socket).st_mode) and mode(info.socket) == 0o600
    assert mode(info.descriptor) == 0o600
    assert not list(directory.glob("*.tmp")), "no half-written descriptor left behind"


# -- (1) the directory 0700, each socket and descriptor 0600 ---------------------------------------------


async def test_private_under_a_permissive_umask_and_after_descriptor_rewrites(share_dir: Path, jvm_factory) -> None:
    """A umask of 0 changes nothing; the descriptor rewritten when the target changes stays 0600."""
    target = jvm_factory("Playground", "50")
    share_dir.rmdir()
    old_umask = os.umask(0)
    debugger = Debugger()
    hosts = [SessionHost(debugger, "test"), SessionHost(Debugger(), "test")]  # a second session in one process
    try:
        infos = [await host.start() for host in hosts]
        assert os.umask(0) == 0, "the host restores the process umask"
        for info in infos:
            assert_private(info)
        await debugger.attach(target.address)
        assert json.loads(infos[0].descriptor.read_text())["target"] == target.address  # rewritten
        for info in infos:
            assert_private(info)
    finally:
        os.umask(old_umask)
        for host in hosts:
            await host.close()
        await debugger.close()


async def test_default_directory_under_xdg_runtime_dir_is_private(monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="tp-xdg-"))
    monkeypatch.delenv("TRACEPILOT_SHARE_DIR")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    host = SessionHost(Debugger(), "test")
    try:
        info = await host.start()
        assert Path(info.socket).parent == runtime / "tracepilot"
        assert_private(info)
    finally:
        await host.close()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
async def test_directory_of_another_user_is_refused_to_hosts_and_clients(share_dir: Path) -> None:
    host = SessionHost(Debugger(), "test")
    info = await host.start()
    try:
        os.chown(share_dir, NOBODY, NOBODY)  # someone else's directory (e.g. planted in /tmp before us)
        with pytest.raises(ShareError, match="belongs to another user"):
            await SessionHost(Debugger(), "test").start()
        with pytest.raises(ShareError, match="belongs to another user"):
            await RemoteDebugger.join(info.id)
        os.chown(share_dir, os.getuid(), os.getgid())
        share_dir.chmod(0o755)  # opened up while a session is live: nobody publishes or joins through it
        with pytest.raises(ShareError, match="readable by others"):
            await SessionHost(Debugger(), "test").start()
        with pytest.raises(ShareError, match="readable by others"):
            await RemoteDebugger.join(info.id)
        share_dir.chmod(0o700)
        remote = await RemoteDebugger.join(info.id)  # private again: the owner joins
        assert (await remote.status()).state is SessionState.DISCONNECTED
        await remote.close()
    finally:
        os.chown(share_dir, os.getuid(), os.getgid())
        share_dir.chmod(0o700)
        await host.close()


# -- (2) another user cannot connect ---------------------------------------------------------------------

# Runs as root, imports what it needs, then becomes `nobody` before touching the registry.
INTRUDER = r"""
import json, os, socket, sys
sock_path, descriptor, hello = sys.argv[1], sys.argv[2], sys.argv[3]
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
out = {"uid": os.getuid(), "euid": os.geteuid()}
try:
    open(descriptor).read()
    out["descriptor"] = "read"
except OSError as e:
    out["descriptor"] = type(e).__name__
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(15)
try:
    s.connect(sock_path)
except OSError as e:
    out["connect"] = type(e).__name__
else:
    out["connect"] = "connected"
    data = b""
    try:
        s.sendall(hello.encode() + b'{"type": "command", "id": 1, "method": "status", "args": {}}\n')
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError as e:
        out["io_error"] = type(e).__name__
    out["received"] = data.decode(errors="replace")
print(json.dumps(out))
"""


async def run_as_nobody(info: registry.SessionInfo) -> dict[str, Any]:
    hello = protocol.dumps(protocol.hello("intruder", "agent", False)).decode()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-c", INTRUDER, info.socket, str(info.descriptor), hello,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    result = json.loads(out)
    assert result["uid"] == result["euid"] == NOBODY
    return result


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another uid needs root")
async def test_another_user_cannot_connect(share_dir: Path, jvm_factory, caplog: pytest.LogCaptureFixture) -> None:
    target = jvm_factory("Playground", "50")
    debugger = Debugger()
    await debugger.attach(target.address)
    host = SessionHost(debugger, "test")
    info = await host.start()
    try:
        # layer 1: the 0700 directory (and 0600 files) keep the other user from even reaching the socket
        refused = await run_as_nobody(info)
        assert refused["connect"] == "PermissionError", refused
        assert refused["descriptor"] == "PermissionError", refused

        # layer 2: with the file permissions opened on purpose, SO_PEERCRED alone refuses the peer
        share_dir.chmod(0o711)
        os.chmod(info.socket, 0o666)
        caplog.set_level(logging.WARNING, logger="tracepilot.share")
        try:
            dropped = await run_as_nobody(info)
        finally:
            share_dir.chmod(0o700)
            os.chmod(info.socket, 0o600)
        assert dropped["connect"] == "connected", dropped  # the kernel let it in ...
        assert dropped["received"] == "", f"the host answered another uid: {dropped['received'][:300]}"
        assert "refused a connection from uid 65534" in caplog.text
        assert not host.clients

        # the owner is still served, and nothing the intruder sent reached the session
        remote = await RemoteDebugger.join(info.id)
        try:
            assert (await remote.status()).state is SessionState.STOPPED
            assert all(r.actor is not Actor.AGENT for r in remote.history.since(0)), "no agent ever acted"
        finally:
            await remote.close()
    finally:
        await host.close()
        await debugger.close()


# -- (3) no TCP listener ---------------------------------------------------------------------------------


def tcp_sockets() -> dict[str, str]:
    """inode -> state (hex, 0A = LISTEN) of every TCP socket in this network namespace."""
    sockets: dict[str, str] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with_header = Path(table).read_text().splitlines() if Path(table).exists() else []
        for line in with_header[1:]:
            fields = line.split()
            sockets[fields[9]] = fields[3]
    return sockets


def process_tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        for task in Path(f"/proc/{current}/task").iterdir():
            children = (task / "children").read_text().split() if (task / "children").exists() else []
            todo.extend(int(c) for c in children)
    return pids


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            match = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(fd))
        except OSError:  # closed meanwhile
            continue
        if match:
            inodes.add(match.group(1))
    return inodes


def tcp_of(pid: int) -> dict[str, str]:
    """TCP sockets (inode -> state) held by a process and its children."""
    tcp = tcp_sockets()
    return {inode: tcp[inode] for p in process_tree(pid) for inode in socket_inodes(p) if inode in tcp}


def test_the_tcp_socket_check_sees_a_listener() -> None:
    """The check below would notice one: a listening socket of this very process."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        assert "0A" in tcp_of(os.getpid()).values()
    finally:
        listener.close()


async def read_until(stream: asyncio.StreamReader, needle: str, timeout: float = 30.0) -> str:
    seen = ""
    async def scan() -> str:
        nonlocal seen
        while needle not in seen:
            line = await stream.readline()
            if not line:
                raise AssertionError(f"ended before {needle!r}: {seen[-2000:]}")
            seen += line.decode(errors="replace")
        return seen
    return await asyncio.wait_for(scan(), timeout)


async def test_session_hosts_listen_on_no_tcp_port(tmp_path: Path, jvm_factory, java_source_root: Path) -> None:
    """`tracepilot --mcp` and `tracepilot repl` (hosts without a TUI) attached to JVMs, each with a watcher
    joined: their only TCP sockets are the outgoing JDWP connections; sessions are shared over Unix sockets."""
    mcp_target, repl_target = jvm_factory("Playground", "50"), jvm_factory("Playground", "50")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    repl = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tracepilot.cli", "repl", repl_target.address, cwd=str(REPO), env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    watchers: list[RemoteDebugger] = []
    try:
        async with open_session("stdio", tmp_path) as agent:
            await agent.ok("attach", address=mcp_target.address, sourcepath=[str(java_source_root)])
            assert repl.stdin is not None and repl.stdout is not None
            repl.stdin.write(b"status\n")
            await read_until(repl.stdout, "STOPPED")  # attached, and its session published before that
            sessions = {s.frontend: s for s in registry.list_sessions()}
            assert set(sessions) == {"mcp", "repl"}, sessions
            assert sessions["repl"].pid == repl.pid
            for info in sessions.values():
                assert_private(info)
                watchers.append(await RemoteDebugger.join(info.id))
                assert (await watchers[-1].status()).state is SessionState.STOPPED
            for info, jvm in ((sessions["mcp"], mcp_target), (sessions["repl"], repl_target)):
                tcp = tcp_of(info.pid)
                listening = [inode for inode, state in tcp.items() if state == "0A"]
                assert not listening, f"{info.frontend} host (pid {info.pid}) listens on TCP: {tcp}"
                assert "01" in tcp.values(), f"the {info.frontend} host's JDWP connection to {jvm.address} is seen"
                assert Path(info.socket).exists() and stat.S_ISSOCK(os.lstat(info.socket).st_mode)
    finally:
        for watcher in watchers:
            await watcher.close()
        if repl.stdin is not None:
            repl.stdin.close()
        try:
            await asyncio.wait_for(repl.wait(), 20)
        except TimeoutError:
            repl.kill()
            await repl.wait()


# -- (4) an MCP client and a watcher, 1,000 commands at once ----------------------------------------------

OPS_PER_SIDE = 500
WORKERS_PER_SIDE = 4
EXPRESSION = {"agent": "p.counter + 1", "person": "staticCounter * 2"}
# what a look may answer while another client has the program running, or paused outside main's loop
EXPECTED_ERRORS = "|".join(["not stopped", "no current thread", "is running", "cannot find symbol", "not suspended",
                            "no longer", "stale", "resumed", "INVALID_FRAMEID", "THREAD_NOT_SUSPENDED"])


def plan(rng: random.Random) -> list[str]:
    """One side's commands: mostly looks, breakpoint churn, evaluations, and a few resumes and pauses."""
    kinds = ["status", "events", "stack", "locals", "evaluate", "breakpoint"]
    ops = rng.choices(kinds, weights=[20, 15, 15, 15, 15, 10], k=OPS_PER_SIDE - 6)
    for i, op in enumerate(["resume", "pause", "resume", "pause", "resume", "pause"]):
        ops.insert(rng.randrange(len(ops)) if i else 100, op)
    return ops


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.answered = 0
        self.ok: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self.breakpoints: list[str] = []  # ids this side set (each set and removed again)

    def answer(self, op: str, ok: bool, detail: str = "") -> None:
        self.answered += 1
        if ok:
            self.ok[op] = self.ok.get(op, 0) + 1
        else:
            key = f"{op}: {detail[:160]}"
            self.errors[key] = self.errors.get(key, 0) + 1


async def agent_op(agent: McpSession, op: str, tally: Tally, location: str) -> None:
    async def call(name: str, **args: Any) -> Any:
        tally.sent += 1
        reply = await agent.call(name, **args)
        assert reply.text.strip() != f"Error executing tool {name}", f"unmapped crash in {name}"
        tally.answer(name, not reply.error, reply.text)
        return reply

    if op == "breakpoint":
        reply = await call("breakpoint_set", location=location)
        if not reply.error:
            bp_id = re.search(r"\bbp-\d+\b", reply.text).group(0)
            tally.breakpoints.append(bp_id)
            await call("breakpoint_remove", id=bp_id)
    elif op == "events":
        await call("events", limit=50)
    elif op == "stack":
        await call("stack", count=5)
    elif op == "evaluate":
        await call("evaluate", expression=EXPRESSION["agent"])
    elif op == "resume":
        await call("resume", timeout=10)
    elif op == "pause":  # then back to the loop breakpoint, where the looks work
        await call("pause")
        await call("resume", timeout=10)
    else:
        await call(op)


async def watcher_op(watcher: RemoteDebugger, op: str, tally: Tally, location: str) -> None:
    async def call(name: str, *args: Any, **kwargs: Any) -> Any:
        tally.sent += 1
        try:
            value = await getattr(watcher, name)(*args, **kwargs)
        except (SessionEnded, ControlRefused):
            raise
        except DebuggerError as e:  # an answer: e.g. "not stopped" while another client resumed
            tally.answer(name, False, f"{type(e).__name__}: {e}")
            return None
        tally.answer(name, True)
        return value

    if op == "breakpoint":
        info = await call("breakpoint_set", location)
        if info is not None:
            tally.breakpoints.append(info.id)
            await call("breakpoint_remove", info.id)
    elif op == "events":
        await call("events", since=max(0, watcher.history.last_seq - 50), limit=50)
    elif op == "stack":
        await call("stack", count=5)
    elif op == "evaluate":
        await call("evaluate", EXPRESSION["person"])
    elif op == "resume":
        await call("resume", timeout=10)
    elif op == "pause":
        await call("pause")
        await call("resume", timeout=10)
    else:
        await call(op)


async def test_mcp_and_a_watcher_send_1000_commands_concurrently(tmp_path: Path, jvm_factory, line_of,
                                                                 java_source_root: Path) -> None:
    target = jvm_factory("Playground", "50")
    loop_body = f"fixtures.Playground:{line_of('loop-body')}"
    never_hit = {"agent": f"fixtures.Playground:{line_of('risky-npe')}",  # the program runs without `throw`
                 "person": f"fixtures.Playground:{line_of('main-end')}"}  # after 50 iterations; we use a few
    async with open_session("stdio", tmp_path) as agent:
        await agent.ok("attach", address=target.address, sourcepath=[str(java_source_root)])
        await agent.ok("breakpoint_set", location=loop_body)
        assert "STOPPED" in (await agent.ok("resume", timeout=20)).text
        [info] = registry.list_sessions()
        watcher = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
        try:
            first_seq = watcher.history.last_seq
            rng = random.Random(11)
            tallies = {"agent": Tally(), "person": Tally()}
            queues = {"agent": plan(rng), "person": plan(rng)}

            async def worker(side: str) -> None:
                ops = queues[side]
                while ops:
                    op = ops.pop(0)
                    if side == "agent":
                        await agent_op(agent, op, tallies[side], never_hit[side])
                    else:
                        await watcher_op(watcher, op, tallies[side], never_hit[side])

            started = time.monotonic()
            await asyncio.wait_for(asyncio.gather(*(worker(side) for side in ("agent", "person")
                                                    for _ in range(WORKERS_PER_SIDE))), 60)
            elapsed = time.monotonic() - started

            # the session still answers both, and settles stopped at the loop breakpoint
            settled = await agent.ok("wait_for_stop", timeout=10)
            assert "STOPPED" in settled.text, settled.text
            assert (await watcher.status()).state is SessionState.STOPPED
            host_events = await agent.ok("events", since=first_seq, limit=10_000)
        finally:
            await watcher.close()

    sent = sum(t.sent for t in tallies.values())
    print(f"\n{sent} commands in {elapsed:.1f}s; errors (answers): "
          f"{ {side: t.errors for side, t in tallies.items()} }")
    assert sent >= 2 * OPS_PER_SIDE
    for side, tally in tallies.items():
        assert tally.answered == tally.sent, f"{side}: {tally.sent - tally.answered} calls never answered"
        # How many looks land while the other side has the program running depends on timing (two cores
        # shared with the JVM); what must hold is that looks at a stop keep working at all.
        looks_ok = sum(tally.ok.get(op, 0) for op in ("stack", "locals", "evaluate"))
        assert looks_ok > 0, f"{side}: no look at a stop succeeded: {tally.errors}"
        unexpected = [k for k in tally.errors if not re.search(EXPECTED_ERRORS, k)]
        assert not unexpected, f"{side}: errors other than 'not stopped here': {unexpected}"
        never_fail = [k for k in tally.errors if k.split(":")[0] in ("status", "events", "breakpoint_set",
                                                                     "breakpoint_remove")]
        assert not never_fail, f"{side}: calls that do not depend on the stop failed: {never_fail}"

    # history: the watcher's mirror has every record once, in order, the same as the host's
    records = watcher.history.since(first_seq)
    records = [r for r in records if r.kind != "session_ended"]
    seqs = [r.seq for r in records]
    assert seqs == sorted(set(seqs)), "seq strictly increasing, no repeats"
    assert seqs == list(range(first_seq + 1, first_seq + 1 + len(seqs))), "no record lost"
    host = [(e["seq"], e["kind"], e["actor"]) for e in host_events.data["events"]]
    assert host == [(r.seq, r.kind, r.actor.value) for r in records], "the watcher saw the host's history"

    # actors: who did what
    by_actor = {"agent": Actor.AGENT, "person": Actor.PERSON}
    for side, tally in tallies.items():
        actor = by_actor[side]
        sets = [r for r in records if r.kind == "breakpoint_set" and r.data.get("breakpoint") in tally.breakpoints]
        assert len(sets) == len(tally.breakpoints) == tally.ok.get("breakpoint_set", 0)
        assert all(r.actor is actor for r in sets), side
        removed = [r for r in records if r.kind == "breakpoint_removed"
                   and set(r.data.get("breakpoints") or ()) & set(tally.breakpoints)]
        assert len(removed) == tally.ok.get("breakpoint_remove", 0) and all(r.actor is actor for r in removed)
        evaluations = [r for r in records if r.kind == "evaluate" and r.data.get("expression") == EXPRESSION[side]]
        assert len(evaluations) == tally.ok.get("evaluate", 0) and all(r.actor is actor for r in evaluations)
    for record in records:
        if record.kind in ("resume", "pause", "breakpoint_set", "breakpoint_removed", "evaluate"):
            assert record.actor in (Actor.AGENT, Actor.PERSON), record
        elif record.kind in ("stop", "thread_start", "thread_death", "breakpoint_verified", "log"):
            assert record.actor is Actor.TARGET, record
    assert {r.actor for r in records if r.kind == "resume"} == {Actor.AGENT, Actor.PERSON}


# -- (5) a follow-only watcher cannot cause side effects, even through inspect --------------------------


async def stopped_secrets(jvm_factory, line_of) -> tuple[Any, Debugger]:
    target = jvm_factory("Secrets")
    debugger = Debugger()
    await debugger.attach(target.address)
    await debugger.breakpoint_set(f"Secrets:{line_of('secrets-stop')}")
    result = await debugger.resume(timeout=20)
    assert result.stopped, result
    return target, debugger


async def test_follow_only_inspect_cannot_invoke_methods(jvm_factory, line_of) -> None:
    target, debugger = await stopped_secrets(jvm_factory, line_of)
    host = SessionHost(debugger, "test")
    info = await host.start()
    follower = await RemoteDebugger.join(info.id, follow_only=True)
    driver = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
    invoking = ["s.bump()", "new StringBuilder().append(s.bump())", "s.config.put(\"k\", \"v\")",
                "s.changes = 5", "s.changes++", "new int[3]"]
    try:
        before = debugger.history.last_seq
        for expression in invoking:
            with pytest.raises(DebuggerError, match=r"side effects are disabled \(follow-only client\)"):
                await follower.inspect(expression)
            with pytest.raises(DebuggerError, match=r"side effects are disabled \(follow-only client\)"):
                await follower.referrers(expression)
            line = await follower.execute_line(f"dump {expression}")
            assert not line.ok and "side effects are disabled (follow-only client)" in line.text, line.text
            for refused in (follower.evaluate(expression), follower.execute_line(f"print {expression}")):
                try:
                    answer = await refused
                except ControlRefused:
                    continue
                assert not answer.ok and "follow-only" in answer.text, answer.text
        # looking still works for it, reading fields without running code
        assert '"alice"' in [child.value.text for child in (await follower.inspect("s")).children]
        assert [entry.key.text for entry in (await follower.inspect("s.config")).entries]
        assert await follower.locals()
        # nothing ran in the target, and the follower left no action in the history
        assert (await debugger.evaluate("s.changes")).text == "0"
        assert "s.bump" not in "".join(r.text for r in debugger.history.since(before))
        assert target.returncode is None

        # the refusal is the follower's, not the session's: a driver's inspect does invoke, and the host's
        # own conditions still may (the restriction does not leak out of the follower's commands)
        await driver.inspect("new StringBuilder().append(s.bump())")
        assert (await debugger.evaluate("s.changes")).text == "1"
        await debugger.breakpoint_remove("all")
        await debugger.breakpoint_set(f"Secrets:{line_of('secrets-write')}", condition="s.bump() > 0")
        assert (await debugger.resume(timeout=20)).stopped
        assert int((await debugger.evaluate("s.changes")).text) >= 2
    finally:
        await follower.close()
        await driver.close()
        await host.close()
        await debugger.close()


# -- (6) --read-only holds over the share socket --------------------------------------------------------


async def test_read_only_host_refuses_a_watchers_side_effects(tmp_path: Path, jvm_factory, line_of) -> None:
    target = jvm_factory("Secrets")
    async with open_session("stdio", tmp_path, read_only=True) as agent:
        await agent.ok("attach", address=target.address)
        await agent.ok("breakpoint_set", location=f"Secrets:{line_of('secrets-stop')}")
        assert "STOPPED" in (await agent.ok("resume", timeout=20)).text
        round_before = (await agent.ok("evaluate", expression="round")).data
        [info] = registry.list_sessions()
        watcher = await RemoteDebugger.join(info.id, actor=Actor.PERSON)
        try:
            assert watcher.session.read_only and watcher.initial["read_only"] is True
            facade_calls = [
                ("set_value", ("round", "5")), ("set_value", ("s.password", '"x"')), ("set_value", ("s.changes", "9")),
                ("evaluate", ("s.bump()",)), ("evaluate", ("round = 7",)), ("evaluate", ("new StringBuilder()",)),
                ("inspect", ("new StringBuilder().append(s.bump())",)), ("pop_frames", ()), ("force_return", ("0",)),
                ("hotswap", ("/nonexistent",)), ("detach", (True,)),
            ]
            for method, args in facade_calls:
                with pytest.raises(DebuggerError) as refused:
                    await getattr(watcher, method)(*args)
                text = str(refused.value)
                assert "read-only" in text or "side effects are disabled" in text, (method, args, text)
                assert not isinstance(refused.value, SessionEnded)
            for line in ["set round = 5", 'set s.password = "x"', "print s.bump()", "dump s.bump()", "pop",
                         "return 0", "interrupt main", "detach kill"]:
                result = await watcher.execute_line(line)
                assert not result.ok, f"{line!r} was allowed on a read-only host: {result.text}"
                assert "read-only" in result.text or "side effects are disabled" in result.text, (line, result.text)
            # nothing changed: the target's values, and it still runs under the host
            assert (await agent.ok("evaluate", expression="s.changes")).text.endswith("0")
            assert (await agent.ok("evaluate", expression="round")).data == round_before
            assert (await watcher.status()).state is SessionState.STOPPED
            assert target.returncode is None
        finally:
            await watcher.close()
