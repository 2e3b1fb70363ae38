"""In-JVM conditions and logpoints on a real JVM, through the Debugger (what every front end uses)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.jdwp import Method

MAIN = "fixtures.HotCondition"




@pytest.fixture
async def debugger():
    d = Debugger()
    try:
        yield d
    finally:
        await d.close()


def plain_output(java_classes: Path, java: str, *args: str) -> str:
    return subprocess.run([java, "-cp", str(java_classes), MAIN, *args], capture_output=True, text=True,
                          timeout=60).stdout


async def run_bytecodes(debugger: Debugger) -> bytes:
    vm = debugger.session.require_vm()
    info = (await vm.classes_by_name(MAIN))[0]
    method = next(m for m in await vm.methods(info.id) if m.name == "run")
    return (await vm.send(Method.Bytecodes, info.id, method.id)).bytecodes


def original_bytecodes(java_classes: Path) -> bytes:
    from tracepilot.core.instrument.classfile import ClassFile

    cf = ClassFile.parse((java_classes / "fixtures" / "HotCondition.class").read_bytes())
    return cf.method("run", "(I)J").code.code


async def listening_again(jvm, timeout: float = 20) -> str:  # noqa: ANN001
    """The address the JDWP agent listens on after a detach (port 0 picks a new port each time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ports = re.findall(r"Listening for transport dt_socket at address: (\d+)", jvm.stdout_text())
        if len(ports) >= 2:
            return f"127.0.0.1:{ports[-1]}"
        await asyncio.sleep(0.05)
    raise AssertionError("the JVM did not listen again after the detach")


def program_output(jvm) -> str:  # noqa: ANN001
    """The target's stdout without the JDWP agent's own line."""
    return "".join(line for line in jvm.stdout_text().splitlines(keepends=True)
                   if not line.startswith("Listening for transport"))


@pytest.mark.timeout(120)
async def test_true_stops_at_the_line_with_its_locals_false_never_and_removal_restores(
        debugger, jvm_factory, jdk, line_of, java_classes, jdks) -> None:
    jvm = jvm_factory(MAIN, "1000", "3", jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    line = line_of("hc-body")
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}", condition="i == 700 && secret == 3")
    first = await debugger.resume(timeout=30)
    assert first.stopped, first.message
    assert first.stop.breakpoint_id == bp.id
    assert first.stop.location.line == line and first.stop.location.method == "run"
    info = next(b for b in await debugger.breakpoint_list() if b.id == bp.id)
    assert info.mode == "in-JVM" and info.hits == 1
    frames = await debugger.stack()
    assert frames[0].location.method == "run" and frames[1].location.method == "main"  # no probe frames
    values = {v.name: v.value.text for v in await debugger.locals()}
    assert values["i"] == "700"
    assert await run_bytecodes(debugger) != original_bytecodes(java_classes)
    # The call popped for the stop runs again on resume: it must not stop twice; round 2 stops at 700 again.
    second = await debugger.resume(timeout=30)
    assert second.stopped and second.stop.location.line == line
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "700"
    await debugger.breakpoint_remove(bp.id)
    # Never restored under the stopped frame (it would run obsolete code): the probe is inert until then.
    assert await run_bytecodes(debugger) != original_bytecodes(java_classes)
    done = await debugger.resume(timeout=30)
    assert not done.stopped
    jvm.wait(30)
    assert program_output(jvm) == plain_output(java_classes, jdks[jdk], "1000", "3")


@pytest.mark.timeout(120)
async def test_a_false_condition_never_stops_and_the_output_is_unchanged(debugger, jvm_factory, line_of,
                                                                        java_classes, jdks) -> None:
    jvm = jvm_factory(MAIN, "20000", "3")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i < 0 || sum == -1")
    result = await debugger.resume(timeout=30)
    assert not result.stopped
    jvm.wait(30)
    assert program_output(jvm) == plain_output(java_classes, jdks["17"], "20000", "3")
    assert bp.mode == "in-JVM"


@pytest.mark.timeout(120)
async def test_a_condition_error_is_reported_and_the_program_goes_on(debugger, jvm_factory, line_of,
                                                                   java_classes, jdks) -> None:
    jvm = jvm_factory(MAIN, "100", "2")
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="10 / (i - 5) > 100")
    for _ in range(2):
        stop = await debugger.resume(timeout=30)
        assert stop.stopped and "condition error" in (stop.stop.message or "")
        assert "ArithmeticException" in stop.stop.message
        assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "5"
    assert not (await debugger.resume(timeout=30)).stopped
    jvm.wait(30)
    assert program_output(jvm) == plain_output(java_classes, jdks["17"], "100", "2")


