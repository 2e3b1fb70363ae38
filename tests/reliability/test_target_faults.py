"""Target faults: the JVM killed while a tool waits, restarted on the same port, exiting mid-step, and
throwing 100,000 exceptions under a breakpoint filtered to one class. No hangs, state per seed 000's
lifecycle matrix (VM death keeps the target, breakpoints and history; the next call reconnects)."""

from __future__ import annotations

import asyncio
import time

import pytest
from reliability_support import vm_gone

from tracepilot.core.model import SessionState, StopKind

pytestmark = pytest.mark.timeout(90)


async def test_kill_9_while_waiting_answers_vm_death_within_a_second(debugger, jvm_factory, line_of, jdk):
    jvm = jvm_factory("Playground", jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"Playground:{line_of('main-end')}")
    await debugger.breakpoint_set(f"Playground:{line_of('compute-body')}", log="x={x}")
    first = await debugger.resume(timeout=0)
    assert first.state is SessionState.RUNNING
    waiting = asyncio.create_task(debugger.wait_for_stop(60))
    await asyncio.sleep(0)  # let the wait begin before the kill
    jvm.proc.kill()
    killed = time.monotonic()
    result = await asyncio.wait_for(waiting, 5)
    answered = time.monotonic() - killed
    assert answered < 1.0, f"VM death answered after {answered:.2f}s"
    assert not result.stopped and result.state is SessionState.EXITED
    assert result.stop is not None and result.stop.kind is StopKind.VM_DEATH
    status = await debugger.status()
    # lifecycle matrix, VM death: keep the target address, breakpoints and history; drop the rest
    assert status.state is SessionState.EXITED and status.target == jvm.address
    kept = await debugger.breakpoint_list()
    assert [b.id for b in kept] == [bp.id, "bp-2"] and not any(b.verified for b in kept)
    kinds = [e.kind for e in await debugger.events(limit=1000)]
    assert kinds[0] == "attach" and "breakpoint_set" in kinds and kinds[-1] == "vm_death"
    # calls that need the VM answer at once with what to do, instead of hanging
    started = time.monotonic()
    with pytest.raises(Exception, match="terminated"):
        await debugger.threads()
    assert time.monotonic() - started < 5


async def test_jvm_restarted_on_same_port_reconnects_and_reinstalls_breakpoints(debugger, jvm_factory, line_of,
                                                                                 free_port):
    port = free_port()
    first = jvm_factory("Playground", "1000", "nosleep", port=port)
    await debugger.attach(first.address, timeout=10)
    line = line_of("loop-body")
    bp = await debugger.breakpoint_set(f"Playground:{line}", hit_count=5)
    hit = await debugger.resume(timeout=20)
    assert hit.stopped and hit.stop.breakpoint_id == bp.id
    gone = vm_gone(debugger)
    first.kill()
    await asyncio.wait_for(gone, 10)
    assert (await debugger.status()).state is SessionState.EXITED
    second = jvm_factory("Playground", "1000", "nosleep", port=port)
    assert second.port == port
    # the next call reconnects (seed 000), the breakpoint comes back under its id
    result = await debugger.resume(timeout=20)
    assert result.stopped, result
    assert result.stop.breakpoint_id == bp.id and result.stop.location.line == line
    assert result.stop.hit_count == 5  # a new JVM is a new run: its hits count from 0, as after a restart (issue 29.10)
    status = await debugger.status()
    assert status.state is SessionState.STOPPED and status.vm is not None and status.vm.address.endswith(f":{port}")
    kinds = [e.kind for e in await debugger.events(limit=10_000)]
    assert "vm_death" in kinds and "reconnect" in kinds and kinds.index("vm_death") < kinds.index("reconnect")
    [info] = await debugger.breakpoint_list()
    assert info.id == bp.id and info.verified


async def test_jvm_exiting_normally_mid_step_ends_the_step(debugger, jvm_factory, line_of):
    jvm = jvm_factory("Playground", "1", "nosleep")
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"Playground:{line_of('main-end')}")
    stop = await debugger.resume(timeout=20)
    assert stop.stopped and stop.stop.location.line == line_of("main-end")
    started = time.monotonic()
    result = await debugger.step("out", timeout=20)  # out of main: the program ends
    assert time.monotonic() - started < 10
    if result.state is SessionState.STOPPED:  # some JVMs report one more step in the exit path
        result = await debugger.step("out", timeout=20)
    assert result.state is SessionState.EXITED, result
    assert not result.stopped and "terminated" in (result.message or "")
    assert jvm.wait(10) == 0
    assert "playground done" in jvm.stdout_text()


async def test_hundred_thousand_exceptions_with_a_breakpoint_filtered_to_one_class(debugger, jvm_factory, line_of):
    jvm = jvm_factory("Exceptions", "100000")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.exception_break("fixtures.Exceptions$ExceptionB", caught=True, uncaught=True)
    done = await debugger.breakpoint_set(f"Exceptions:{line_of('exceptions-summary')}")
    started = time.monotonic()
    stops = 0
    while True:
        result = await debugger.resume(timeout=30)
        assert result.stopped, result
        if result.stop.breakpoint_id == done.id:
            break
        assert result.stop.kind is StopKind.EXCEPTION and result.stop.breakpoint_id == bp.id
        assert result.stop.exception.class_name == "fixtures.Exceptions$ExceptionB"
        assert result.stop.exception.caught
        stops += 1
    elapsed = time.monotonic() - started
    assert stops == 10  # 100,000 throws, one ExceptionB in 10,000: the JVM filters, we see only those
    assert elapsed < 30, f"{elapsed:.1f}s for 100,000 exceptions"
    caught = await debugger.evaluate("caughtA + caughtB")
    assert caught.text == "100000"
    [info] = [b for b in await debugger.breakpoint_list() if b.id == bp.id]
    assert info.hits == 10
