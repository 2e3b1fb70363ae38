"""The execution model on real JVMs (issue 16): every suspended thread is a stop of its own, suspension is
counted, nothing is left frozen. One test per numbered failure of the issue, then the thread storm.

The debugger's belief about each thread's suspend count (`session.threads.expected_count`) is checked
against JDWP's ThreadReference.SuspendCount wherever the program is quiet enough for both to agree.
"""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState, StopKind
from tracepilot.core.threads import ThreadState
from tracepilot.jdwp import ThreadReference, VirtualMachine

pytestmark = pytest.mark.timeout(120)


def storm_total(threads: int, rounds: int) -> int:
    """What Storm prints without a debugger: sum of after(id, work(id, r)) = 3*id + 2*r + 1."""
    return sum(3 * i + 2 * r + 1 for i in range(threads) for r in range(rounds))


async def jvm_counts(debugger: Debugger) -> dict[int, tuple[int, int, int]]:
    """ThreadReference.SuspendCount of every live thread, as the JVM sees it, with the debugger's belief
    just before the question was sent and just after the answer came (other threads' events are handled
    meanwhile: the JVM answered somewhere in between)."""
    vm = debugger.session.vm
    book = debugger.session.threads
    counts = {}
    for tid in (await vm.send(VirtualMachine.AllThreads)).threads:
        try:
            before = book.expected_count(tid)
            count = (await vm.send(ThreadReference.SuspendCount, tid)).suspend_count
            counts[tid] = (count, before, book.expected_count(tid))
        except Exception:  # noqa: BLE001 - the thread ended meanwhile
            continue
    return counts


async def assert_counts_agree(debugger: Debugger) -> None:
    """Every thread is suspended exactly as often as the debugger believes. While some threads run (suspend
    thread), one may have been suspended by an event still on its way: then the JVM is one ahead. The
    belief compared is the one held while the JVM answered (read around each answer, not after all of
    them: a thread that stops after its count was read is not a thread the JVM forgot to suspend)."""
    book = debugger.session.threads
    exact = debugger.session._all_held()  # noqa: SLF001
    for tid, (count, before, after) in (await jvm_counts(debugger)).items():
        low, high = min(before, after), max(before, after)
        where = (f"thread {tid} ({book.describe(tid)}): JVM count {count}, debugger believes {after}"
                 + (f" (believed {before} when it asked)" if before != after else ""))
        assert count == after if exact else low <= count <= high + 1, where


