"""A stop in JDK code (a breakpoint an agent set in jdk.jshell's JShell.eval, say) on a thread with no frame
of the program's own code to step out to: a step there steps in that code. Before, the step filters (java.*,
jdk.*) hid every place the step could end: it never ended (found stepping in jshell)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(60)


async def test_a_step_where_every_frame_is_the_jdks_ends_in_that_code(jvm_factory) -> None:
    target = jvm_factory("TimerTicks", suspend=False)
    await asyncio.to_thread(target.wait_for_output, "ticking")
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.method_break("java.util.TaskQueue.rescheduleMin")  # (TimerThread.mainLoop's, every tick)
        stop = await d.wait_for_stop(timeout=10)
        assert stop.stopped and stop.stop.location.method == "rescheduleMin", stop
        await d.breakpoint_remove(point.id)  # (the step must end by itself, not at the next tick's hit)
        over = await d.step("over", timeout=5)
        assert over.stopped and over.stop.kind is StopKind.STEP, over
        assert over.stop.location.class_name in ("java.util.TaskQueue", "java.util.TimerThread"), over.stop.location
        out = await d.step("out", timeout=5)
        assert out.stopped and out.stop.kind is StopKind.STEP and out.stop.location.class_name == "java.util.TimerThread", out
    finally:
        await d.close()


async def test_a_step_from_a_pause_in_native_jdk_code_with_no_program_frame_ends(jvm_factory) -> None:
    """A pause puts the Timer's thread in Object.wait (native, under TimerThread.mainLoop, no frame of the
    program's own): a step there steps out to the first frame with code, then steps as asked there
    (jshell's main thread, paused at its prompt, is the same)."""
    target = jvm_factory("TimerTicks", suspend=False)
    await asyncio.to_thread(target.wait_for_output, "ticking")
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        paused = await d.pause()
        assert paused.stopped, paused
        over = await d.step("over", thread="ticks", timeout=5)
        assert over.stopped and over.stop.kind is StopKind.STEP, over
        assert over.stop.location.class_name.startswith("java.util."), over.stop.location
    finally:
        await d.close()
