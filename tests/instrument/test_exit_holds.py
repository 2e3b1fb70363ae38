"""Nothing the debugger suspends stays suspended after a resume (the exit hang): a composite event of two
breakpoints on one line, one checked by the debugger (a condition) and one suspending all threads, made a
stop that held every thread once more than the debugger's book released. The program's last thread then
waited in DestroyJavaVM forever. Checked on a real JVM: the JVM's suspend counts agree with the book at
each stop, and the program exits once resumed, in both modes."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState, StopKind
from tracepilot.jdwp import ThreadReference, VirtualMachine

MAIN = "fixtures.Differential"


async def _counts(debugger: Debugger) -> list[tuple[str, int, int]]:
    """(thread, JVM's suspend count, the debugger's book) for every live thread that disagree."""
    vm = debugger.session.vm
    book = debugger.session.threads
    wrong = []
    for tid in (await vm.send(VirtualMachine.AllThreads)).threads:
        count = (await vm.send(ThreadReference.SuspendCount, tid)).suspend_count
        if count != book.expected_count(tid):
            wrong.append((await vm.thread_name(tid), count, book.expected_count(tid)))
    return wrong


async def _to_exit(debugger: Debugger, jvm, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if debugger.session.state is SessionState.STOPPED:
            await debugger.resume(timeout=0)
        result = await debugger.wait_for_stop(timeout=0.1)
        if result.stopped and (result.stop is None or result.stop.kind is StopKind.VM_DEATH):
            return "exited"
        if debugger.session.state not in (SessionState.RUNNING, SessionState.STOPPED):
            return "exited"
    return f"still running after {seconds:g}s: vm_holds {debugger.session.threads.vm_holds}, output " \
           f"{jvm.stdout_text()[-80:]!r}"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("in_jvm", [True, False], ids=["in-JVM", "round-trip"])
async def test_a_stop_of_two_breakpoints_on_one_line_leaves_no_suspension(jvm_factory, line_of, java_source_root,
                                                                          in_jvm):
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-exit-"))
    jvm = jvm_factory("Differential", "6", "100", str(gate_dir), jdk="17")  # (no gate: 6 rounds, chunk 100)
    debugger = Debugger(sourcepath=[str(java_source_root)])
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await debugger.attach(jvm.address, timeout=10)
        at = f"{MAIN}:{line_of('diff-total')}"
        checked = await debugger.breakpoint_set(at, condition="i % 4 == 1")  # the older: the stop's own
        plain = await debugger.breakpoint_set(at)  # suspends all threads
        stops = []
        for _ in range(3):  # i=0 (the plain one), i=1 (both: one composite event), i=2
            result = await debugger.resume(timeout=20)
            assert result.stopped, result
            stops.append((result.stop.breakpoint_id, sorted(result.stop.also)))
            assert await _counts(debugger) == [], stops
        assert stops == [(plain.id, []), (checked.id, [plain.id]), (plain.id, [])]
        await debugger.breakpoint_remove(plain.id)
        await debugger.breakpoint_remove(checked.id)
        assert await _to_exit(debugger, jvm, 10) == "exited"
    finally:
        await asyncio.wait_for(debugger.close(), 10)
        jvm.close()