@pytest.mark.timeout(120)
async def test_fall_backs_say_why(debugger, jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "100", "2")
    await debugger.attach(jvm.address, timeout=10)
    line = line_of("hc-body")
    changes = await debugger.breakpoint_set(f"{MAIN}:{line}", condition="i++ > 1000")
    # (One breakpoint a line: several on one line are one event, so they take the round trip together.)
    counted = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-round')}", condition="r >= 0", hit_count=3)
    fine = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-sum')}", condition="n > 1")
    stop = await debugger.resume(timeout=30)
    assert stop.stopped
    modes = {b.id: b.mode for b in await debugger.breakpoint_list()}
    assert modes[changes.id] == "round trip (not compilable: '++' (it changes a variable) is evaluated by the debugger)"
    assert modes[counted.id] == "in-JVM"  # its hit count is kept in the probe
    assert modes[fine.id] == "in-JVM"
    assert "round trip (not compilable" in next(b for b in await debugger.breakpoint_list()
                                                  if b.id == changes.id).describe()
    # Set while the class is loaded and a thread is inside the method: the round trip, and why.
    await debugger.breakpoint_remove(changes.id)
    late = await debugger.breakpoint_set(f"{MAIN}:{line}", condition="i == 50")
    assert late.mode.startswith("round trip (the class was loaded before the breakpoint was set and a thread is "
                                "inside the method")


@pytest.mark.timeout(120)
async def test_logpoint_formats_in_the_jvm_without_stopping(debugger, jvm_factory, line_of, java_classes,
                                                          jdks) -> None:
    jvm = jvm_factory(MAIN, "1000", "2")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i % 250 == 0",
                                       log="i={i} sum={sum}!")
    assert not (await debugger.resume(timeout=30)).stopped
    jvm.wait(30)
    lines = [e.text.rsplit(" — at ", 1)[0] for e in await debugger.events(kinds=["log"], limit=1000)]
    assert [line.split(" ")[0] for line in lines] == ["i=0", "i=250", "i=500", "i=750"] * 2
    assert lines[1] == "i=250 sum=31129!"
    assert next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
    assert program_output(jvm) == plain_output(java_classes, jdks["17"], "1000", "2")


@pytest.mark.timeout(120)
async def test_a_new_condition_reaches_the_running_method_and_other_breakpoints_keep_working(
        debugger, jvm_factory, line_of, java_classes, jdks) -> None:
    jvm = jvm_factory(MAIN, "1000", "2")
    await debugger.attach(jvm.address, timeout=10)
    body, after = line_of("hc-body"), line_of("hc-round")
    plain = await debugger.breakpoint_set(f"{MAIN}:{after}")  # an ordinary breakpoint in the same class
    bp = await debugger.breakpoint_set(f"{MAIN}:{body}", condition="i == 100")
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id
    # Stopped inside run(): the new condition must apply to this very invocation (only the probe changes).
    await debugger.breakpoint_update(bp.id, condition="i == 200 && sum > 0")
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "200"
    assert next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == plain.id and stop.stop.location.line == after
    # A condition on other variables changes the inserted call: the running frame is bridged over JDWP.
    await debugger.breakpoint_update(bp.id, condition="HotCondition.total > 0 && i == 300")
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id and stop.stop.location.line == body
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "300"
    await debugger.breakpoint_remove(bp.id)
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == plain.id
    assert not (await debugger.resume(timeout=30)).stopped
    jvm.wait(30)
    assert program_output(jvm) == plain_output(java_classes, jdks["17"], "1000", "2")


