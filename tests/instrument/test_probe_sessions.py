"""A JVM an earlier tracepilot process instrumented and left (killed with SIGKILL) is instrumented again
by the next process, which first restores the classes the dead one left instrumented (issue 26 point 5)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from instrument.test_in_jvm import original_bytecodes, run_bytecodes
from tracepilot.core.debugger import Debugger
from tracepilot.core.instrument.naming import MARK
from tracepilot.core.instrument.probe import RING_LINES
from tracepilot.jdwp import ReferenceType, VirtualMachine

MAIN = "fixtures.HotCondition"
SRC = Path(__file__).resolve().parents[2] / "src"

FIRST_SESSION = """
import asyncio, sys
from tracepilot.core.debugger import Debugger

async def main(address, line, other):
    d = Debugger()
    await d.attach(address, timeout=10)
    await d.breakpoint_set(f"fixtures.HotCondition:{line}", condition="i < 0")
    await d.breakpoint_set(f"fixtures.HotCondition:{other}", condition="n % 2 == 0", log="n={n}")
    await d.resume(timeout=0)
    for _ in range(200):
        modes = [b.mode for b in await d.breakpoint_list()]
        if modes and all(m == "in-JVM" for m in modes):
            break
        await asyncio.sleep(0.05)
    print("MODES", modes, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""


async def listening_again(jvm, timeout: float = 20) -> str:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ports = re.findall(r"Listening for transport dt_socket at address: (\d+)", jvm.stdout_text())
        if len(ports) >= 2:
            return f"127.0.0.1:{ports[-1]}"
        await asyncio.sleep(0.05)
    raise AssertionError("the JVM did not listen again after the first debugger died")




@pytest.mark.timeout(120)
async def test_a_new_process_restores_what_a_killed_one_left_and_instruments_again(
        jvm_factory, jdk, line_of, java_classes) -> None:
    jvm = jvm_factory(MAIN, "300", "100000000", jdk=jdk)
    line = line_of("hc-body")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    first = subprocess.Popen([sys.executable, "-c", FIRST_SESSION, jvm.address, str(line), str(line_of("hc-sum"))],
                             env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = await asyncio.to_thread(first.stdout.readline)
        assert ready.startswith("MODES ['in-JVM', 'in-JVM']"), ready or first.stderr.read()
    finally:
        first.kill()  # SIGKILL: it restores nothing
        first.wait(10)
    address = await listening_again(jvm)
    rounds = len(re.findall(r"^round ", jvm.stdout_text(), re.M))
    d = Debugger()
    try:
        await d.attach(address, timeout=10)
        vm = d.session.require_vm()
        # The dead session's logpoint probe buffered on without a debugger: never more than its ring holds.
        probes = [c for c in (await vm.send(VirtualMachine.AllClasses)).classes if MARK in c.signature]
        assert probes
        for probe in probes:
            fields = {f.name: f.field_id for f in (await vm.send(ReferenceType.Fields, probe.type_id)).declared}
            if "N" in fields and "READ" in fields:
                n, read = (await vm.send(ReferenceType.GetValues, probe.type_id, [fields["N"], fields["READ"]])).values
                assert 0 <= (n.value - read.value) & 0xFFFFFFFF <= RING_LINES
        # The program runs on (a loaded machine may not have finished a round since the kill: await the
        # next one rather than count them); the class is the program's own again.
        await asyncio.to_thread(jvm.wait_for_output, f"round {rounds} ", 60)
        assert await run_bytecodes(d) == original_bytecodes(java_classes)
        assert any("left instrumented: fixtures.HotCondition" in e.text for e in await d.events(limit=100))
        # And this session instruments it as well as the first did.
        bp = await d.breakpoint_set(f"{MAIN}:{line}", condition="i == 299")
        modes = []
        for _ in range(3):
            stop = await d.wait_for_stop(30)
            assert stop.stopped and stop.stop.breakpoint_id == bp.id and stop.stop.location.line == line
            assert {v.name: v.value.text for v in await d.locals()}["i"] == "299"
            modes.append(next(b for b in await d.breakpoint_list() if b.id == bp.id).mode)
            await d.resume(timeout=0)
        assert modes[-1] == "in-JVM", modes
    finally:
        await d.close()


@pytest.mark.timeout(120)
async def test_after_a_clean_detach_the_next_session_finds_nothing_to_restore(jvm_factory, line_of,
                                                                             java_classes) -> None:
    jvm = jvm_factory(MAIN, "300", "100000000")
    first = Debugger()
    try:
        await first.attach(jvm.address, timeout=10)
        await first.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i < 0")
        await first.resume(timeout=0)
        await asyncio.to_thread(jvm.wait_for_output, "round 3 ", 30)
        assert await run_bytecodes(first) != original_bytecodes(java_classes)
        await first.detach()
    finally:
        await first.close()
    second = Debugger()
    try:
        await second.attach(await listening_again(jvm), timeout=10)
        assert await run_bytecodes(second) == original_bytecodes(java_classes)
        # The probes are still loaded (classes are not unloaded), but no class calls them: nothing to do.
        assert not any("left instrumented" in e.text for e in await second.events(limit=100))
    finally:
        await second.close()
