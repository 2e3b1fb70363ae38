"""Issue 28 through the share protocol (what `tracepilot watch` runs on): a watcher of a session with two JVMs
sees the stops of both, each named, and its own calls name a target."""

from __future__ import annotations

import os
import signal

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor, SessionState
from tracepilot.share.client import RemoteDebugger, wait_for_record
from tracepilot.share.host import SessionHost

pytestmark = pytest.mark.timeout(60)


def stop_of(target: str):  # noqa: ANN201
    return lambda record: record.kind == "stop" and record.data.get("target") == target


async def test_watcher_sees_the_stops_of_both_targets_named(java_classes, java_source_root, line_of, free_port):
    port = str(free_port())
    debugger = Debugger(sourcepath=[str(java_source_root)], default_actor=Actor.AGENT)
    host = SessionHost(debugger, "mcp")
    await host.start()
    watcher = await RemoteDebugger.join(None, actor=Actor.PERSON)
    client_only = await RemoteDebugger.join(None, actor=Actor.PERSON, target="client")  # (dap --join --target)
    try:
        for main, name in (("fixtures.PriceServer", "server"), ("fixtures.PriceClient", "client")):
            await debugger.launch(main=main, classpath=[str(java_classes)], args=[port], name=name)
        await debugger.breakpoint_set(f"PriceServer:{line_of('server-answer')}", condition="qty == 3")
        await debugger.breakpoint_set(f"PriceClient:{line_of('client-total')}", condition="total > 100")
        since = debugger.history.last_seq
        with debugger.on_target("server"):
            await debugger.resume(timeout=0)
        with watcher.on_target("client"):  # the person runs the client, through the share protocol
            first = await watcher.resume(timeout=20)
        assert first.stop.target == "server"
        seen = await wait_for_record(watcher, stop_of("server"), since=since)
        assert seen.text.startswith("STOPPED [server] at fixtures.PriceServer.answer"), seen.text
        assert seen.data["stop"]["target"] == "server"

        second = await debugger.resume(timeout=20)  # the agent resumes the server: the client stops
        assert second.stop.target == "client"
        seen = await wait_for_record(watcher, stop_of("client"), since=since)
        assert seen.text.startswith("STOPPED [client] at fixtures.PriceClient.main"), seen.text
        assert watcher.current_stop is not None and watcher.current_stop.target == "client"
        with watcher.on_target("client"):
            assert (await watcher.evaluate("total")).text == "135"
        assert (await client_only.evaluate("total")).text == "135"  # its calls go to its target
        assert not [r for r in client_only.history.since(since) if r.data.get("target") == "server"]
        assert [r for r in client_only.history.since(since) if r.data.get("target") == "client"]
        assert client_only.current_stop is not None and client_only.current_stop.target == "client"
        infos = await watcher.targets_list()
        assert [t.name for t in infos] == ["server", "client"]

        # A target killed disturbs no other: a wait over all answers its end once, the client still answers.
        os.kill(infos[0].pid, signal.SIGKILL)
        ended = await debugger.wait_for_stop(timeout=20)
        assert ended.state is SessionState.EXITED and ended.stop.target == "server", ended
        with watcher.on_target("client"):
            assert (await watcher.evaluate("sum + total")).text == "195"
        still = await debugger.wait_for_stop(timeout=0)  # the end is told once; the client's stop is current
        assert still.stopped and still.stop.target == "client"
    finally:
        await client_only.close()
        await watcher.close()
        await host.close()
        await debugger.close()