@pytest.mark.timeout(120)
async def test_detach_restores_the_original_class(jvm_factory, line_of, java_classes) -> None:
    jvm = jvm_factory(MAIN, "100000", "100000")  # long enough to attach twice
    first = Debugger()
    try:
        await first.attach(jvm.address, timeout=10)
        await first.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i < 0")
        await first.breakpoint_set(f"{MAIN}:{line_of('hc-round')}")
        await first.resume(timeout=30)
        assert await run_bytecodes(first) != original_bytecodes(java_classes)
        await first.detach()
    finally:
        await first.close()
    second = Debugger()
    try:
        await second.attach(await listening_again(jvm), timeout=10)
        assert await run_bytecodes(second) == original_bytecodes(java_classes)
        await second.detach(terminate=True)
    finally:
        await second.close()


@pytest.mark.timeout(120)
async def test_lambdas_and_inner_classes(debugger, jvm_factory, jdk, line_of) -> None:
    jvm = jvm_factory("fixtures.LambdasAndInner", "loop", jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    main = "fixtures.LambdasAndInner"
    wanted = {
        "lambda-body": "v == 1 && seed == 5",  # a lambda's synthetic method: captured locals are its arguments
        "inner-method": "x == 2 && outerField > 0",  # outerField is the outer instance's: the round trip
        "static-nested": "x == 3",
        "anonymous": "outerField >= 12",  # the same in an anonymous class
        "local-class": "x == 4",
    }
    bps = {marker: await debugger.breakpoint_set(f"{main}:{line_of(marker)}", condition=condition)
           for marker, condition in wanted.items()}
    seen = set()
    for _ in range(5):
        stop = await debugger.resume(timeout=30)
        assert stop.stopped, stop.message
        seen.add(stop.stop.location.line)
    modes = {b.id: b.mode for b in await debugger.breakpoint_list()}
    for marker in ("lambda-body", "static-nested", "local-class"):
        assert modes[bps[marker].id] == "in-JVM", (marker, modes[bps[marker].id])
    assert modes[bps["inner-method"].id].startswith("round trip (not compilable: 'outerField'")
    assert {line_of(m) for m in ("lambda-body", "static-nested", "local-class")} <= seen


@pytest.mark.timeout(120)
async def test_hot_swap_keeps_the_probe_and_keeps_stopping(debugger, jvm_factory, line_of, java_classes) -> None:
    jvm = jvm_factory(MAIN, "1000", "3")
    await debugger.attach(jvm.address, timeout=10)
    line = line_of("hc-body")
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}", condition="i == 600")
    first = await debugger.resume(timeout=30)
    assert first.stop.breakpoint_id == bp.id
    await debugger.hotswap(str(java_classes / "fixtures" / "HotCondition.class"))  # the class as compiled
    info = next(b for b in await debugger.breakpoint_list() if b.id == bp.id)
    assert info.mode == "in-JVM"  # the new bytes got the probe call (issue 26 point 6)
    assert await run_bytecodes(debugger) != original_bytecodes(java_classes)
    second = await debugger.resume(timeout=30)
    assert second.stop.breakpoint_id == bp.id and second.stop.location.line == line
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "600"


@pytest.mark.timeout(120)
async def test_set_while_stopped_elsewhere_in_the_class_runs_in_the_jvm(debugger, jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "1000", "3")
    await debugger.attach(jvm.address, timeout=10)
    body, after = line_of("hc-body"), line_of("hc-round")
    plain = await debugger.breakpoint_set(f"{MAIN}:{after}")
    assert (await debugger.resume(timeout=30)).stop.breakpoint_id == plain.id  # in main; run() has returned
    bp = await debugger.breakpoint_set(f"{MAIN}:{body}", condition="i == 5")
    assert bp.mode == "in-JVM"
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id and stop.stop.location.line == body
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == plain.id  # main's own breakpoint survived the redefinition


@pytest.mark.timeout(120)
async def test_removed_while_stopped_in_a_loop_the_loop_runs_free(debugger, jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "2000000", "1")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i == 10")
    assert (await debugger.resume(timeout=30)).stop.breakpoint_id == bp.id
    await debugger.breakpoint_remove(bp.id)  # the running frame keeps the instrumented code
    done = await debugger.resume(timeout=60)
    assert not done.stopped
    jvm.wait(60)
    # The 2,000,000 remaining hits of the old code did not each come to the debugger.
    bridged = [e for e in await debugger.events(limit=1000) if e.kind == "suppressed"]
    assert len(bridged) == 0 and "done" in program_output(jvm)
    assert not debugger.session.breakpoints.in_jvm.requests


