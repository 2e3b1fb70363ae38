"""Obsolete frames (issue 26, points 1 and 6): a conditional breakpoint set on a program that is already running
stops with frames every reader can read, and the stop stands at the line as the round trip's would."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from support.jvm import JAVA_SRC, system_javac
from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError

MAIN = "fixtures.Amounts"
CONDITION = 's.contains(".") && s.contains(",")'


@pytest.fixture
async def debugger():
    d = Debugger()
    try:
        yield d
    finally:
        await d.close()


async def running_amounts(debugger: Debugger, jvm_factory, jdk: str):  # noqa: ANN001
    jvm = jvm_factory(MAIN, "20", jdk=jdk, suspend=False)  # parse() every 20 ms, already running
    await asyncio.to_thread(jvm.wait_for_output, "parsed 3 ", 30)
    await debugger.attach(jvm.address, timeout=10)
    return jvm


@pytest.mark.timeout(120)
async def test_a_temporary_condition_set_while_running_stops_with_readable_frames(debugger, jvm_factory, jdk,
                                                                                  line_of) -> None:
    await running_amounts(debugger, jvm_factory, jdk)
    line = line_of("amounts-parse")
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}", condition=CONDITION, temporary=True)
    assert bp.mode.startswith("round trip (the class was loaded before the breakpoint was set")
    stop = await debugger.resume(timeout=30)
    assert stop.stopped, stop.message
    assert stop.stop.location.line == line and stop.stop.location.method == "parse"
    frames = await debugger.stack()
    assert frames[0].location.method == "parse" and frames[0].location.line == line
    assert frames[1].location.method == "main"
    values = {v.name: v.value.text for v in await debugger.locals()}
    assert values["s"] == '"1.234,56"'
    assert (await debugger.evaluate("s")).text == '"1.234,56"'
    assert '"1.234,56"' in render.render(await debugger.snapshot())
    step = await debugger.step("into", timeout=10)
    assert step.stopped, step.message
    # The line calls only the JDK (filtered out of steps): on to the next line, control kept, no probe shown.
    assert (step.stop.location.method, step.stop.location.line) == ("parse", line + 1)
    assert "skipped()" not in step.stop.headline() and "check()" not in step.stop.headline()
    events = [e.text for e in await debugger.events(limit=200)]
    assert not [t for t in events if "internal error" in t or "INVALID_METHODID" in t], events


def changed_amounts(tmp_path: Path) -> Path:
    """Amounts.class with another body for parse(): hot swapped, it leaves a running parse() on obsolete code."""
    source = (JAVA_SRC / "fixtures" / "Amounts.java").read_text().replace("value * 100;", "value * 1000;")
    (tmp_path / "src" / "fixtures").mkdir(parents=True)
    (tmp_path / "src" / "fixtures" / "Amounts.java").write_text(source)
    javac = system_javac()
    if javac is None:
        pytest.skip("no javac")
    subprocess.run([javac, "-g", "--release", "17", "-d", str(tmp_path / "out"),
                    str(tmp_path / "src" / "fixtures" / "Amounts.java")], check=True, timeout=60)
    return tmp_path / "out" / "fixtures" / "Amounts.class"


async def stopped_in_parse_then_hot_swapped(debugger: Debugger, jvm_factory, jdk: str, line: int,  # noqa: ANN001
                                            tmp_path: Path) -> None:
    await running_amounts(debugger, jvm_factory, jdk)
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}")
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id
    await debugger.breakpoint_remove(bp.id)
    result = await debugger.hotswap(str(changed_amounts(tmp_path)))
    assert "fixtures.Amounts" in str(result)


async def no_internal_errors(debugger: Debugger) -> None:
    events = [e.text for e in await debugger.events(limit=200)]
    assert not [t for t in events if "internal error" in t or "INVALID_METHODID" in t], events


@pytest.mark.timeout(120)
async def test_a_frame_left_on_obsolete_code_reads_as_the_method_it_runs(debugger, jvm_factory, jdk, line_of,
                                                                        tmp_path) -> None:
    line = line_of("amounts-parse")
    await stopped_in_parse_then_hot_swapped(debugger, jvm_factory, jdk, line, tmp_path)
    frames = await debugger.stack()
    top = frames[0].location
    assert (top.obsolete, top.class_name, top.method, top.line) == (True, MAIN, "parse", line)
    assert "old code" in str(top) and "Amounts.java" in str(top)
    assert frames[1].location.method == "main" and not frames[1].location.obsolete
    assert {v.name: v.value.text for v in await debugger.locals()}["s"].startswith('"')
    assert (await debugger.evaluate("s.length() > 0")).text == "true"
    step = await debugger.step("over", timeout=10)  # on through the old code, line by line
    assert step.stopped and step.stop.location.obsolete and step.stop.location.line == line + 1, step.message
    out = await debugger.step("out", timeout=10)
    assert out.stopped and out.stop.location.method == "main", out.message
    await no_internal_errors(debugger)


@pytest.mark.timeout(120)
async def test_an_obsolete_frame_never_seen_before_shows_what_can_be_read(debugger, jvm_factory, jdk, line_of,
                                                                        tmp_path, monkeypatch) -> None:
    from tracepilot.core.vm import Vm

    async def unseen(self, type_ids) -> None:  # noqa: ANN001 - as for a thread that ran through the hot swap
        return None

    monkeypatch.setattr(Vm, "remember_running", unseen)
    await stopped_in_parse_then_hot_swapped(debugger, jvm_factory, jdk, line_of("amounts-parse"), tmp_path)
    frames = await debugger.stack()
    top = frames[0].location
    assert top.obsolete and top.class_name == MAIN and top.method == "<obsolete>" and "old code" in str(top)
    assert frames[1].location.method == "main" and not frames[1].location.obsolete
    await debugger.locals()  # what can be read: nothing to hide, no error
    await debugger.snapshot()
    assert (await debugger.evaluate("total")).text.isdigit()  # the class's statics are still there
    with pytest.raises(DebuggerError) as refused:
        await debugger.evaluate("s")
    assert "INVALID_METHODID" not in str(refused.value) and "obsolete" in str(refused.value).lower()
    step = await debugger.step("over", timeout=10)
    assert step.stopped, step.message
    into = await debugger.step("into", timeout=10)
    assert into.stopped, into.message
    for answer in (await debugger.status(), await debugger.threads()):
        assert "INVALID_METHODID" not in render.render(answer)
    out = await debugger.step("out", timeout=10)
    assert out.stopped and out.stop.location.method == "main", out.message
    await no_internal_errors(debugger)


def line_index(java_classes: Path, line: int) -> int:
    """The first code index of `line` in Amounts.parse, as the program's own class file has it."""
    from tracepilot.core.instrument.classfile import ClassFile
    from tracepilot.core.instrument.insert import line_start

    cf = ClassFile.parse((java_classes / "fixtures" / "Amounts.class").read_bytes())
    return line_start(cf.method("parse", "(Ljava/lang/String;)J").code, line)


