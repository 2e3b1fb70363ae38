"""The jdb/gdb commands of the catalog for data: print, dump, set, marks, disablegc/enablegc, referrers, heap."""

from __future__ import annotations

from typing import Any

from ...commands.syntax import (
    Arg,
)
from ..render import command_text as render
from .framework import (
    CommandError,
    CommandResult,
    Context,
    cmd,
    ok,
)


@cmd("print", "Evaluate a Java expression in the selected frame; at a stop $return, $exception, $old, $new are the event's values, $label a mark.", aliases=("p", "eval", "call", "inspect-value"),
     args=[Arg("expression", "expr", rest=True)], category="data", examples=("p order.total * 2", "print $order.id"))
async def _print(ctx: Context, expression: str) -> CommandResult:
    value = await ctx.debugger.evaluate(expression, ctx.frame, ctx.thread, actor=ctx.actor)
    return ok(f"{expression} = {value.text}", value)


@cmd("dump", "Show an object's fields (or an array's elements): a handle (@12), a mark ($x) or an expression.",
     aliases=("inspect", "x"), args=[Arg("target", "target", rest=True)], category="data")
async def _dump(ctx: Context, target: str) -> CommandResult:
    view = await ctx.debugger.inspect(target, ctx.frame, ctx.thread)
    return ok(render(view), view)


def parse_set(rest: str) -> dict[str, Any]:
    depth, quote = 0, None
    for i, ch in enumerate(rest):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0 and rest[i + 1:i + 2] != "=" and rest[i - 1:i] not in ("=", "!", "<", ">"):
            target, value = rest[:i].strip(), rest[i + 1:].strip()
            target = target.removeprefix("var ").strip()
            if target and value:
                return {"target": target, "value": value}
            break
    raise CommandError("usage: set TARGET = VALUE", "e.g. set x = 5, set this.count = count + 1, set arr[3] = 0")


@cmd("set", "Assign a value to a local, field or array element.", aliases=("set var",), category="data", mutates=True,
     parser=parse_set, syntax="set TARGET = EXPR", examples=("set x = 5", "set this.name = \"bob\""))
async def _set(ctx: Context, target: str, value: str) -> CommandResult:
    view = await ctx.debugger.set_value(target, value, ctx.frame, ctx.thread, actor=ctx.actor)
    return ok(f"{target} = {view.text}", view)


@cmd("mark", "Pin an object under a label ($label) usable in any expression; kept alive until unmark.",
     args=[Arg("label", "word"), Arg("target", "target", rest=True)], category="data", mutates=True,
     examples=("mark order this.order", "mark first @12"))
async def _mark(ctx: Context, label: str, target: str) -> CommandResult:
    result = await ctx.debugger.mark(target, label.lstrip("$"), actor=ctx.actor)
    return ok(render(result) if result is not None else f"${label.lstrip('$')} = {target}", result)


@cmd("unmark", "Remove a mark.", args=[Arg("label", "mark")], category="data", mutates=True)
async def _unmark(ctx: Context, label: str) -> CommandResult:
    result = await ctx.debugger.unmark(label.lstrip("$"), actor=ctx.actor)
    return ok(render(result) if result is not None else f"unmarked ${label.lstrip('$')}", result)


@cmd("marks", "List marked objects.", aliases=("info marks",), category="data")
async def _marks(ctx: Context) -> CommandResult:
    result = await ctx.debugger.marks()
    return ok(render(result) if result else "No marks.", result)


@cmd("disablegc", "Keep an object from being garbage collected (pins it as a mark).", args=[Arg("target", "target", rest=True)],
     category="data", mutates=True)
async def _disablegc(ctx: Context, target: str) -> CommandResult:
    label = ctx.selection.gc_pins.get(target) or f"gc{len(ctx.selection.gc_pins) + 1}"
    await ctx.debugger.mark(target, label, actor=ctx.actor)
    ctx.selection.gc_pins[target] = label
    return ok(f"{target} will not be collected (pinned as ${label}; enablegc {target} releases it)")


@cmd("enablegc", "Let an object pinned by disablegc be collected again.", args=[Arg("target", "target", rest=True)],
     category="data", mutates=True)
async def _enablegc(ctx: Context, target: str) -> CommandResult:
    label = ctx.selection.gc_pins.pop(target, None) or target.lstrip("$")
    await ctx.debugger.unmark(label, actor=ctx.actor)
    return ok(f"{target} may be collected again")


@cmd("referrers", "Objects that refer to an object (who keeps it alive).", args=[Arg("target", "target"),
     Arg("limit", "int", required=False)], category="data")
async def _referrers(ctx: Context, target: str, limit: int = 20) -> CommandResult:
    result = await ctx.debugger.referrers(target, limit)
    return ok(render(result), result)


@cmd("heap", "Count live instances of the classes matching a pattern.", aliases=("instances",),
     args=[Arg("pattern", "class")], category="data", examples=("heap com.acme.*",))
async def _heap(ctx: Context, pattern: str) -> CommandResult:
    result = await ctx.debugger.heap(pattern)
    return ok(render(result), result)