@pytest.mark.timeout(120)
async def test_read_only_sessions_stay_on_the_round_trip(jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "100", "1")
    d = Debugger(read_only=True)
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i == 7")
        stop = await d.resume(timeout=30)
        assert stop.stop.breakpoint_id == bp.id
        info = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert info.mode == "round trip (a read-only session never changes the target's classes)"
    finally:
        await d.close()


@pytest.mark.timeout(120)
async def test_set_while_running_moves_into_the_jvm_once_the_method_returns(debugger, jvm_factory, jdk,
                                                                           line_of) -> None:
    jvm = jvm_factory(MAIN, "300", "100000000", jdk=jdk, suspend=False)  # run(300) called over and over
    await asyncio.to_thread(jvm.wait_for_output, "round 1 ", 30)  # the class is loaded and running
    await debugger.attach(jvm.address, timeout=10)
    line = line_of("hc-body")
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}", condition="i == 299")
    assert bp.mode.startswith("round trip (the class was loaded before the breakpoint was set")
    modes = []
    for _ in range(3):
        stop = await debugger.wait_for_stop(30)
        assert stop.stopped and stop.stop.breakpoint_id == bp.id and stop.stop.location.line == line
        assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "299"
        modes.append(next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode)
        await debugger.resume(timeout=0)
    assert modes[-1] == "in-JVM", modes
    assert any(e.text.endswith("now runs in the JVM (in-JVM)") for e in await debugger.events(limit=500))


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("rule", "stops"), [("%3", [(4, 3), (10, 6)]), ("2", [(2, 2)]), (">=4", [(6, 4), (8, 5)])])
async def test_hit_counts_with_a_condition_are_counted_in_the_jvm(debugger, jvm_factory, line_of, rule, stops) -> None:
    jvm = jvm_factory(MAIN, "12", "1")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i % 2 == 0", hit_count=rule)
    for i, hits in stops:
        stop = await debugger.resume(timeout=30)
        assert stop.stop.breakpoint_id == bp.id and stop.stop.hit_count == hits
        assert {v.name: v.value.text for v in await debugger.locals()}["i"] == str(i)
    assert next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode == "in-JVM"


@pytest.mark.timeout(120)
async def test_updating_a_hit_count_counts_from_the_update(debugger, jvm_factory, line_of) -> None:
    jvm = jvm_factory(MAIN, "40", "1")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line_of('hc-body')}", condition="i % 2 == 0", hit_count=2)
    stop = await debugger.resume(timeout=30)
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == "2"
    left = (await debugger.breakpoint_update(bp.id, hit_count=3)).hits  # what the update left (it resets)
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id
    # As the round trip does it: the probe counts on from the hits the update left on the breakpoint.
    expected_i = 2 + 2 * (3 - left)
    assert {v.name: v.value.text for v in await debugger.locals()}["i"] == str(expected_i)
    assert stop.stop.hit_count == 3


@pytest.mark.timeout(120)
async def test_a_condition_on_a_type_loaded_after_its_class_moves_into_the_jvm_once_it_loads(debugger, jvm_factory,
                                                                                              line_of) -> None:
    """Bound when CaptureService loads (set at the VM's start), the condition's type (its nested Request) is not
    loaded yet: round trip, saying it waits for the type; the stops come as they would, and once a hit finds
    Request loaded the breakpoint moves into the JVM and stops at the same places."""
    service = "fixtures.CaptureService"
    await debugger.attach(jvm_factory(service, "1").address, timeout=10)  # (one worker: none other in handle)
    line = line_of("capture-line")
    bp = await debugger.breakpoint_set(f"{service}:{line}", condition="request.id % 10 == 7")
    await debugger.resume(timeout=0)
    modes = []
    for _ in range(3):
        stop = await debugger.wait_for_stop(30)
        assert stop.stopped and stop.stop.breakpoint_id == bp.id and stop.stop.location.line == line, stop
        assert int((await debugger.evaluate("request.id")).text) % 10 == 7
        modes.append(next(b for b in await debugger.breakpoint_list() if b.id == bp.id).mode)
        await debugger.resume(timeout=0)
    assert modes[0] in ("in-JVM", "round trip (not compilable: class fixtures.CaptureService$Request is not "
                                  "loaded; moves into the JVM at a hit once it has loaded)"), modes
    assert modes[-1] == "in-JVM", modes
