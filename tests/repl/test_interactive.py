"""The REPL in-process: Ctrl+C ends a wait but not the session, stops print as they happen, history persists."""

from __future__ import annotations

import asyncio
import io
import os
import signal

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState
from tracepilot.repl.app import Repl, history_path
from tracepilot.repl.output import Printer

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def repl(jvm_factory, java_source_root):
    debugger = Debugger(sourcepath=[str(java_source_root)])
    out = io.StringIO()
    r = Repl(debugger, Printer(file=out, color=False))
    r.out = out
    jvm = jvm_factory("Playground", "50")
    assert (await r.execute(f"attach {jvm.address}")).ok
    try:
        yield r
    finally:
        r.close()
        await debugger.close()


def next_event(debugger: Debugger, kind: str) -> asyncio.Future:
    future = asyncio.get_running_loop().create_future()

    def listener(record):
        if record.kind == kind and not future.done():
            future.set_result(record)

    unsubscribe = debugger.history.subscribe(listener)
    future.add_done_callback(lambda _: unsubscribe())
    return future


async def test_ctrl_c_interrupts_a_wait_and_keeps_the_session(repl):
    resumed = next_event(repl.debugger, "resume")
    waiting = asyncio.ensure_future(repl.execute("cont 60"))
    await resumed
    os.kill(os.getpid(), signal.SIGINT)  # what Ctrl+C does
    result = await asyncio.wait_for(waiting, 10)
    assert not result.ok and result.text.startswith("interrupted")
    assert repl.debugger.session.state is SessionState.RUNNING
    paused = await repl.execute("suspend")
    assert paused.ok and paused.stop is not None


async def test_stops_print_as_they_happen(repl, line_of):
    line = line_of("loop-body")
    assert (await repl.execute(f"stop at fixtures.Playground:{line}")).ok
    stopped = next_event(repl.debugger, "stop")
    assert (await repl.execute("resume")).ok  # does not wait
    await stopped
    assert f"STOPPED at fixtures.Playground.main(Playground.java:{line})" in repl.out.getvalue()
    assert "p.counter++;" in repl.out.getvalue()


async def test_prompt_keeps_history_across_runs(repl, tmp_path, monkeypatch):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    with create_pipe_input() as pipe:
        pipe.send_text("timeout 7\rexit\r")
        assert await repl.interactive(input=pipe, output=DummyOutput()) == 0
    assert "waiting up to 7s for a stop" in repl.out.getvalue()
    assert "timeout 7" in history_path().read_text()
    assert history_path().is_relative_to(tmp_path)
