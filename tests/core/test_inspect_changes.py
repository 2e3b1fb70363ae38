"""Tracing 100,000 calls without stopping, hot-swapping a method's result, pop_frames and force_return."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from _inspect_support import stop_at

from support.jvm import JAVAC_QUICK, source_path_of, system_javac

pytestmark = pytest.mark.timeout(120)


async def test_trace_of_100000_calls(debugger, jvm_factory, jdk):
    jvm = jvm_factory("HotLoop", "100000", jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    # The trace runs until the program ends (VM death); resume=true resumes it once its requests are in.
    result = await debugger.trace("fixtures.HotLoop", duration=60, max_calls=1_000, resume=True)
    by_method = {m.method: m for m in result.methods}
    step = by_method["fixtures.HotLoop.step(int)"]
    assert step.calls == 100_000  # max_calls never bounds the counting
    assert result.calls >= 100_001 and result.busiest_thread == "main"
    main = next(n for n in result.call_tree if n.method.startswith("fixtures.HotLoop.main"))
    assert [(c.method, c.calls) for c in main.children] == [("fixtures.HotLoop.step(int)", 100_000)]
    assert result.stopped_by in ("vm_death", "duration")


async def test_trace_keeps_its_duration_past_max_calls_and_program_keeps_running(debugger, jvm_factory, line_of):
    # Ticker ticks once a millisecond (tick and compute: two calls) for 2^31-1 ticks: still running after any trace
    # duration by construction, however loaded the machine (a counted loop without sleeps once ended inside it).
    await stop_at(debugger, jvm_factory, "Ticker", line_of("ticker-tick"), str(2**31 - 1))
    await debugger.breakpoint_remove("all")  # the trace runs its whole duration, not to the next tick's stop
    result = await debugger.trace("fixtures.Ticker", duration=1.5, max_calls=20, resume=True)
    assert result.stopped_by == "duration" and result.calls > 20 and abs(result.duration_ms - 1500) <= 500, result
    assert any(m.method == "fixtures.Ticker.compute(int)" for m in result.methods)
    assert (await debugger.status()).state.value == "RUNNING"


@pytest.mark.skipif(system_javac() is None, reason="javac needed")
async def test_hotswap_changes_a_methods_result(debugger, jvm_factory, line_of, tmp_path):
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-call"), "50")
    source = source_path_of("Playground").read_text(encoding="utf-8")
    changed = source.replace("return doubled + 1;", "return doubled + 1000;")
    assert changed != source
    src_dir = tmp_path / "src" / "fixtures"
    src_dir.mkdir(parents=True)
    (src_dir / "Playground.java").write_text(changed, encoding="utf-8")
    out = tmp_path / "classes"
    before = time.time() - 1
    subprocess.run([system_javac(), *JAVAC_QUICK, "-g", "--release", "17", "-d", str(out), str(src_dir / "Playground.java")],
                   check=True, capture_output=True)
    result = await debugger.hotswap(str(out), since=before)
    assert result.redefined == ["fixtures.Playground"] and not result.errors, result.headline()
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    stop = await debugger.resume(timeout=15)
    assert stop.stopped and stop.stop.location.line == line_of("loop-print")
    local = {v.name: v.value.text for v in await debugger.locals()}
    assert local["result"] == str(int(local["i"]) * 2 + 1000)
    value = await debugger.evaluate("p.compute(5)")
    assert value.text == "1010"
    # A schema change is refused and reported per class.
    schema = changed.replace("int counter = 0;", "int counter = 0;\n    int added = 1;")
    (src_dir / "Playground.java").write_text(schema, encoding="utf-8")
    shutil.rmtree(out)
    subprocess.run([system_javac(), *JAVAC_QUICK, "-g", "--release", "17", "-d", str(out), str(src_dir / "Playground.java")],
                   check=True, capture_output=True)
    refused = await debugger.hotswap(str(out / "fixtures" / "Playground.class"))
    assert "fixtures.Playground" in refused.errors and "schema" in refused.errors["fixtures.Playground"]


async def test_force_return_and_pop_frames(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Playground", line_of("compute-body"), "50")
    popped = await debugger.pop_frames(0)
    assert popped.location.method == "main" and popped.location.line == line_of("loop-call")
    assert (await debugger.stack())[0].location.method == "main"
    stop = await debugger.resume(timeout=15)  # re-enters compute: the breakpoint fires again
    assert stop.stopped and stop.stop.location.method == "compute" and stop.stop.hit_count == 2
    changed = await debugger.force_return("77")
    assert changed.value.text == "77"
    await debugger.breakpoint_remove("all")
    await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-print')}")
    stop = await debugger.resume(timeout=15)
    assert stop.stopped
    assert {v.name: v.value.text for v in await debugger.locals()}["result"] == "77"