@pytest.mark.timeout(120)
async def test_a_probe_stop_stands_at_the_line_code_index_and_all(debugger, jvm_factory, line_of,
                                                                  java_classes) -> None:
    jvm = jvm_factory(MAIN, "1")  # suspended before Amounts loads: the condition goes into the JVM at once
    await debugger.attach(jvm.address, timeout=10)
    line = line_of("amounts-parse")
    bp = await debugger.breakpoint_set(f"{MAIN}:{line}", condition=CONDITION)
    stop = await debugger.resume(timeout=30)
    assert stop.stop.breakpoint_id == bp.id and bp.mode == "in-JVM"
    expected = line_index(java_classes, line)
    assert (stop.stop.location.line, stop.stop.location.code_index) == (line, expected)
    top = (await debugger.stack())[0].location
    assert (top.class_name, top.method, top.line, top.code_index) == (MAIN, "parse", line, expected)
    step = await debugger.step("over", timeout=10)  # from the line, not from inside the inserted call
    assert step.stopped and step.stop.location.line == line + 1, step.message
    assert "skipped()" not in step.stop.headline()  # the probe's calls are not the program's return values
    jvm.kill()


@pytest.mark.timeout(120)
async def test_disabling_an_in_jvm_condition_under_stopped_threads_leaves_their_frames_readable(
        debugger, jvm_factory, line_of) -> None:
    crowd = "fixtures.Crowd"
    jvm = jvm_factory(crowd, "8", "60")  # eight threads through work(), suspended before Crowd loads
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"{crowd}:{line_of('crowd-thread')}", suspend="thread")
    cond = await debugger.breakpoint_set(f"{crowd}:{line_of('crowd-cond')}", condition="r % 20 == id")
    await debugger.breakpoint_set(f"{crowd}:{line_of('crowd-plain')}")
    stop = await debugger.resume(timeout=30)
    assert stop.stopped and stop.stop.location.method == "work" and cond.mode == "in-JVM"
    await debugger.breakpoint_update(cond.id, enabled=False)  # a thread stands in work(): no redefinition now
    for record in debugger.session.threads.stops():
        frames = await debugger.stack(thread=record.id)
        assert not any(f.location.obsolete for f in frames), frames
        assert frames[0].location.method == "work" and frames[0].location.line > 0
        assert {v.name for v in await debugger.locals(thread=record.id)} >= {"id", "r"}
    assert "r" in {v.name for v in await debugger.locals()}
    await debugger.breakpoint_remove("all")
    while (await debugger.resume(timeout=0)).stopped:
        pass
    out = await asyncio.to_thread(jvm.wait_for_output, "crowd done", 60)
    total, expected = out.split("crowd done ")[1].split()[0::2][:2]
    assert total == expected, out
