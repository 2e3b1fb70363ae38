"""The jdb/gdb commands of the catalog for watchers: display/undisplay/watchers, monitor/unmonitor."""

from __future__ import annotations

from typing import Any

from ...commands.syntax import (
    Arg,
    breakpoint_id,
)
from ..errors import InvalidArgument
from ..render import command_text as render
from .framework import (
    CommandError,
    CommandResult,
    Context,
    cmd,
    keyword_split,
    ok,
)


def parse_display(rest: str) -> dict[str, Any]:
    expression, options = keyword_split(rest, ("at",))
    if not expression:
        raise CommandError("usage: display EXPR [at bp-N]")
    args: dict[str, Any] = {"expression": expression}
    if "at" in options:
        args["breakpoint"] = breakpoint_id(options["at"])
    return args


@cmd("display", "Add a watcher: an expression evaluated at every stop (or at one breakpoint), with its history.",
     aliases=("watch-expr",), category="watchers", mutates=True, parser=parse_display,
     syntax="display EXPR [at bp-N]", examples=("display order.total", "display i at bp-1"))
async def _display(ctx: Context, expression: str, breakpoint: str | None = None) -> CommandResult:
    result = await ctx.debugger.watch_add(expression, breakpoint, actor=ctx.actor)
    return ok(render(result), result)


@cmd("undisplay", "Remove a watcher.", args=[Arg("id", "watch")], category="watchers", mutates=True)
async def _undisplay(ctx: Context, id: str) -> CommandResult:  # noqa: A002
    result = await ctx.debugger.watch_remove(id, actor=ctx.actor)
    return ok(render(result) if result is not None else f"removed watcher {id}", result)


@cmd("watchers", "Watchers with their current values and history.", aliases=("info display", "displays"),
     category="watchers")
async def _watchers(ctx: Context) -> CommandResult:
    result = await ctx.debugger.watches()
    return ok(render(result) if result else "No watchers.", result)


@cmd("monitor", "Run a command at every stop in this front end (jdb); without argument list them.",
     args=[Arg("command", "command", required=False, rest=True)], category="watchers")
async def _monitor(ctx: Context, command: str | None = None) -> CommandResult:
    if command:
        ctx.catalog.lookup(command)  # reject unknown commands now, not at every stop
        ctx.selection.monitors.append(command)
        return ok(f"monitor {len(ctx.selection.monitors)}: {command}")
    if not ctx.selection.monitors:
        return ok("No monitors.")
    return ok("\n".join(f"{i}: {c}" for i, c in enumerate(ctx.selection.monitors, 1)), list(ctx.selection.monitors))


@cmd("unmonitor", "Remove a monitor by number.", args=[Arg("number", "int")], category="watchers")
async def _unmonitor(ctx: Context, number: int) -> CommandResult:
    if not 1 <= number <= len(ctx.selection.monitors):
        raise InvalidArgument(f"no monitor {number}", "`monitor` lists them")
    removed = ctx.selection.monitors.pop(number - 1)
    return ok(f"removed monitor {number}: {removed}")
