"""Core part 1 against real JVMs: sessions, execution control, breakpoints, stop reasons, history.

Covers seed 001's testing scenarios and the lifecycle matrix of seed 000.
"""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError, InvalidArgument, NotStopped
from tracepilot.core.model import Actor, SessionState, StopKind

pytestmark = pytest.mark.timeout(90)


async def attached(debugger: Debugger, jvm_factory, main: str, *args: str, jdk: str = "17", **kw):
    jvm = jvm_factory(main, *args, jdk=jdk, **kw)
    status = await debugger.attach(jvm.address, timeout=10)
    return jvm, status


# -- seed 001 scenarios -------------------------------------------------------------------------------


async def test_scenario1_breakpoint_hit_and_hit_count_increments(debugger, jvm_factory, line_of, jdk):
    jvm, status = await attached(debugger, jvm_factory, "Playground", "50", jdk=jdk)
    assert status.state is SessionState.STOPPED and status.stop.kind is StopKind.VM_START
    line = line_of("loop-body")
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line}")
    assert bp.id == "bp-1"
    first = await debugger.resume(timeout=15)
    assert first.stopped and first.stop.kind is StopKind.BREAKPOINT
    assert first.stop.location.line == line and first.stop.location.method == "main"
    assert first.stop.breakpoint_id == "bp-1" and first.stop.hit_count == 1
    assert first.stop.thread_name == "main"
    assert first.stop.location.source_file == "Playground.java"
    assert (await debugger.status()).state is SessionState.STOPPED
    second = await debugger.resume(timeout=15)
    assert second.stopped and second.stop.hit_count == 2 and second.stop.location.line == line
    headline = second.stop.headline()
    assert headline.startswith("STOPPED at fixtures.Playground.main(Playground.java:") and "bp-1 (hit 2)" in headline


