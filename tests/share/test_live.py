"""A published Debugger on a real JVM with RemoteDebugger watchers: two at once, control from a watcher
with attribution, follow-only refusal, a watcher that dies, a host that ends and a host that is killed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor, SessionState, StopKind
from tracepilot.share import registry
from tracepilot.share.client import RemoteDebugger, wait_for_record
from tracepilot.share.host import SessionHost
from tracepilot.share.protocol import ControlRefused, SessionEnded

REPO = Path(__file__).resolve().parents[2]


def is_stop(record) -> bool:
    return record.kind == "stop"


async def agent_host(target, source_root) -> tuple[Debugger, SessionHost]:
    debugger = Debugger(sourcepath=[str(source_root)], default_actor=Actor.AGENT)
    await debugger.attach(target.address, 10.0)
    host = SessionHost(debugger, "mcp")
    await host.start()
    return debugger, host


@pytest.mark.timeout(90)
async def test_two_watchers_follow_and_take_part(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000")
    debugger, host = await agent_host(target, java_source_root)
    person = await RemoteDebugger.join(None, actor=Actor.PERSON)
    follower = await RemoteDebugger.join(None, actor=Actor.PERSON, follow_only=True)
    try:
        await host.wait_clients(2)
        assert person.info.id == host.info.id
        assert follower.initial["status"].state is SessionState.STOPPED  # the snapshot: VM start
        assert follower.initial["history"], "the snapshot carries the recent history"

        # the agent stops at a breakpoint; both watchers see it
        loop_body = line_of("loop-body")
        since = debugger.history.last_seq
        bp = await debugger.breakpoint_set(f"fixtures.Playground:{loop_body}")
        await debugger.resume()
        for watcher in (person, follower):
            record = await wait_for_record(watcher, is_stop, since=since)
            assert watcher.session.state is SessionState.STOPPED
            assert watcher.session.stop.kind is StopKind.BREAKPOINT
            assert watcher.session.stop.location.line == loop_body
            assert record.actor is Actor.TARGET
        assert [b.id for b in await follower.breakpoint_list()] == [bp.id]
        assert any(r.kind == "breakpoint_set" and r.actor is Actor.AGENT for r in person.history.since(0))
        ms = sorted(1000 * x for x in person.latencies)
        print(f"\nshare latency host record -> watcher: median {ms[len(ms) // 2]:.2f} ms, max {ms[-1]:.2f} ms "
              f"over {len(ms)} events")

        # the person takes part: a step and a breakpoint, attributed to them in the shared history
        result = await person.step("over", timeout=10)
        assert result.stopped and result.stop.location.line == line_of("loop-static")
        extra = await person.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
        events = await debugger.events(since)
        assert [(e.kind, e.actor) for e in events if e.kind in ("step", "breakpoint_set")] == [
            ("breakpoint_set", Actor.AGENT), ("step", Actor.PERSON), ("breakpoint_set", Actor.PERSON)]
        assert {b.id for b in await debugger.breakpoint_list()} == {bp.id, extra.id}
        value = await person.evaluate("p.counter + 1")
        assert value.text == "2"

        # a catalog line runs on the host too, with this client's selection
        where = await person.execute_line("where")
        assert where.ok and "Playground.main" in where.text

        # follow-only: looking is fine, every action is refused and nothing changes
        assert (await follower.stack())[0].location.line == line_of("loop-static")
        with pytest.raises(ControlRefused):
            await follower.resume()
        with pytest.raises(ControlRefused):
            await follower.breakpoint_remove("all")
        with pytest.raises(ControlRefused):
            await follower.evaluate("p.counter = 99")
        for line in ("clear " + bp.id, "interrupt main", "cont", "set p.counter = 5"):
            refused = await follower.execute_line(line)
            assert not refused.ok and "follow-only" in refused.text, (line, refused.text)
        assert len(await debugger.breakpoint_list()) == 2
        assert debugger.session.state is SessionState.STOPPED
    finally:
        await person.close()
        await follower.close()
        await host.close()
        await debugger.close()


@pytest.mark.timeout(90)
async def test_watcher_dies_host_unchanged_then_host_ends(jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000")
    debugger, host = await agent_host(target, java_source_root)
    doomed = await RemoteDebugger.join(None)
    stays = await RemoteDebugger.join(None)
    try:
        await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
        # the doomed watcher starts a long wait, then its connection is cut (a killed process looks the same)
        waiting = asyncio.ensure_future(doomed.wait_for_stop(30))
        await host.wait_clients(2)
        doomed._writer.transport.abort()  # noqa: SLF001
        await host.wait_clients(1)
        with pytest.raises(SessionEnded):
            await asyncio.wait_for(waiting, 5)

        # the host did not notice beyond losing a client: the session goes on and the other watcher follows
        since = stays.history.last_seq
        result = await debugger.resume(timeout=10)
        assert result.stopped
        await wait_for_record(stays, is_stop, since=since)
        assert debugger.session.state is SessionState.STOPPED and len(await debugger.breakpoint_list()) == 1

        # the host ends: the watcher is told, keeps its last view, and further calls say why they fail
        last_stop = stays.session.stop
        await host.close("the agent's MCP server ended")
        await asyncio.wait_for(stays.ended.wait(), 5)
        assert stays.end_reason == "the agent's MCP server ended"
        assert stays.history.since(0)[-1].kind == "session_ended"
        assert stays.session.stop == last_stop and any(r.kind == "stop" for r in stays.history.since(0))
        with pytest.raises(SessionEnded, match="MCP server ended"):
            await stays.status()
        assert registry.list_sessions() == []
        assert debugger.session.state is SessionState.STOPPED  # ending the share does not touch the debugger
    finally:
        await doomed.close()
        await stays.close()
        await host.close()
        await debugger.close()


HOST_SCRIPT = """
import asyncio, sys
from tracepilot.core.debugger import Debugger
from tracepilot.share.host import SessionHost

async def main():
    host = SessionHost(Debugger(), "repl")
    info = await host.start()
    print(info.id, flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.mark.timeout(60)
async def test_host_killed(share_dir: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.Popen([sys.executable, "-c", HOST_SCRIPT], stdout=subprocess.PIPE, env=env)
    try:
        session_id = (await asyncio.to_thread(proc.stdout.readline)).decode().strip()
        watcher = await RemoteDebugger.join(session_id)
        assert [s.id for s in registry.list_sessions()] == [session_id]
        os.kill(proc.pid, signal.SIGKILL)
        await asyncio.wait_for(watcher.ended.wait(), 10)
        assert "went away" in watcher.end_reason
        assert watcher.history.since(0)[-1].kind == "session_ended"
        await asyncio.to_thread(proc.wait)  # its exit is complete (a parent reaps; a zombie counts as dead too)
        assert registry.list_sessions() == []  # the dead host's entry is cleaned up
        assert list(share_dir.iterdir()) == []
        with pytest.raises(SessionEnded):
            await watcher.threads()
    finally:
        proc.kill()
        proc.wait()
