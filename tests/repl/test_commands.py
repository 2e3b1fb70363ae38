"""Each catalog command's output against a real JVM (fixtures.Playground and friends)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(120)


async def stop_at(drive, marker_line: int, extra: str = "") -> None:
    await drive(f"stop at fixtures.Playground:{marker_line}{extra}")
    result = await drive("cont")
    assert result.stop is not None and result.stop.location.line == marker_line, result.text


async def test_attach_break_continue_where_locals_print(drive, line_of):
    result = await drive.attach("Playground", "50")
    assert "VM start" in result.text
    line = line_of("loop-body")
    set_result = await drive(f"stop at fixtures.Playground:{line} if i == 2")
    assert set_result.text.startswith("Set bp-1 line fixtures.Playground:") and "if i == 2" in set_result.text
    stopped = await drive("cont")
    assert stopped.stop.kind is StopKind.BREAKPOINT and stopped.stop.breakpoint_id == "bp-1"
    assert f"STOPPED at fixtures.Playground.main(Playground.java:{line})" in stopped.text
    assert "p.counter++;" in stopped.text  # the source line, found on the source path
    assert (await drive("p i")).text == "i = 2"
    assert (await drive("print i * 10 + 1")).text == "i * 10 + 1 = 21"
    where = await drive("where")
    assert where.text.splitlines()[0].startswith("* [1] fixtures.Playground.main(Playground.java:")
    locals_ = await drive("locals")
    names = [v.name for v in locals_.data]
    assert {"args", "iterations", "p", "i"} <= set(names)
    assert "i = 2" in locals_.text
    assert (await drive("info locals")).text == locals_.text


async def test_step_next_finish_and_frames(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("loop-call"))
    into = await drive("step")
    assert into.stop.kind is StopKind.STEP and into.stop.location.method == "compute"
    assert into.stop.location.line == line_of("compute-body")
    up = await drive("up")
    assert up.text.startswith("[2] fixtures.Playground.main(") and drive.selection.frame == 1  # jdb's numbers
    assert "p.compute(i)" in up.text
    assert "i = " in (await drive("locals")).text  # main's locals now
    down = await drive("down")
    assert down.text.startswith("[1] fixtures.Playground.compute(")
    assert (await drive("frame")).text.startswith("[1] ")
    await drive.fails("down")
    over = await drive("next")
    assert over.stop.location.line == line_of("compute-return")
    assert (await drive("p doubled")).text.startswith("doubled = ")
    out = await drive("finish")
    assert out.stop.location.method == "main"
    assert drive.selection.frame == 0


async def test_breakpoint_management(drive, line_of):
    await drive.attach("Playground", "50")
    await drive(f"b fixtures.Playground:{line_of('loop-body')}")
    await drive("stop in fixtures.Playground.compute")
    await drive(f'log fixtures.Playground:{line_of("loop-print")} "i={{i}}"')
    listing = await drive("info breakpoints")
    assert [b.id for b in listing.data] == ["bp-1", "bp-2", "bp-3"]
    assert 'log "i={i}"' in listing.text
    assert (await drive("stop")).text == listing.text
    await drive("condition 1 i == 3")
    assert (await drive("info b")).data[0].condition == "i == 3"
    await drive("ignore-count 2 4")
    assert (await drive("info b")).data[1].hit_count == ">=5"
    disabled = await drive("disable 2")
    assert "disabled" in disabled.text
    await drive("enable 2")
    removed = await drive(f"clear fixtures.Playground:{line_of('loop-body')}")
    assert removed.text.startswith("Removed bp-1")
    assert (await drive("delete 2")).text == "Removed bp-2"
    assert (await drive("delete -y")).text == "Removed bp-3"  # no one to ask here: -y says yes
    assert (await drive("clear")).text == "No breakpoints set."
    missing = await drive.fails("clear Nope:3")
    assert "no breakpoint at Nope:3" in missing.text


async def test_bare_line_number_breaks_in_the_current_class(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("loop-body"))
    result = await drive(f"b {line_of('loop-print')}")
    assert f"fixtures.Playground:{line_of('loop-print')}" in result.text


async def test_logpoint_and_tbreak_and_run_to(drive, line_of):
    await drive.attach("Playground", "50")
    await drive(f"tbreak fixtures.Playground:{line_of('loop-static')}")
    first = await drive("cont")
    assert first.stop.location.line == line_of("loop-static")
    assert (await drive("info breakpoints")).text == "No breakpoints set."  # temporary: gone after its hit
    reached = await drive(f"run-to fixtures.Playground:{line_of('loop-print')}")
    assert reached.stop.location.line == line_of("loop-print")


async def test_catch_exceptions(drive):
    await drive.attach("Playground", "5", "throw", "nosleep")
    await drive("catch java.lang.NullPointerException")
    result = await drive("cont")
    assert result.stop.kind is StopKind.EXCEPTION
    assert "NullPointerException" in result.text
    assert (await drive("ignore java.lang.NullPointerException")).text.startswith("Removed bp-1")


async def test_watch_field_modification(drive):
    await drive.attach("Playground", "50")
    await drive("watch fixtures.Playground.counter")
    result = await drive("cont")
    assert result.stop.kind is StopKind.WATCHPOINT_MODIFY
    assert "write of fixtures.Playground.counter" in result.text
    assert (await drive("unwatch fixtures.Playground.counter")).text.startswith("Removed ")


async def test_threads_and_thread_selection(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("loop-body"))
    threads = await drive("threads")
    assert any(line.startswith("*") and " main " in line for line in threads.text.splitlines())
    selected = await drive("thread main")
    assert selected.text.startswith("current thread: main")
    all_stacks = await drive("where all")
    assert "main (" in all_stacks.text and "fixtures.Playground.main(" in all_stacks.text
    missing = await drive.fails("thread nosuchthread")
    assert "no thread" in missing.text


async def test_data_commands(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("loop-body"))
    dump = await drive("dump p")
    assert "counter" in dump.text and "name" in dump.text
    assert (await drive("set i = 7")).text == "i = 7"
    assert (await drive("p i")).text == "i = 7"
    await drive("mark pg p")
    assert "pg" in (await drive("marks")).text
    assert "playground" in (await drive("dump $pg")).text
    await drive("unmark pg")
    shown = await drive("display p.counter")
    assert "p.counter" in shown.text
    assert "p.counter" in (await drive("watchers")).text
    heap = await drive("heap fixtures.*")
    assert "fixtures.Playground" in heap.text
    await drive("referrers p")


async def test_classes_source_and_members(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("loop-body"))
    classes = await drive("classes fixtures.*")
    assert "fixtures.Playground" in classes.text
    methods = await drive("methods fixtures.Playground")
    assert "compute" in methods.text and "main" in methods.text
    fields = await drive("fields fixtures.Playground")
    assert "counter" in fields.text and "staticCounter" in fields.text
    assert "fixtures.Playground" in (await drive("class fixtures.Playground")).text
    listing = await drive("list")
    assert "p.counter++;" in listing.text and "=>" in listing.text
    assert "int doubled" in (await drive(f"list fixtures.Playground:{line_of('compute-body')} 1")).text
    roots = await drive("use")
    assert any(r.endswith("tests/java") for r in roots.data)


async def test_session_commands(drive, line_of):
    await drive.attach("Playground", "50")
    assert "OpenJDK" in (await drive("version")).text or "VM" in (await drive("version")).text
    assert "VM start" in (await drive("status")).text
    assert "stop at LOCATION" in (await drive("help")).text
    assert (await drive("timeout 12")).text == "waiting up to 12s for a stop"
    await drive("monitor where")
    assert (await drive("monitor")).text == "1: where"
    await drive("unmonitor 1")
    assert (await drive("monitor")).text == "No monitors."
    events = await drive("events")
    assert "attach" in events.text
    exits = await drive("exit")
    assert exits.exit
    unknown = await drive.fails("frobnicate")
    assert "unknown command" in unknown.text


async def test_locks_and_deadlocks(drive, line_of):
    await drive.attach("Deadlocks")
    await drive("resume")
    drive.jvm.wait_for_output("deadlock threads started", timeout=15)
    # No JVM event says "now deadlocked": look a few times until both threads block on each other's monitor.
    for _ in range(50):
        await drive("suspend")
        report = await drive("deadlocks")
        if report.data.deadlocks:
            break
        await drive("resume")
        await asyncio.sleep(0.1)
    assert "DEADLOCK" in report.text and "dl-a" in report.text and "dl-b" in report.text
    assert (await drive("threadlocks")).text == report.text


async def test_running_wait_and_interrupt(drive, line_of):
    await drive.attach("Playground", "50")
    # The worker (a daemon that returns when interrupted) is interrupted, not main: main would end with an
    # InterruptedException and the JVM with it, racing the `suspend` below.
    await stop_at(drive, line_of("worker-body"))
    await drive(f"clear fixtures.Playground:{line_of('worker-body')}")
    running = await drive("cont 0.2")
    assert "still running" in running.text
    await drive("interrupt worker-1")  # wakes it from Thread.sleep: the JVM reports it, the session stays
    paused = await drive("suspend")
    assert paused.stop is not None and paused.stop.kind is StopKind.PAUSE


async def test_complete_partial_class_and_local(drive, line_of):
    await drive.attach("Playground", "50")
    await stop_at(drive, line_of("compute-return"), "")
    assert "fixtures.Playground" in await drive.complete("stop at fixtures.Play")
    assert "Playground" in await drive.complete("b Playgr")
    assert "fixtures.Playground.compute" in await drive.complete("stop in fixtures.Playground.comp")
    assert "fixtures.Playground.counter" in await drive.complete("watch fixtures.Playground.cou")
    assert await drive.complete("p doub") == ["doubled"]
    assert "x" in await drive.complete("print doubled + ")
    assert "counter" in await drive.complete("p this.cou")
    assert "main" in await drive.complete("thread ma")
    assert await drive.complete("stop a") == ["at"]
    assert "locals" in await drive.complete("info l")
    assert {"cont", "continue", "condition", "class", "classes", "clear", "catch"} <= set(await drive.complete("c"))
    await drive(f"b fixtures.Playground:{line_of('loop-body')}")
    assert "bp-2" in await drive.complete("delete bp")