async def test_scenario2_step_over_into_out(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-call')}")
    await debugger.resume(timeout=15)
    into = await debugger.step("into")
    assert into.stopped and into.stop.kind is StopKind.STEP
    assert into.stop.location.method == "compute" and into.stop.location.line == line_of("compute-body")
    over = await debugger.step("over")
    assert over.stop.location.line == line_of("compute-return") and over.stop.location.method == "compute"
    out = await debugger.step("out")
    assert out.stop.kind is StopKind.STEP and out.stop.location.method == "main"
    over2 = await debugger.step("over", count=2)
    assert over2.stopped and over2.stop.location.method == "main"


async def test_step_into_skips_jdk_code(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    await debugger.resume(timeout=15)
    step = await debugger.step("into")
    # println and string concatenation live in java.*: the step filters keep us in our code.
    assert step.stopped and step.stop.location.class_name.startswith("fixtures.")


async def test_scenario3_and_8_wait_for_stop_and_already_stopped(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    running = await debugger.resume(timeout=0)
    assert not running.stopped and running.state is SessionState.RUNNING
    waited = await debugger.wait_for_stop(10)
    assert waited.stopped and waited.stop.kind is StopKind.BREAKPOINT and waited.waited_ms < 10_000
    again = await debugger.wait_for_stop(5)
    assert again.stopped and again.waited_ms < 100 and again.stop is waited.stop


async def test_scenario4_wait_for_stop_timeout_is_an_answer(debugger, jvm_factory):
    await attached(debugger, jvm_factory, "Playground")
    await debugger.resume()
    started = time.monotonic()
    result = await debugger.wait_for_stop(0.5)
    assert not result.stopped and result.state is SessionState.RUNNING
    assert "still running" in result.message
    assert 0.4 < time.monotonic() - started < 3


async def test_scenario5_exception_breakpoint(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50", "throw")
    bp = await debugger.exception_break("java.lang.NullPointerException", caught=True, uncaught=True)
    assert bp.verified  # NullPointerException is loaded at VM start
    result = await debugger.resume(timeout=15)
    assert result.stop.kind is StopKind.EXCEPTION
    exc = result.stop.exception
    assert exc.class_name == "java.lang.NullPointerException"
    assert exc.thrown_at.line == line_of("risky-npe") and exc.thrown_at.method == "risky"
    assert exc.caught and exc.catch_location.method == "risky"
    assert "NullPointerException" in result.stop.headline()


async def test_scenario6_watchpoint_access_and_modify(debugger, jvm_factory):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.watchpoint_set("fixtures.Playground.counter", access=True, modify=False)
    result = await debugger.resume(timeout=15)
    assert result.stop.kind is StopKind.WATCHPOINT_ACCESS and result.stop.field == "fixtures.Playground.counter"
    await debugger.breakpoint_remove("all")
    await debugger.watchpoint_set("fixtures.Playground.counter", access=False, modify=True)
    result = await debugger.resume(timeout=15)
    assert result.stop.kind is StopKind.WATCHPOINT_MODIFY
    assert int(result.stop.new_value.text) == int(result.stop.old_value.text) + 1


async def test_scenario7_monitor_events_do_not_stop(debugger, jvm_factory):
    await attached(debugger, jvm_factory, "Playground", "50")
    started = asyncio.Event()
    debugger.history.subscribe(lambda record: record.kind == "thread_start" and started.set())
    await debugger.resume()
    await asyncio.wait_for(started.wait(), 20)
    result = await debugger.wait_for_stop(0.5)
    assert not result.stopped and (await debugger.status()).state is SessionState.RUNNING
    kinds = {e.kind for e in await debugger.events(kinds=["thread_start"])}
    assert kinds == {"thread_start"}


# -- breakpoints ----------------------------------------------------------------------------------


async def test_deferred_breakpoint_in_class_loaded_later(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "LaterLoaded", "300")
    bp = await debugger.breakpoint_set(f"LaterLoadedTarget.java:{line_of('later-target')}")
    assert not bp.verified and "pending" in (bp.message or "")
    result = await debugger.resume(timeout=20)
    assert result.stop.kind is StopKind.BREAKPOINT and result.stop.location.class_name == "fixtures.LaterLoadedTarget"
    assert (await debugger.breakpoint_list())[0].verified


@pytest.mark.parametrize("marker,method_part", [
    ("lambda-body", "lambda$"), ("inner-method", None), ("anonymous", None), ("local-class", None),
    ("static-nested", None),
])
async def test_lambda_inner_anonymous_local_lines(debugger, jvm_factory, line_of, marker, method_part):
    await attached(debugger, jvm_factory, "LambdasAndInner")
    await debugger.breakpoint_set(f"fixtures.LambdasAndInner:{line_of(marker)}")
    result = await debugger.resume(timeout=15)
    assert result.stopped and result.stop.location.line == line_of(marker)
    if method_part:
        assert result.stop.location.method.startswith(method_part)
    else:
        assert "$" in result.stop.location.class_name


async def test_line_without_code_moves_and_says_so(debugger, jvm_factory, line_of, java_source_root):
    source_root = java_source_root
    await attached(debugger, jvm_factory, "Playground", "50")
    debugger.session.sources.add(str(source_root))
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    await debugger.resume(timeout=15)
    # The line above `int doubled = ...` is the method declaration: no code there.
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('compute-body') - 1}")
    assert bp.verified and "moved to line" in bp.message


async def test_unknown_class_did_you_mean(debugger, jvm_factory):
    jvm, _ = await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.resume()
    jvm.wait_for_output("playground started")
    await debugger.pause()
    bp = await debugger.breakpoint_set("fixtures.Playgruond:10")
    assert not bp.verified and "did you mean fixtures.Playground" in bp.message
    with pytest.raises(InvalidArgument):
        await debugger.breakpoint_set("not a location")
    with pytest.raises(DebuggerError, match="did you mean"):
        await debugger.method_break("fixtures.Playground.compte")


async def test_program_that_ends_in_milliseconds_launched_with_breakpoints(debugger, java_classes, line_of, jdks):
    status = await debugger.launch(main="fixtures.Quick", classpath=str(java_classes), java=jdks["17"])
    assert status.stop.kind is StopKind.VM_START
    await debugger.breakpoint_set(f"Quick:{line_of('quick-add')}")
    await debugger.method_break("fixtures.Quick.greet")
    result = await debugger.resume(timeout=15)
    assert result.stop.location.line == line_of("quick-add")
    result = await debugger.resume(timeout=15)
    assert result.stop.kind is StopKind.METHOD_ENTRY and result.stop.location.method == "greet"
    end = await debugger.resume(timeout=15)
    assert end.state is SessionState.EXITED
    out = "".join(c.text for c in await debugger.output("stdout"))
    assert "hello" in out


async def test_launch_with_suspend_false_still_hits_early_breakpoints(debugger, java_classes, line_of, jdks):
    # Breakpoints set before launch (same session) are installed before the program runs.
    await debugger.breakpoint_set(f"fixtures.Quick:{line_of('quick-main')}")
    await debugger.launch(main="fixtures.Quick", classpath=str(java_classes), java=jdks["17"], suspend=False)
    result = await debugger.wait_for_stop(15)
    assert result.stopped and result.stop.location.line == line_of("quick-main")


async def test_hit_count_1000_in_a_hot_loop_counted_by_the_jvm(debugger, jvm_factory, line_of, jdk):
    await attached(debugger, jvm_factory, "HotLoop", jdk=jdk)
    bp = await debugger.breakpoint_set(f"fixtures.HotLoop:{line_of('hot-body')}", hit_count=1000)
    assert bp.hit_count == "1000"
    result = await debugger.resume(timeout=30)
    assert result.stop.breakpoint_id == bp.id and result.stop.hit_count == 1000
    # Only one stop reached the client: the 999 skipped hits never left the JVM.
    assert len(await debugger.events(kinds=["stop"])) == 2  # VM start + this one


async def test_every_nth_hit(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "HotLoop")
    await debugger.breakpoint_set(f"fixtures.HotLoop:{line_of('hot-body')}", hit_count="%10")
    assert (await debugger.resume(timeout=15)).stop.hit_count == 10
    assert (await debugger.resume(timeout=15)).stop.hit_count == 20


async def test_chained_breakpoint_and_cycle_rejected(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    compute = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('compute-body')}", enabled=True, hit_count=3)
    print_line = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}", after=compute.id)
    assert not print_line.armed
    first = await debugger.resume(timeout=15)
    assert first.stop.breakpoint_id == compute.id  # print-line did not fire during the first iterations
    second = await debugger.resume(timeout=15)
    assert second.stop.breakpoint_id == print_line.id
    with pytest.raises(DebuggerError, match="cycle"):
        await debugger.breakpoint_update(compute.id, after=print_line.id)


async def test_logpoint_does_not_stop_and_is_recorded(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "3", "nosleep")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}", log="tick")
    result = await debugger.resume(timeout=20)
    assert result.state is SessionState.EXITED
    logs = await debugger.events(kinds=["log"])
    assert len(logs) == 3 and all(e.data["breakpoint"] == "bp-1" for e in logs)


async def test_temporary_breakpoint_and_run_to(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}", temporary=True)
    assert (await debugger.resume(timeout=15)).stop.breakpoint_id == bp.id
    assert await debugger.breakpoint_list() == []
    result = await debugger.run_to(f"fixtures.Playground:{line_of('loop-print')}")
    assert result.stop.location.line == line_of("loop-print")
    assert await debugger.breakpoint_list() == []


async def test_breakpoint_update_disable_and_remove(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    other = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    await debugger.breakpoint_update(bp.id, enabled=False)
    result = await debugger.resume(timeout=15)
    assert result.stop.breakpoint_id == other.id
    assert await debugger.breakpoint_remove("all") == [bp.id, other.id]
    with pytest.raises(DebuggerError, match="no breakpoint"):
        await debugger.breakpoint_remove("bp-99")


async def test_pause_reports_where_threads_are_and_step_needs_a_stop(debugger, jvm_factory):
    jvm, _ = await attached(debugger, jvm_factory, "Playground")
    await debugger.resume()
    jvm.wait_for_output("playground started")
    with pytest.raises(NotStopped):
        await debugger.step("over")
    result = await debugger.pause()
    assert result.stopped and result.stop.kind is StopKind.PAUSE and result.stop.thread_name == "main"
    assert any(e.kind == "pause" and "main at" in e.text for e in await debugger.events())
    assert not (await debugger.resume(timeout=0.3)).stopped


# -- waiters and lifecycle ------------------------------------------------------------------------


async def test_two_waiters_see_the_same_stop(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    await debugger.resume()
    first, second = await asyncio.gather(debugger.wait_for_stop(15), debugger.wait_for_stop(15))
    assert first.stopped and second.stopped and first.stop is second.stop


async def test_kill_9_while_waiting_answers_vm_death_quickly(debugger, jvm_factory, line_of):
    jvm, _ = await attached(debugger, jvm_factory, "Playground")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('main-end')}")
    await debugger.resume()
    waiter = asyncio.create_task(debugger.wait_for_stop(30))
    await asyncio.sleep(0)
    killed_at = time.monotonic()
    jvm.kill()
    result = await waiter
    assert time.monotonic() - killed_at < 1.0
    assert result.state is SessionState.EXITED and not result.stopped
    status = await debugger.status()
    # VM death keeps the target, the history and the breakpoints (unbound).
    assert status.target == jvm.address and any(e.kind == "vm_death" for e in await debugger.events())
    assert [b.verified for b in await debugger.breakpoint_list()] == [False]


async def test_target_restarted_on_same_port_reconnects_with_same_breakpoint_ids(debugger, jvm_factory, line_of, free_port):
    port = free_port()
    jvm = jvm_factory("Playground", "50", port=port)
    await debugger.attach(jvm.address)
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    assert (await debugger.resume(timeout=15)).stop.breakpoint_id == bp.id
    died = asyncio.Event()
    debugger.history.subscribe(lambda record: record.kind == "vm_death" and died.set())
    jvm.kill()
    await asyncio.wait_for(died.wait(), 5)
    assert (await debugger.status()).state is SessionState.EXITED
    jvm_factory("Playground", "50", port=port)
    # The next call that needs the VM reconnects and re-installs bp-1.
    result = await debugger.resume(timeout=15)
    assert result.stopped and result.stop.breakpoint_id == bp.id
    assert any(e.kind == "reconnect" for e in await debugger.events())


async def test_detach_is_a_clean_slate(debugger, jvm_factory, line_of):
    jvm, _ = await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    await debugger.detach()
    status = await debugger.status()
    assert status.state is SessionState.DISCONNECTED and status.target is None and status.breakpoints == 0
    assert await debugger.events() == []
    # The target keeps running without us (detach resumed it).
    jvm.wait_for_output("iteration 1", timeout=15)


async def test_reset_keeps_connection_clears_breakpoints_and_history(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    status = await debugger.reset(actor=Actor.AGENT)
    assert status.breakpoints == 0 and status.state is SessionState.STOPPED
    events = await debugger.events()
    assert [e.kind for e in events] == ["reset"] and events[0].actor is Actor.AGENT
    bp = await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    assert bp.id == "bp-1"
    assert (await debugger.resume(timeout=15)).stop.breakpoint_id == "bp-1"


async def test_history_records_actors_and_filters_by_kind(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}", actor=Actor.AGENT)
    await debugger.resume(timeout=15, actor=Actor.PERSON)
    events = await debugger.events()
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    by_kind = {e.kind: e.actor for e in events}
    assert by_kind["breakpoint_set"] is Actor.AGENT and by_kind["resume"] is Actor.PERSON
    assert by_kind["stop"] is Actor.TARGET
    since = await debugger.events(since=events[-2].seq)
    assert since == events[-1:]


async def test_attach_errors_are_clear(debugger, free_port):
    with pytest.raises(InvalidArgument, match="host:port"):
        await debugger.attach("nonsense")
    started = time.monotonic()
    with pytest.raises(DebuggerError, match="no JVM is listening"):
        await debugger.attach(f"127.0.0.1:{free_port()}", timeout=0.5)
    assert time.monotonic() - started < 3


if sys.platform == "win32":  # pragma: no cover
    pytest.skip("POSIX only", allow_module_level=True)


async def test_condition_on_a_local_and_condition_error_stops_with_reason(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "HotLoop")
    bp = await debugger.breakpoint_set(f"fixtures.HotLoop:{line_of('hot-loop')}", condition="i == 500")
    result = await debugger.resume(timeout=30)
    assert result.stop.breakpoint_id == bp.id and result.stop.hit_count == 1
    assert (await debugger.evaluate("i")).text == "500"
    await debugger.breakpoint_update(bp.id, condition="noSuchVariable > 3")
    result = await debugger.resume(timeout=30)
    assert result.stopped and "condition error" in (result.stop.message or "")
    with pytest.raises(DebuggerError, match="does not parse"):
        await debugger.breakpoint_set(f"fixtures.HotLoop:{line_of('hot-loop')}", condition="i ==")


async def test_two_threads_stopping_are_both_reported_in_turn(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('worker-body')}", suspend="thread")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}", suspend="thread")
    seen = set()
    for _ in range(6):
        result = await debugger.resume(timeout=15)
        assert result.stopped
        seen.add(result.stop.thread_name)
        if seen == {"main", "worker-1"}:
            break
    assert seen == {"main", "worker-1"}


async def test_launch_a_jar_with_program_arguments(debugger, java_classes, line_of, jdks, tmp_path):
    import shutil
    import subprocess

    jar_tool = shutil.which("jar") or str(__import__("pathlib").Path(jdks["17"]).parent / "jar")
    jar = tmp_path / "quick.jar"
    subprocess.run([jar_tool, "--create", "--file", str(jar), "--main-class", "fixtures.Quick", "-C",
                    str(java_classes), "fixtures"], check=True)
    status = await debugger.launch(jar=str(jar), java=jdks["17"])
    assert status.launched and status.stop.kind is StopKind.VM_START
    await debugger.breakpoint_set(f"fixtures.Quick:{line_of('quick-print')}")
    result = await debugger.resume(timeout=15)
    assert result.stop.location.line == line_of("quick-print")
    await debugger.detach(terminate=True)
    assert (await debugger.status()).state is SessionState.DISCONNECTED


async def test_a_vm_that_vanishes_mid_call_is_a_core_error(debugger, jvm_factory, line_of):
    from tracepilot.core.errors import NotConnected

    jvm, _ = await attached(debugger, jvm_factory, "Playground", "50")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
    await debugger.resume(timeout=15)
    jvm.kill()
    # Whatever the call, the answer is a DebuggerError that says what to do, never a JDWP exception.
    for call in (debugger.snapshot(), debugger.stack(), debugger.locals(), debugger.evaluate("i")):
        with pytest.raises(DebuggerError) as info:
            await call
        assert info.value.hint
    assert isinstance(await _raises(debugger.threads()), NotConnected | DebuggerError)


async def _raises(coro):
    try:
        await coro
    except DebuggerError as exc:
        return exc
    raise AssertionError("no error")


async def test_line_breakpoint_binds_in_every_class_loader(debugger, jvm_factory, line_of):
    await attached(debugger, jvm_factory, "MultiLoader")
    bp = await debugger.breakpoint_set(f"fixtures.LoadedTwice:{line_of('loaded-twice')}")
    first = await debugger.resume(timeout=15)
    second = await debugger.resume(timeout=15)
    assert first.stop.breakpoint_id == second.stop.breakpoint_id == bp.id
    assert second.stop.hit_count == 2
    # Two distinct classes of the same name, each with its own bound location.
    info = (await debugger.breakpoint_list())[0]
    assert len(info.locations) == 2 and {loc.class_name for loc in info.locations} == {"fixtures.LoadedTwice"}
