"""The commands of the catalog for several JVMs in one session (issue 28): `targets` and `target NAME`."""

from __future__ import annotations

from ...commands.syntax import Arg
from ..render import command_text as render
from .framework import CommandResult, Context, cmd, ok


@cmd("targets", "The JVMs of this session, one line each (* marks the current one).", category="connection")
async def _targets(ctx: Context) -> CommandResult:
    infos = await ctx.debugger.targets_list()
    if len(infos) < 2:
        status = await ctx.debugger.status()
        return ok("one target: " + status.headline() + "\n(launch or attach another to debug it beside this one)",
                  infos)
    return ok("\n".join(info.line() for info in infos), infos)


@cmd("target", "Make NAME the current target: commands without a target act on it (until a stop elsewhere).",
     args=[Arg("name", "word", "target name")], category="connection", examples=("target server",))
async def _target(ctx: Context, name: str) -> CommandResult:
    status = await ctx.debugger.select_target(name, actor=ctx.actor)
    ctx.selection.on_stop()  # the thread and frame selected belong to the other target
    return ok(f"current target: {name}\n" + render(status), status, stop=status.stop)
