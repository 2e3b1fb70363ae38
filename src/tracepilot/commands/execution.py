"""Operations that run and stop the program: resume, pause, step, run_to, wait_for_stop."""

from __future__ import annotations

from typing import Any, Literal

from . import params
from .spec import Arguments, Effect, Param, Spec, person_only, thread_arg


async def _pause(d: Any, a: Arguments) -> Any:
    thread = thread_arg(a.thread)
    if thread is not None:  # a thread that does not exist is an error, even when already stopped
        await d.thread_id(thread)
    return await d.pause(thread, actor=a.actor)


async def _resume(d: Any, a: Arguments) -> Any:
    thread = thread_arg(a.thread)
    if a.interrupt:
        await d.interrupt(thread, actor=a.actor)
    return await d.resume(thread, a.timeout, actor=a.actor)


SPECS = (
    Spec(
        "resume", "Resume the program (or one thread) and wait for the next stop: answers with the stop context\n"
        "(reason, source, stack, locals), or \"still running\" when the timeout passes. Each stop is answered\n"
        "once: with several threads stopped, each resume answers the next one.",
        Effect.CONTROL, tool="resume", method="resume", stop_context=True, waits_on="timeout",
        commands=("run", "cont", "resume"),
        call=_resume,
        params=(params.thread(), params.wait_timeout(10), Param(
            "interrupt", bool, False, "first interrupt the thread (Thread.interrupt(); default: the current "
            "stop's): it wakes from sleep, wait or join with InterruptedException"))),
    Spec(
        "interrupt", "Interrupt a thread (Thread.interrupt()): wakes it from sleep/wait with InterruptedException.",
        Effect.CONTROL, method="interrupt", via="resume", commands=("interrupt",),
        call=lambda d, a: d.interrupt(thread_arg(a.thread), actor=a.actor), params=(params.thread(),)),
    Spec(
        "pause", "Suspend the program (or one thread) now; works while another call is waiting.",
        Effect.CONTROL, tool="pause", method="pause", stop_context=True, call=_pause, commands=("suspend",),
        params=(params.thread(),)),
    Spec(
        "step", "Step the stopped thread and answer with the new stop context.",
        Effect.CONTROL, tool="step", method="step", stop_context=True, waits_on="timeout",
        commands=("step", "next", "step up", "stepi"),
        call=lambda d, a: d.step(a.kind, thread_arg(a.thread), a.count, a.timeout, actor=a.actor),
        params=(
            Param("kind", Literal["over", "into", "out"], "over", "over the next line, into the call, or out"),
            params.thread(),
            Param("count", int, 1, "how many steps", ge=1, le=10_000),
            params.wait_timeout(5),
        )),
    Spec(
        "run_to", "Resume until a line is reached (a one-shot breakpoint), then answer with the stop context.",
        Effect.CONTROL, tool="run_to", method="run_to", stop_context=True, waits_on="timeout", commands=("run-to",),
        call=lambda d, a: d.run_to(a.location, thread_arg(a.thread), a.timeout, actor=a.actor),
        params=(params.location(), params.thread(), params.wait_timeout(10))),
    Spec(
        "wait_for_stop", "Wait for the next stop (a stop of another thread not answered yet comes at once; when "
        "every thread\nis already suspended, the current stop); \"still running\" on timeout.",
        tool="wait_for_stop", method="wait_for_stop", stop_context=True, waits_on="timeout", commands=("wait",),
        call=lambda d, a: d.wait_for_stop(a.timeout),
        params=(params.wait_timeout(10),)),
    person_only("step_filters", "which classes stepping skips is a preference of the person stepping; MCP steps "
                "skip the default JDK and library classes", ("exclude",)),
)
