"""Obsolete frames (issue 26, points 1 and 6): a conditional breakpoint set on a program that is already running
stops with frames every reader can read, and the stop stands at the line as the round trip's would."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger

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
    print(stop.stop, stop.message)
    assert stop.stop.location.line == line and stop.stop.location.method == "parse"
    frames = await debugger.stack()
    print(frames)
    assert frames[0].location.method == "parse" and frames[0].location.line == line
    assert frames[1].location.method == "main"
    values = {v.name: v.value.text for v in await debugger.locals()}
    assert values["s"] == '"1.234,56"'
    assert (await debugger.evaluate("s")).text == '"1.234,56"'
    step = await debugger.step("into", timeout=10)
    assert step.stopped, step.message
