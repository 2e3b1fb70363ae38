"""The jdb/gdb commands of the catalog for classes: classes, class, methods, fields, list, use, exclude, redefine."""

from __future__ import annotations

import re
from typing import Any

from ...commands.syntax import (
    Arg,
)
from ..errors import DebuggerError
from ..render import command_text as render
from .framework import (
    CATALOG,
    Command,
    CommandResult,
    Context,
    Handler,
    cmd,
    current_location,
    ok,
    resolve_location,
)


@cmd("classes", "Loaded classes matching a pattern (com.acme.*).", args=[Arg("pattern", "class", required=False)],
     category="classes")
async def _classes(ctx: Context, pattern: str = "*") -> CommandResult:
    result = await ctx.debugger.classes(pattern, False)
    return ok(render(result), result)


def _members(which: str) -> Handler:
    async def handler(ctx: Context, name: str) -> CommandResult:
        result = await ctx.debugger.classes(name, True)
        return ok(render_members(result, which), result)
    return handler


def render_members(result: Any, which: str) -> str:
    """`class`: the whole summary; `methods` / `fields`: just those members, one per line."""
    items = result if isinstance(result, list) else [result]
    if not items:
        return "No such class loaded."
    if which == "class":
        return render(items)
    lines = []
    for item in items:
        members = getattr(item, which, None) or []
        lines.append(f"{item.name}:")
        for m in members:
            where = f"  (lines {m.lines[0]}-{m.lines[-1]})" if getattr(m, "lines", None) else ""
            lines.append(f"  {'static ' if m.static else ''}{m.signature}{where}")
    return "\n".join(lines)


CATALOG.add(Command("class", _members("class"), "A class: superclass, interfaces, methods and fields.", (),
                     (Arg("name", "class"),), "classes"))
CATALOG.add(Command("methods", _members("methods"), "Methods of a class (with line ranges).", (),
                     (Arg("name", "class"),), "classes"))
CATALOG.add(Command("fields", _members("fields"), "Fields of a class.", (), (Arg("name", "class"),), "classes"))


@cmd("list", "Source around the current line, a line, a class or a method.", aliases=("l",),
     args=[Arg("location", "location", required=False), Arg("context", "int", required=False)], category="source")
async def _list(ctx: Context, location: str | None = None, context: int = 5) -> CommandResult:
    if location is None:
        here = await current_location(ctx)
        location = f"{here.class_name}:{here.line}" if here else None
    else:
        location = await resolve_location(ctx, location)
    result = await ctx.debugger.source(location, context)
    return ok(render(result), result)


@cmd("use", "Show or extend the source path (jdb `use`/`sourcepath`): directories separated by ':'.",
     aliases=("sourcepath",), args=[Arg("path", "path", required=False, rest=True)], category="source")
async def _use(ctx: Context, path: str | None = None) -> CommandResult:
    sources = _source_path(ctx)
    if sources is None:
        raise DebuggerError("the source path is not available", "pass --sourcepath when starting tracepilot")
    if path:
        sources.add(*[p for p in re.split(r"[:;]", path) if p])
    roots = [str(r) for r in sources.roots]
    return ok("\n".join(roots) or "(empty source path)", roots)


def _source_path(ctx: Context) -> Any:
    session = ctx.debugger.session
    for name in ("sources", "sourcepath", "source_path"):
        value = getattr(session, name, None)
        if value is not None and hasattr(value, "roots"):
            return value
    return None


@cmd("exclude", "Classes stepping skips (jdb): show, add patterns, or `none`.",
     args=[Arg("patterns", "class", required=False, rest=True)], category="execution")
async def _exclude(ctx: Context, patterns: str | None = None) -> CommandResult:
    session = ctx.debugger.session
    current = getattr(session, "step_filters", None)
    if current is None:
        raise DebuggerError("step exclusion filters are not supported by this session",
                            "use `step up` to leave library code")
    if patterns:
        new = [] if patterns.strip() == "none" else [p for p in re.split(r"[,\s]+", patterns) if p]
        current[:] = new
    return ok(", ".join(current) or "(no exclusions)", list(current))


@cmd("redefine", "Hot-swap changed classes: a classes directory, .class files, or CLASS FILE (jdb).",
     aliases=("hotswap",), args=[Arg("path", "path", rest=True)], category="code", mutates=True)
async def _redefine(ctx: Context, path: str) -> CommandResult:
    words = path.split()
    target = words[-1] if len(words) == 2 and words[1].endswith(".class") else path
    result = await ctx.debugger.hotswap(target, actor=ctx.actor)
    return ok(render(result), result)
