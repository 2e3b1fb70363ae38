"""What a person at the REPL expects from jdb and gdb (issue 22 and issue 17 item 16), on real JVMs:
a stop at uncaught exceptions by default, restart, one line per event, `delete` that asks, `threads`
that says what it hides, and the small answers of `where`, `lock`, `force-return` and `display`."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState, StopKind
from tracepilot.repl.app import Repl
from tracepilot.repl.output import Printer

pytestmark = pytest.mark.timeout(120)


def run_repl(address: str, *args: str, home, source_root) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_STATE_HOME": str(home), "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "tracepilot.cli", "repl", address, "--sourcepath", str(source_root), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=90)


def test_an_uncaught_exception_stops_where_it_is_thrown(jvm_factory, line_of, tmp_path, java_source_root):
    jvm = jvm_factory("Exceptions", "3", "uncaught")
    done = run_repl(jvm.address, "-c", "cont; where; info breakpoints", home=tmp_path, source_root=java_source_root)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "bp-1: stopping at uncaught exceptions (`delete 1` or --no-stop-on-uncaught turns it off)" in out
    throw = line_of("throw-uncaught")
    assert f"STOPPED at fixtures.Exceptions.main(Exceptions.java:{throw}) — exception fixtures.Exceptions$ExceptionB" \
        in out, out
    assert f"* [1] fixtures.Exceptions.main(Exceptions.java:{throw})" in out  # jdb numbers frames from 1
    assert "bp-1 exception * [enabled, verified] hits=1 uncaught only" in out  # the list says so
    assert "EXITED" not in out


def test_no_stop_on_uncaught_lets_it_end_the_program_and_says_so_once(jvm_factory, tmp_path, java_source_root):
    jvm = jvm_factory("Exceptions", "3", "uncaught")
    done = run_repl(jvm.address, "--no-stop-on-uncaught", "-c", "cont", home=tmp_path, source_root=java_source_root)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "stopping at uncaught exceptions" not in out
    assert "EXITED" in out
    assert out.count("the VM terminated") == 1, out  # the wait's answer, not the event again


@pytest.fixture
async def repl(java_source_root):
    debugger = Debugger(sourcepath=[str(java_source_root)])
    out = io.StringIO()
    r = Repl(debugger, Printer(file=out, color=False))
    r.out = out
    r.selection.wait_timeout = 30.0
    try:
        yield r
    finally:
        r.close()
        await debugger.close()


async def ok(repl: Repl, line: str):
    result = await repl.execute(line)
    assert result.ok, f"{line!r} failed: {result.text}"
    return result


async def test_restart_launches_the_same_program_with_the_same_breakpoints(repl, java_classes, line_of):
    await ok(repl, f"launch -cp {java_classes} fixtures.Playground 3 nosleep")
    line = line_of("compute-body")
    await ok(repl, f"stop at fixtures.Playground:{line}")
    first = await ok(repl, "cont")
    assert first.stop is not None and first.stop.location.line == line
    pid = repl.debugger.session.launched.pid
    await ok(repl, "delete 2")
    ended = await ok(repl, "cont")
    assert ended.stop is None and repl.debugger.session.state is SessionState.EXITED
    await ok(repl, f"stop at fixtures.Playground:{line}")

    restarted = await ok(repl, "restart")
    assert "restarted" in restarted.text
    assert repl.debugger.session.launched.pid != pid  # a new JVM, same command line
    again = await ok(repl, "cont")
    assert again.stop is not None and again.stop.kind is StopKind.BREAKPOINT and again.stop.location.line == line
    listed = (await ok(repl, "info breakpoints")).text
    assert "uncaught only" in listed and f"fixtures.Playground:{line}" in listed
    assert listed.count("exception *") == 1  # the default stop is not added twice

    # restart while the program runs ends it first
    pid = repl.debugger.session.launched.pid
    await ok(repl, "restart")
    assert repl.debugger.session.launched.pid != pid
    assert (await ok(repl, "cont")).stop.location.line == line


async def test_restart_of_an_attached_jvm_says_what_to_do(repl, jvm_factory):
    jvm = jvm_factory("Playground", "50")
    await ok(repl, f"attach {jvm.address}")
    result = await repl.execute("restart")
    assert not result.ok
    assert "re-launches a program this debugger launched" in result.text and "attach" in result.text


async def test_delete_without_ids_asks_and_scripts_pass_y(repl, jvm_factory, line_of):
    jvm = jvm_factory("Playground", "50")
    await ok(repl, f"attach {jvm.address}")
    await ok(repl, f"stop at fixtures.Playground:{line_of('loop-body')}")
    refused = await repl.execute("delete")  # no one to ask (a script): refused, nothing removed
    assert not refused.ok and "delete -y" in refused.text
    assert len(await repl.debugger.breakpoint_list()) == 2

    questions: list[str] = []

    async def answer_no(question: str) -> bool:
        questions.append(question)
        return False

    repl.selection.confirm = answer_no  # what the interactive prompt installs
    assert "Nothing deleted" in (await ok(repl, "delete")).text
    assert questions == ["Delete all 2 breakpoints?"]
    assert len(await repl.debugger.breakpoint_list()) == 2

    repl.selection.confirm = None
    assert "Removed bp-1, bp-2" in (await ok(repl, "delete -y")).text
    assert await repl.debugger.breakpoint_list() == []


async def test_interactive_delete_asks_at_the_prompt(repl, jvm_factory, line_of, tmp_path, monkeypatch):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    jvm = jvm_factory("Playground", "50")
    await ok(repl, f"attach {jvm.address}")
    await ok(repl, f"stop at fixtures.Playground:{line_of('loop-body')}")
    with create_pipe_input() as pipe:
        pipe.send_text("delete\ry\rexit\r")  # the answer goes to the question the prompt asks
        assert await asyncio.wait_for(repl.interactive(input=pipe, output=DummyOutput()), 30) == 0
    assert "Removed bp-1, bp-2" in repl.out.getvalue()


async def test_threads_says_system_threads_are_hidden(repl, jvm_factory):
    jvm = jvm_factory("Playground", "50")
    await ok(repl, f"attach {jvm.address}")
    shown = (await ok(repl, "threads")).text
    assert "system threads hidden: `threads all` lists them" in shown
    everything = (await ok(repl, "threads all")).text
    assert "Reference Handler" in everything and "hidden" not in everything


async def test_where_lock_force_return_and_display_answers(repl, jvm_factory, line_of):
    jvm = jvm_factory("Playground", "50", "throw")
    await ok(repl, f"attach {jvm.address}")
    shown = (await ok(repl, "display p.counter")).text  # at VM start: no error, a value at the first stop
    assert "error" not in shown and "no frame" not in shown
    await ok(repl, "stop in fixtures.Playground.risky")
    stop = await ok(repl, "cont")
    assert stop.stop is not None and stop.stop.location.method == "risky"

    where = (await ok(repl, "where")).text.splitlines()
    assert where[0].startswith("* [1] fixtures.Playground.risky(")  # jdb numbers frames from 1
    assert where[1].startswith("  [2] fixtures.Playground.main(")

    refused = await repl.execute("force-return 3")  # risky is void
    assert not refused.ok and "returns void" in refused.text and "with no value" in refused.text

    await ok(repl, "up")
    lock = (await ok(repl, "lock p")).text
    assert lock.startswith("monitor of p = Playground")
    assert "owner: none (unlocked)" in lock
    assert "Finalizer" not in lock and "deadlock" not in lock  # not the global list
    watchers = (await ok(repl, "watchers")).text
    assert "p.counter" in watchers and "no frame" not in watchers


async def test_a_long_locals_hint_says_it_is_cut(repl, jvm_factory, line_of):
    jvm = jvm_factory("Values")
    await ok(repl, f"attach {jvm.address}")
    await ok(repl, f"stop at fixtures.Values:{line_of('values')}")
    await ok(repl, "cont")
    names = [v.name for v in await repl.debugger.locals(0, None)]
    assert len(names) > 12, names
    missing = await repl.execute("print nosuchthingatall")
    assert not missing.ok and "locals here: " in missing.text
    assert f"… {len(set(names) - {'this'}) - 12} more)" in missing.text, missing.text


async def test_step_out_says_what_the_method_returned(repl, jvm_factory, line_of):
    jvm = jvm_factory("Playground", "50")
    await ok(repl, f"attach {jvm.address}")
    await ok(repl, f"stop at fixtures.Playground:{line_of('compute-body')}")
    stop = await ok(repl, "cont")
    x = int((await ok(repl, "print x")).text.split("=")[-1])
    out = await ok(repl, "step up")
    if getattr(out.stop, "returned_from", None) is None:
        pytest.xfail("the core does not fill StopReason.returned_from yet (issue 16)")
    assert stop.stop is not None and f"compute() returned {x * 2 + 1}" in out.text