async def attach(debugger: Debugger, jvm_factory, main: str, *args: str, jdk: str = "17"):
    """Attach to a suspend=y JVM and take its VM-start stop (attach usually returns with it already; on a
    busy machine the event can come just after the answer, and would then be the next stop)."""
    jvm = jvm_factory(main, *args, jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    start = await debugger.wait_for_stop(10)
    assert start.stopped and start.stop.kind is StopKind.VM_START, start
    return jvm


# -- failure 1: evaluate after a conditional stop ------------------------------------------------------------


async def test_evaluate_with_a_call_after_a_conditional_suspend_all_stop(debugger, jvm_factory, line_of, jdk):
    jvm = await attach(debugger, jvm_factory, "Ticker", "40", jdk=jdk)
    debugger.inspector.evaluator.invoke_timeout = 5.0
    line = line_of("ticker-tick")
    await debugger.breakpoint_set(f"fixtures.Ticker:{line}", condition="i % 2 == 1")
    first = await debugger.resume(timeout=20)
    assert first.stopped and first.stop.location.line == line and first.stop.all_threads
    await assert_counts_agree(debugger)
    i = int((await debugger.evaluate("i")).text)
    assert (await debugger.evaluate("compute(i)")).text == str(i * 10)  # the call runs: one suspension, by the event
    await assert_counts_agree(debugger)
    second = await debugger.resume(timeout=20)  # and the program runs again afterwards
    assert second.stopped and int((await debugger.evaluate("i")).text) == i + 2
    await debugger.breakpoint_remove("all")
    await debugger.resume(timeout=0)
    await asyncio.to_thread(jvm.wait_for_output, "ticker done", 30)


# -- failure 2 and the storm: suspend thread / suspend all ---------------------------------------------------


@pytest.mark.parametrize("policy", ["thread", "all"])
async def test_storm_every_hit_delivered_once_and_nothing_left_suspended(debugger, jvm_factory, line_of, jdk, policy):
    threads, rounds = 8, 1
    jvm = await attach(debugger, jvm_factory, "Storm", str(threads), str(rounds), jdk=jdk)
    lines = {line_of("storm-work"), line_of("storm-after")}
    for line in sorted(lines):
        bp = await debugger.breakpoint_set(f"fixtures.Storm:{line}", suspend=policy)
        assert f"suspend {policy}" in render.render(bp)
    seen: list[tuple[str, int]] = []
    stops_at: dict[int, list] = {}
    while True:
        result = await debugger.resume(timeout=20)
        if result.state is SessionState.EXITED:
            break
        assert result.stopped, result.message
        assert result.stop.kind is StopKind.BREAKPOINT and result.stop.location is not None, result.stop
        hit = (result.stop.thread_name, result.stop.location.line)
        assert hit not in seen, f"delivered twice: {hit}"
        seen.append(hit)
        stops_at.setdefault(result.stop.location.line, []).append(result)
        await assert_counts_agree(debugger)
        status = render.render(await debugger.status())
        assert result.stop.thread_name in status
    assert sorted(seen) == sorted((f"worker-{i}", line) for i in range(threads) for line in lines)
    for line in lines:  # each hit has its own number, whatever order the threads' events are handled in
        labels = sorted(s.stop.hit_count for s in stops_at.get(line, []))
        assert labels == list(range(1, threads + 1)), labels
    stops = [e for e in await debugger.events(kinds=["stop"], limit=1000) if e.data.get("stop", {}).get("kind") == "BREAKPOINT"]
    assert len(stops) == len(seen)  # each hit once in the history too
    out = await asyncio.to_thread(jvm.wait_for_output, "storm done", 30)
    assert f"storm done {storm_total(threads, rounds)}" in out  # the same output as without a debugger


async def test_suspend_thread_stops_are_each_their_own(debugger, jvm_factory, line_of, jdk):
    """With suspend thread, every worker's stop is kept: status, threads and snapshot show each one."""
    await attach(debugger, jvm_factory, "Storm", "4", "1", jdk=jdk)
    await debugger.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", suspend="thread")
    first = await debugger.resume(timeout=20)
    assert first.stopped and first.stop.all_threads is False  # only the worker is suspended (DAP says so)
    others = []
    while len(others) < 3:  # the other workers' stops, one per wait, never the first one again
        got = await debugger.wait_for_stop(20)
        assert got.stopped and got.stop.thread_name != first.stop.thread_name, got.message
        if got.stop.thread_name not in others:
            others.append(got.stop.thread_name)
        else:
            pytest.fail(f"{got.stop.thread_name}'s stop was delivered twice")
    listing = render.render(await debugger.threads())
    for name in [first.stop.thread_name, *others]:
        assert name in listing
    snap = await debugger.snapshot(thread=others[0])
    assert snap.thread.name == others[0] and snap.stop.thread_name == others[0]
    text = render.render(snap)
    assert "other threads stopped (3)" in text and first.stop.thread_name in text
    await assert_counts_agree(debugger)
    tid = await debugger.session.resolve_thread(others[0])
    resumed = await debugger.resume(thread=others[0], timeout=0)  # one thread: no stop handed back
    assert not resumed.stopped and resumed.state is SessionState.STOPPED
    assert debugger.session.threads.expected_count(tid) == 0
    assert debugger.session.threads.get(tid).state in (ThreadState.RUNNING, ThreadState.FINISHED)
    status = render.render(await debugger.status())
    assert others[1] in status and others[2] in status and first.stop.thread_name in status
    paused = await debugger.pause()  # a new stop (main, in join), not one of the workers' old ones
    assert paused.stopped and paused.stop.kind is StopKind.PAUSE and paused.stop.thread_name == "main"
    await assert_counts_agree(debugger)
    worker = await debugger.pause(thread=others[1])  # already stopped: its own stop
    assert worker.stop.thread_name == others[1] and worker.stop.kind is StopKind.BREAKPOINT


async def test_a_resume_while_a_stop_is_recorded_leaves_its_thread_suspended(debugger, jvm_factory, line_of):
    """Recording a stop reads the in-JVM logpoints' lines first (JDWP round trips: other calls run meanwhile).
    A resume of all threads that comes in that window (a person resumes while an agent waits) must not resume
    the thread whose stop is being recorded: that stop would then be delivered on a running thread."""
    await attach(debugger, jvm_factory, "Storm", "1", "1")
    await debugger.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", suspend="thread")
    tracker = debugger.session.breakpoints
    flush, resumed = tracker.flush_logs, []

    async def flush_with_a_resume_meanwhile() -> None:
        await flush()
        if not resumed:  # (the first flush after the resume below is the stop's)
            resumed.append(await debugger.resume(timeout=0))

    await debugger.resume(timeout=0)
    tracker.flush_logs = flush_with_a_resume_meanwhile
    try:
        got = await debugger.wait_for_stop(20)
    finally:
        tracker.flush_logs = flush
    assert resumed and got.stopped and got.stop.thread_name == "worker-0", got
    tid = got.stop.thread_id
    jvm = (await debugger.session.vm.send(ThreadReference.SuspendCount, tid)).suspend_count
    assert jvm == debugger.session.threads.expected_count(tid) == 1, f"JVM count {jvm}: the stop's thread runs"
    assert (await debugger.evaluate("id")).text == "0"  # its frames are readable
    await debugger.breakpoint_remove("all")
    assert (await debugger.resume(timeout=20)).state is SessionState.EXITED


def test_an_undeclared_transition_is_an_error_in_tests():
    from tracepilot.core.states import THREAD, IllegalTransition, session_move, thread_move

    with pytest.raises(IllegalTransition):
        session_move(SessionState.DISCONNECTED, SessionState.STOPPED, "a stop without a connection")
    with pytest.raises(IllegalTransition):
        thread_move(ThreadState.FINISHED, ThreadState.RUNNING, "a dead thread running again")
    assert THREAD.allowed(ThreadState.STOPPED, ThreadState.INVOKING)


# -- failure 3: resuming one thread waits for a new stop ----------------------------------------------------------


async def test_resume_one_thread_waits_for_a_new_stop(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "Ticker", "1000", jdk=jdk)
    line = line_of("ticker-tick")
    await debugger.breakpoint_set(f"fixtures.Ticker:{line}")
    first = await debugger.resume(timeout=20)
    assert first.stopped and first.stop.hit_count == 1
    again = await debugger.resume(thread="main", timeout=20)
    assert again.stopped and again.stop is not first.stop and again.stop.hit_count == 2
    assert "<unavailable>" not in render.render(await debugger.locals())
    await assert_counts_agree(debugger)  # the helper thread stays held by the suspend-all stops
    ran = await debugger.run_to(f"fixtures.Ticker:{line}", thread="main", timeout=20)
    assert ran.stopped and ran.stop is not again.stop
    await assert_counts_agree(debugger)


# -- failure 4: a call that never returns ---------------------------------------------------------------------------


async def test_a_call_that_times_out_leaves_the_thread_inside_the_call(debugger, jvm_factory, line_of, jdk):
    jvm = await attach(debugger, jvm_factory, "Ticker", "30", jdk=jdk)
    debugger.inspector.evaluator.invoke_timeout = 2.0
    await debugger.breakpoint_set(f"fixtures.Ticker:{line_of('ticker-tick')}", temporary=True)
    stop = await debugger.resume(timeout=20)
    assert stop.stopped
    with pytest.raises(DebuggerError, match="did not return"):
        await debugger.evaluate("spin()")
    main = stop.stop.thread_id
    assert debugger.session.threads.get(main).state is ThreadState.INVOKING
    status = render.render(await debugger.status())
    assert "inside a call" in status and "spin" in status
    listing = render.render(await debugger.threads())
    assert "inside a call" in listing
    with pytest.raises(DebuggerError, match="inside a call"):
        await debugger.stack(thread=main)
    paused = await debugger.pause(thread="main")
    assert paused.stopped and paused.stop.kind is StopKind.PAUSE and paused.stop.location.method == "spin"
    frames = await debugger.stack(thread=main)
    assert frames[0].location.method == "spin"
    await assert_counts_agree(debugger)
    await debugger.set_value("forever", "false")  # let the call return: no invocation needed
    await debugger.resume(timeout=0)
    # Nothing left suspended: the call's late return was resumed (the event loop must run meanwhile).
    await asyncio.to_thread(jvm.wait_for_output, "ticker done", 30)
    assert any(e.kind == "call_returned" for e in await debugger.events(kinds=["call_returned"]))


# -- failure 5: answers say what happened ------------------------------------------------------------------------------


async def test_run_to_says_run_to(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "Ticker", "100", jdk=jdk)
    line = line_of("ticker-tick")
    result = await debugger.run_to(f"fixtures.Ticker:{line}", timeout=20)
    assert result.stopped and "None" not in result.stop.headline()
    assert f"run to fixtures.Ticker:{line}" in result.stop.headline()
    await debugger.breakpoint_set(f"fixtures.Ticker:{line}")
    both = await debugger.run_to(f"fixtures.Ticker:{line}", timeout=20)
    assert "None" not in both.stop.headline() and "bp-1" in both.stop.headline()


async def test_hit_label_counts_from_a_hit_count_update(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "HotLoop", "100000", jdk=jdk)
    bp = await debugger.breakpoint_set(f"fixtures.HotLoop:{line_of('hot-body')}", hit_count=1000)
    first = await debugger.resume(timeout=30)
    assert first.stopped and first.stop.hit_count == 1000
    await debugger.breakpoint_update(bp.id, hit_count=">=5")
    second = await debugger.resume(timeout=30)
    assert second.stopped and second.stop.hit_count == 5, second.stop.headline()


async def test_an_attached_jvm_killed_reports_no_invented_exit_code(debugger, jvm_factory, jdk):
    jvm = await attach(debugger, jvm_factory, "Ticker", "100000", jdk=jdk)
    await debugger.resume(timeout=0)
    jvm.kill()
    result = await debugger.wait_for_stop(10)
    status = await debugger.status()
    assert status.state is SessionState.EXITED and status.exit_code is None
    assert "exit code" not in render.render(status) and "exit code" not in render.render(result)


async def test_a_reconnect_is_named_in_the_answer_that_caused_it(debugger, jvm_factory, free_port, jdk):
    port = free_port()
    first = jvm_factory("Ticker", "100000", port=port, jdk=jdk)
    await debugger.attach(first.address, timeout=10)
    await debugger.resume(timeout=0)
    first.kill()
    dead = await debugger.wait_for_stop(10)
    assert dead.state is SessionState.EXITED
    jvm_factory("Ticker", "100000", port=port, jdk=jdk)
    woke = await debugger.wait_for_stop(10)  # wait_for_stop reconnects exactly as resume would
    assert "reconnected" in render.render(woke)
    assert woke.stopped and woke.stop.kind is StopKind.VM_START


async def test_status_after_attach_shows_the_attached_jvm_not_an_earlier_launch(debugger, jvm_factory, java_classes):
    await debugger.launch(main="fixtures.Ticker", classpath=str(java_classes), args=["5"])
    launched_pid = debugger.session.launched.pid
    jvm = jvm_factory("Ticker", "100000")
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.vm.pid != launched_pid and not status.launched
    # (a launched JVM still running stays beside it as another target, listed after the current one: issue 28)
    assert str(launched_pid) not in render.render(status).split("\ntargets (")[0]
    assert (await debugger.diagnose())["launched_pid"] is None


# -- virtual threads ------------------------------------------------------------------------------------------------------


async def test_a_stop_in_a_virtual_thread_shows_name_line_stack_and_locals(debugger, jvm_factory, line_of):
    await attach(debugger, jvm_factory, "VirtualStops", jdk="25")
    line = line_of("virtual-body")
    await debugger.breakpoint_set(f"fixtures.VirtualStops:{line}")
    stop = await debugger.resume(timeout=20)
    assert stop.stopped and stop.stop.thread_name == "vt-worker" and stop.stop.location.line == line
    snap = await debugger.snapshot()
    assert snap.thread is not None and snap.thread.is_virtual and snap.thread.name == "vt-worker"
    assert snap.frames and snap.frames[0].location.method == "vwork"
    assert any(v.name == "x" and v.value.text == "7" for v in snap.frames[0].locals)
    listing = await debugger.threads()
    assert any(t.name == "vt-worker" and t.is_virtual for t in listing)
    assert "virtual" in render.render(listing)


# -- stepping: lambda proxies, return values ------------------------------------------------------------------------------


async def test_step_into_skips_lambda_proxy_frames(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "LambdasAndInner", jdk=jdk)
    await debugger.run_to(f"fixtures.LambdasAndInner:{line_of('run-all-return') - 5}", timeout=20)  # total = lambda.applyAsInt(1)
    into = await debugger.step("into")
    assert into.stopped and "$$Lambda" not in into.stop.location.class_name
    assert into.stop.location.line == line_of("lambda-body")


async def test_step_out_reports_the_returned_value(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "Ticker", "100", jdk=jdk)
    await debugger.run_to("fixtures.Ticker.compute", timeout=20)
    x = int((await debugger.evaluate("x")).text)
    out = await debugger.step("out")
    assert out.stopped and out.stop.returned_from == "compute" and out.stop.return_value.text == str(x * 10)
    assert f"compute() returned {x * 10}" in render.render(out)


async def test_step_over_a_call_reports_what_it_returned(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "Ticker", "100", jdk=jdk)
    await debugger.breakpoint_set(f"fixtures.Ticker:{line_of('ticker-tick')}")
    await debugger.resume(timeout=20)
    i = int((await debugger.evaluate("i")).text)
    over = await debugger.step("over")  # over `sum += compute(i)`, out of the void tick(): compute's value
    assert over.stopped and over.stop.returned_from == "compute" and over.stop.return_value.text == str(i * 10)
    assert f"compute() returned {i * 10}" in over.stop.headline()


async def test_run_to_a_class_not_loaded_yet_defers(debugger, jvm_factory, line_of, jdk):
    await attach(debugger, jvm_factory, "LaterLoaded", jdk=jdk)
    line = line_of("later-target")
    result = await debugger.run_to(f"fixtures.LaterLoadedTarget:{line}", timeout=30)
    assert result.stopped and result.stop.location.class_name == "fixtures.LaterLoadedTarget"
    assert result.stop.location.line == line and f"run to fixtures.LaterLoadedTarget:{line}" in result.stop.headline()
