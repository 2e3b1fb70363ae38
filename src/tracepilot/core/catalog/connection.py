"""The jdb/gdb commands of the catalog for connection: attach, launch, restart, detach, status, version, reset, diagnose."""

from __future__ import annotations

from ...commands import by_tool
from ...commands.syntax import (
    Arg,
    tokenize,
)
from ...version import package_version
from ..launcher import launch_options
from ..render import command_text as render
from .framework import (
    CommandResult,
    Context,
    cmd,
    ok,
)


@cmd("attach", "Attach to a JVM listening for a debugger (started with -agentlib:jdwp=...,server=y).",
     args=[Arg("address", "word", "host:port", required=False), Arg("timeout", "number", required=False)],
     category="connection", mutates=True, examples=("attach localhost:5005",))
async def _attach(ctx: Context, address: str = "localhost:5005", timeout: float = 10.0) -> CommandResult:
    status = await ctx.debugger.attach(address, timeout, actor=ctx.actor)
    return ok(render(status), status, stop=status.stop)


@cmd("launch", "Start a JVM under the debugger: launch [-cp PATH] MAIN [ARGS...] or launch Foo.java.",
     args=[Arg("java_args", "text", "java arguments", rest=True)], category="connection", mutates=True,
     examples=("launch -cp build/classes com.acme.Main", "launch Hello.java"))
async def _launch(ctx: Context, java_args: str) -> CommandResult:
    options = launch_options([t.text for t in tokenize(java_args)])
    status = await ctx.debugger.launch(actor=ctx.actor, **options)
    return ok(render(status), status, stop=status.stop)


@cmd("restart", "Launch the program again with the same command line; breakpoints and watchers carry over.",
     aliases=("rerun",), category="connection", mutates=True)
async def _restart(ctx: Context) -> CommandResult:
    status = await ctx.debugger.restart(actor=ctx.actor)
    ctx.selection.on_stop()
    return ok(render(status) + "\n(restarted: `cont` runs it to the first breakpoint)", status, stop=status.stop)


@cmd("detach", "Detach from the JVM (it keeps running); `detach kill` terminates it.",
     args=[Arg("how", "word", required=False, choices=("kill", "terminate"))], category="connection", mutates=True)
async def _detach(ctx: Context, how: str | None = None) -> CommandResult:
    status = await ctx.debugger.detach(terminate=how is not None, actor=ctx.actor)
    return ok(render(status), status)


@cmd("status", "Connection state, target VM and the current stop.", aliases=("info program",), category="connection")
async def _status(ctx: Context) -> CommandResult:
    status = await ctx.debugger.status()
    return ok(render(status), status)


@cmd("version", "Versions of tracepilot and of the target VM.", category="connection")
async def _version(ctx: Context) -> CommandResult:
    status = await ctx.debugger.status()
    lines = [f"tracepilot {package_version()}"]
    if status.vm:
        lines.append(f"{status.vm.name} {status.vm.version} (JDWP {status.vm.jdwp_version})")
        lines.append(status.vm.description)
    else:
        lines.append("no VM attached")
    return ok("\n".join(lines), status.vm)


@cmd("reset", by_tool()["reset"].help, category="connection", mutates=True)
async def _reset(ctx: Context) -> CommandResult:
    status = await ctx.debugger.reset(actor=ctx.actor)
    ctx.selection.on_stop()
    return ok("reset: breakpoints, watchers and history cleared\n" + render(status), status)


@cmd("diagnose", "What the debugger knows about its connection (for bug reports).", category="connection")
async def _diagnose(ctx: Context) -> CommandResult:
    info = await ctx.debugger.diagnose()
    return ok(render(info), info)
