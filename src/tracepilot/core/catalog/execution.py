"""The jdb/gdb commands of the catalog for execution: run, cont, step/next/step up/stepi, run-to, wait, suspend, resume, interrupt, timeout."""

from __future__ import annotations

from collections.abc import Sequence

from ...commands.syntax import (
    Arg,
)
from .framework import (
    CATALOG,
    Command,
    CommandResult,
    Context,
    cmd,
    ok,
    resolve_location,
    waited,
)


def _timeout_arg() -> Arg:
    return Arg("timeout", "number", "seconds to wait for the next stop", required=False)


@cmd("run", "Start or continue the program (after attach the VM waits at VM start) and wait for a stop.",
     category="execution", waits=True, mutates=True)
async def _run(ctx: Context) -> CommandResult:
    return await waited(ctx, await ctx.debugger.resume(None, ctx.selection.wait_timeout, actor=ctx.actor))


@cmd("cont", "Resume all threads and wait for the next stop (Ctrl+C stops waiting, not the program).",
     aliases=("c", "continue"), args=[_timeout_arg()], category="execution", waits=True, mutates=True)
async def _cont(ctx: Context, timeout: float | None = None) -> CommandResult:
    timeout = ctx.selection.wait_timeout if timeout is None else timeout
    return await waited(ctx, await ctx.debugger.resume(None, timeout, actor=ctx.actor))


def _step_command(name: str, kind: str, help: str, aliases: Sequence[str] = ()) -> None:  # noqa: A002
    async def handler(ctx: Context, count: int = 1) -> CommandResult:
        result = await ctx.debugger.step(kind, ctx.thread, count, ctx.selection.wait_timeout, actor=ctx.actor)
        return await waited(ctx, result)

    CATALOG.add(Command(name, handler, help, tuple(aliases), (Arg("count", "int", "how many steps", required=False),),
                         "execution", waits=True, mutates=True))


_step_command("step", "into", "Step into: run to the next line, entering calls.", ("s", "stepinto"))
_step_command("next", "over", "Step over: run to the next line of this method.", ("n", "over"))
_step_command("step up", "out", "Step out: run until the current method returns.", ("finish", "stepout", "up-step"))
_step_command("stepi", "stepi", "Step one bytecode instruction.", ("si",))


@cmd("run-to", "Run until a location is reached (a one-shot breakpoint), then stop there.",
     aliases=("until", "advance"), args=[Arg("location", "location")], category="execution", waits=True,
     mutates=True, examples=("run-to Foo:42",))
async def _run_to(ctx: Context, location: str) -> CommandResult:
    location = await resolve_location(ctx, location)
    return await waited(ctx, await ctx.debugger.run_to(location, ctx.thread, ctx.selection.wait_timeout,
                                                        actor=ctx.actor))


@cmd("wait", "Wait for the next stop without resuming anything.", args=[_timeout_arg()], category="execution",
     waits=True)
async def _wait(ctx: Context, timeout: float | None = None) -> CommandResult:
    timeout = ctx.selection.wait_timeout if timeout is None else timeout
    return await waited(ctx, await ctx.debugger.wait_for_stop(timeout))


@cmd("suspend", "Suspend all threads (or one) and make it the current stop.", aliases=("pause", "interrupt-vm"),
     args=[Arg("thread", "thread", required=False)], category="execution", mutates=True)
async def _suspend(ctx: Context, thread: str | int | None = None) -> CommandResult:
    return await waited(ctx, await ctx.debugger.pause(thread, actor=ctx.actor))


@cmd("resume", "Resume all threads (or one) without waiting for a stop.", args=[Arg("thread", "thread", required=False)],
     category="execution", mutates=True)
async def _resume(ctx: Context, thread: str | int | None = None) -> CommandResult:
    result = await ctx.debugger.resume(thread, 0.0, actor=ctx.actor)
    text = result.headline() if result.stopped else ("resumed" + (f" thread {thread}" if thread else ""))
    if result.note and not result.stopped:  # e.g. the thread waits for a lock whose owner is suspended
        text += f"\n{result.note}"
    return CommandResult(True, text, result, stop=result.stop if result.stopped else None)


@cmd("interrupt", "Interrupt a thread (Thread.interrupt()): wakes it from sleep/wait with InterruptedException.",
     args=[Arg("thread", "thread", required=False)], category="threads", mutates=True)
async def _interrupt(ctx: Context, thread: str | int | None = None) -> CommandResult:
    return ok(await ctx.debugger.interrupt(thread if thread is not None else ctx.thread, actor=ctx.actor))


@cmd("timeout", "Show or set how long cont/step/run-to wait for the next stop (seconds).",
     args=[Arg("seconds", "number", required=False)], category="session")
async def _timeout(ctx: Context, seconds: float | None = None) -> CommandResult:
    if seconds is not None:
        ctx.selection.wait_timeout = seconds
    return ok(f"waiting up to {ctx.selection.wait_timeout:g}s for a stop")
