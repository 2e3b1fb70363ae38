"""The jdb/gdb commands of the catalog for breakpoints: stop at/in, tbreak, logpoint, clear/delete, enable/disable, condition, hit counts, catch, watch, method breaks."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...commands.syntax import (
    BREAK_OPTIONS,
    Arg,
    breakpoint_id,
    thread_word,
    tokenize,
)
from ..errors import InvalidArgument, NotFound
from ..render import breakpoint_notes
from ..render import command_text as render
from .framework import (
    CATALOG,
    Command,
    CommandError,
    CommandResult,
    Context,
    Handler,
    cmd,
    keyword_split,
    ok,
    resolve_location,
)


def _breakpoint_options(options: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key == "if":
            if not value:
                raise CommandError("`if` needs a condition", "e.g. stop at Foo:12 if x > 3")
            out["condition"] = value
        elif key in ("hit", "hits", "count"):
            if not value:
                raise CommandError("`hit` needs a count", "e.g. hit 5, hit %10, hit >=5")
            out["hit_count"] = value
        elif key == "log":
            if not value:
                raise CommandError("`log` needs a message", 'e.g. log "x={x}"')
            out["log"] = value
        elif key == "thread":
            out["thread"] = thread_word(value)
        elif key == "after":
            out["after"] = breakpoint_id(value)
        elif key in ("temporary", "temp", "once"):
            if value:
                raise CommandError(f"unexpected {value!r} after {key}")
            out["temporary"] = True
        elif key == "disabled":
            out["enabled"] = False
        elif key == "suspend":
            if value not in ("thread", "all"):
                raise CommandError("suspend must be `thread` or `all`")
            out["suspend"] = value
    return out


def parse_break(rest: str, mode: str | None = None) -> dict[str, Any]:
    """`LOCATION [if EXPR] [hit N] [log "MSG"] [thread T] [after bp-N] [once] [suspend thread]`."""
    head, options = keyword_split(rest, BREAK_OPTIONS)
    args = _breakpoint_options(options)
    if mode == "thread":  # jdb `stop thread at ...`: suspend only the thread that hits it
        args["suspend"] = "thread"
    elif mode == "go":  # jdb `stop go at ...`: do not suspend at all, just report
        args.setdefault("log", "hit {location}")
    if not head:
        raise CommandError("missing location", "e.g. stop at com.acme.Foo:42 or stop in com.acme.Foo.bar")
    if len(head.split()) > 1 and "(" not in head:
        raise CommandError(f"unexpected {head.split(None, 1)[1]!r} after the location",
                           "options are: " + ", ".join(["if", "hit", "log", "thread", "after", "once", "suspend"]))
    args["location"] = head
    return args


def parse_stop(rest: str) -> dict[str, Any]:
    """`stop` alone lists; `stop [thread|go] at|in ...` sets (jdb)."""
    words = rest.split(None, 1)
    if not words:
        return {}
    mode = None
    if words[0] in ("thread", "go") and len(words) > 1:
        mode = words[0]
        words = words[1].split(None, 1)
    if words[0] in ("at", "in"):
        return parse_break(words[1] if len(words) > 1 else "", mode)
    return parse_break(" ".join(words), mode)


async def _set_breakpoint(ctx: Context, location: str | None = None, **options: Any) -> CommandResult:
    if location is None:
        return await _list_breakpoints(ctx)
    location = await resolve_location(ctx, location)
    info = await ctx.debugger.breakpoint_set(location, actor=ctx.actor, **options)
    return ok("\n".join([f"Set {info.describe()}", *breakpoint_notes(info)]), info)


cmd("stop", "List breakpoints, or set one: stop at CLASS:LINE / stop in CLASS.METHOD, with options.",
    category="breakpoints", mutates=True, parser=parse_stop,
    syntax='stop [at|in] LOCATION [if EXPR] [hit N|%N|>=N] [log "MSG {expr}"] [thread T] [after bp-N] [once]',
    examples=("stop at com.acme.Foo:42 if total > 100", "stop in Foo.bar", 'stop at Foo:12 log "x={x}"'),
    )(_set_breakpoint)
CATALOG.add(Command("stop at", _set_breakpoint, "Set a line breakpoint (same options as `stop`).", ("break", "b"),
                     (Arg("location", "location"),), "breakpoints", mutates=True, parser=parse_break,
                     syntax='stop at LOCATION [if EXPR] [hit N] [log "MSG"] [thread T] [after bp-N] [once]',
                     examples=("b Foo:12", "b 42", "stop at Foo.java:12 hit %10")))
CATALOG.add(Command("stop in", _set_breakpoint, "Break at the first line of a method.", (),
                     (Arg("location", "method"),), "breakpoints", mutates=True, parser=parse_break,
                     syntax="stop in CLASS.METHOD[(TYPES)] [if EXPR] [hit N] [log \"MSG\"]",
                     examples=("stop in com.acme.Foo.bar(int,String)",)))


@cmd("tbreak", "Set a one-shot breakpoint (removed after its first hit).", args=[Arg("location", "location")],
     category="breakpoints", mutates=True, parser=parse_break, syntax="tbreak LOCATION [if EXPR]")
async def _tbreak(ctx: Context, location: str, **options: Any) -> CommandResult:
    options["temporary"] = True
    return await _set_breakpoint(ctx, location, **options)


def parse_logpoint(rest: str) -> dict[str, Any]:
    tokens = tokenize(rest)
    if len(tokens) < 2:
        raise CommandError("usage: log LOCATION \"MESSAGE {expr}\" [if EXPR]")
    location = tokens[0].text
    tail = rest[tokens[0].end:].strip()
    message, options = keyword_split(tail, ("if", "hit", "thread", "after"))
    if len(message) >= 2 and message[0] == message[-1] and message[0] in "\"'":
        message = message[1:-1]
    args = _breakpoint_options(options)
    args.update(location=location, log=message)
    return args


@cmd("logpoint", "Log a message when a line runs, without stopping ({expr} parts are evaluated).",
     aliases=("log", "dprintf"), category="breakpoints", mutates=True, parser=parse_logpoint,
     syntax='logpoint LOCATION "MESSAGE {expr}" [if EXPR] [hit N]', examples=('log Foo:12 "i={i} total={o.total}"',))
async def _logpoint(ctx: Context, location: str, **options: Any) -> CommandResult:
    return await _set_breakpoint(ctx, location, **options)


async def _list_breakpoints(ctx: Context) -> CommandResult:
    infos = await ctx.debugger.breakpoint_list()
    return ok(render(infos) if infos else "No breakpoints set.", infos)


cmd("info breakpoints", "List breakpoints with their state, options and hit counts.",
    aliases=("breakpoints", "info b", "info break", "info watchpoints"), category="breakpoints")(_list_breakpoints)


async def _remove_matching(ctx: Context, spec: str, kinds: Iterable[str] | None = None) -> CommandResult:
    """Remove by id ("bp-3", "3", "all") or by what was asked for ("Foo:12", "java.lang.NPE")."""
    spec = breakpoint_id(spec)
    if spec == "all" or re.fullmatch(r"bp-\d+", spec):
        removed = await ctx.debugger.breakpoint_remove(spec, actor=ctx.actor)
        return ok(f"Removed {', '.join(removed)}" if removed else "No breakpoints to remove.", removed)
    infos = await ctx.debugger.breakpoint_list()
    wanted = set(kinds) if kinds else None
    matches = [b for b in infos if (wanted is None or b.kind in wanted) and _spec_matches(b.spec, spec)]
    if not matches:
        known = ", ".join(f"{b.id} {b.spec}" for b in infos) or "none set"
        raise NotFound(f"no breakpoint at {spec}", hint=f"breakpoints: {known}")
    removed: list[str] = []
    for b in matches:
        removed += await ctx.debugger.breakpoint_remove(b.id, actor=ctx.actor)
    return ok(f"Removed {', '.join(removed)} ({spec})", removed)


def _spec_matches(spec: str, asked: str) -> bool:
    if spec == asked:
        return True
    # "Foo:12" matches "com.acme.Foo:12"; "NullPointerException" matches "java.lang.NullPointerException"
    return spec.endswith("." + asked) or spec.endswith("/" + asked) or asked.endswith("." + spec)


@cmd("clear", "Remove a breakpoint by id or location (jdb `clear Foo:12`); without argument list them.",
     args=[Arg("breakpoint", "breakpoint", required=False)], category="breakpoints", mutates=True)
async def _clear(ctx: Context, breakpoint: str | None = None) -> CommandResult:
    if breakpoint is None:
        return await _list_breakpoints(ctx)
    return await _remove_matching(ctx, breakpoint)


@cmd("delete", "Delete breakpoints by id (gdb numbers work: `delete 2`); with no id all of them, after asking "
     "(-y: without asking).", aliases=("d",),
     args=[Arg("breakpoints", "breakpoint", "ids, all or -y", required=False, rest=True)], category="breakpoints",
     mutates=True, examples=("delete 2 3", "delete -y"))
async def _delete(ctx: Context, breakpoints: str | None = None) -> CommandResult:
    items = (breakpoints or "").replace(",", " ").split()
    yes = any(i in ("-y", "--yes") for i in items)
    items = [i for i in items if i not in ("-y", "--yes")]
    if not items:
        infos = await ctx.debugger.breakpoint_list()
        if not infos:
            return ok("No breakpoints to remove.", [])
        if not yes:
            question = f"Delete all {len(infos)} breakpoints?"
            if ctx.selection.confirm is None:
                raise InvalidArgument(f"delete with no id removes every breakpoint ({len(infos)})",
                                      "give ids (delete 2 3), or confirm with `delete -y` or `delete all`")
            if not await ctx.selection.confirm(question):
                return ok("Nothing deleted.", [])
        items = ["all"]
    removed: list[str] = []
    for item in items:
        removed += (await _remove_matching(ctx, item)).data
    return ok(f"Removed {', '.join(removed)}" if removed else "No breakpoints to remove.", removed)


def _toggle(enabled: bool) -> Handler:
    async def handler(ctx: Context, breakpoints: str) -> CommandResult:
        infos = []
        for item in breakpoints.replace(",", " ").split():
            ids = [b.id for b in await ctx.debugger.breakpoint_list()] if item == "all" else [breakpoint_id(item)]
            for bp in ids:
                infos.append(await ctx.debugger.breakpoint_update(bp, actor=ctx.actor, enabled=enabled))
        return ok("\n".join(i.describe() for i in infos) or "No breakpoints.", infos)
    return handler


CATALOG.add(Command("enable", _toggle(True), "Enable breakpoints.", (), (Arg("breakpoints", "breakpoint", rest=True),),
                     "breakpoints", mutates=True))
CATALOG.add(Command("disable", _toggle(False), "Disable breakpoints (they stay listed).", (),
                     (Arg("breakpoints", "breakpoint", rest=True),), "breakpoints", mutates=True))


@cmd("condition", "Set (or with no expression remove) the condition of a breakpoint.",
     args=[Arg("breakpoint", "breakpoint"), Arg("expression", "expr", required=False, rest=True)],
     category="breakpoints", mutates=True, examples=("condition 1 i % 100 == 0",))
async def _condition(ctx: Context, breakpoint: str, expression: str | None = None) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor, condition=expression or None)
    return ok(info.describe(), info)


@cmd("ignore-count", "Ignore the next COUNT hits of a breakpoint (gdb `ignore`).",
     args=[Arg("breakpoint", "breakpoint"), Arg("count", "int")], category="breakpoints", mutates=True)
async def _ignore_count(ctx: Context, breakpoint: str, count: int) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor,
                                                hit_count=f">={count + 1}" if count > 0 else None)
    return ok(info.describe(), info)


@cmd("hitcount", "Stop only at a given hit: N (the Nth), %N (every Nth), >=N; none removes it.",
     aliases=("hit",), args=[Arg("breakpoint", "breakpoint"), Arg("count", "word")], category="breakpoints",
     mutates=True)
async def _hitcount(ctx: Context, breakpoint: str, count: str) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor,
                                                hit_count=None if count in ("none", "0") else count)
    return ok(info.describe(), info)


def parse_catch(rest: str) -> dict[str, Any]:
    """jdb: `catch [uncaught|caught|all] CLASS`; plus `if EXPR`, `log "MSG"`."""
    head, options = keyword_split(rest, ("if", "log", "thread"))
    words = head.split()
    args: dict[str, Any] = {}
    if words and words[0] in ("uncaught", "caught", "all"):
        mode = words.pop(0)
        args["caught"] = mode in ("caught", "all")
        args["uncaught"] = mode in ("uncaught", "all")
    if len(words) > 1:
        raise CommandError(f"catch: unexpected {' '.join(words[1:])!r}", "usage: catch [uncaught|caught|all] CLASS")
    args["exception"] = words[0] if words else "*"
    for key, value in _breakpoint_options(options).items():
        if key in ("condition", "log", "thread"):
            args[key] = value
    return args


@cmd("catch", "Stop when an exception is thrown (caught and uncaught unless told); * = any exception.",
     category="breakpoints", mutates=True, parser=parse_catch,
     syntax='catch [uncaught|caught|all] CLASS [if EXPR] [log "MSG"]',
     examples=("catch java.lang.NullPointerException", "catch uncaught *"))
async def _catch(ctx: Context, exception: str, **options: Any) -> CommandResult:
    if exception == "*" and not options:
        # jdb `catch` with no class lists what is caught
        infos = [b for b in await ctx.debugger.breakpoint_list() if b.kind == "exception"]
        if infos and not options:
            pass
    info = await ctx.debugger.exception_break(exception, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


@cmd("ignore", "Stop catching an exception (jdb); `ignore *` removes every exception breakpoint.",
     args=[Arg("exception", "class")], category="breakpoints", mutates=True)
async def _ignore(ctx: Context, exception: str) -> CommandResult:
    if exception in ("*", "all"):
        infos = [b for b in await ctx.debugger.breakpoint_list() if b.kind == "exception"]
        removed = []
        for b in infos:
            removed += await ctx.debugger.breakpoint_remove(b.id, actor=ctx.actor)
        return ok(f"Removed {', '.join(removed)}" if removed else "No exception breakpoints.", removed)
    return await _remove_matching(ctx, exception, kinds=("exception",))


def parse_watch(rest: str) -> dict[str, Any]:
    """jdb: `watch [access|all] CLASS.FIELD`; plus `if EXPR`, `log "MSG"`, `instance @12`."""
    head, options = keyword_split(rest, ("if", "log", "thread", "instance"))
    words = head.split()
    args: dict[str, Any] = {"access": False, "modify": True}
    if words and words[0] in ("access", "all", "modify", "read", "write"):
        mode = words.pop(0)
        args["access"] = mode in ("access", "all", "read")
        args["modify"] = mode in ("all", "modify", "write")
    if len(words) != 1:
        raise CommandError("watch needs one CLASS.FIELD", "usage: watch [access|all] com.acme.Order.total")
    args["field"] = words[0]
    for key, value in _breakpoint_options({k: v for k, v in options.items() if k != "instance"}).items():
        if key in ("condition", "log", "thread"):
            args[key] = value
    if "instance" in options:
        args["instance"] = options["instance"]
    return args


@cmd("watch", "Stop when a field is written (or read: access, both: all).", aliases=("watchpoint",),
     category="breakpoints", mutates=True, parser=parse_watch,
     syntax='watch [access|all] CLASS.FIELD [if EXPR] [log "MSG"] [instance @12]',
     examples=("watch com.acme.Order.total", "watch access Foo.counter"))
async def _watch(ctx: Context, field: str, **options: Any) -> CommandResult:
    info = await ctx.debugger.watchpoint_set(field, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


@cmd("unwatch", "Remove a field watchpoint (by CLASS.FIELD or id).", args=[Arg("field", "field"),],
     category="breakpoints", mutates=True, parser=lambda rest: {"field": rest.split()[-1]} if rest.split() else
     (_ for _ in ()).throw(CommandError("usage: unwatch [access|all] CLASS.FIELD")))
async def _unwatch(ctx: Context, field: str) -> CommandResult:
    return await _remove_matching(ctx, field, kinds=("watchpoint",))


def _method_break(on: str) -> Handler:
    async def handler(ctx: Context, method: str, **options: Any) -> CommandResult:
        info = await ctx.debugger.method_break(method, on=on, actor=ctx.actor, **options)
        return ok(f"Set {info.describe()}", info)
    return handler


def _parse_method_break(rest: str) -> dict[str, Any]:
    head, options = keyword_split(rest, ("if", "log", "thread"))
    if len(head.split()) != 1:
        raise CommandError("needs one CLASS.METHOD", "e.g. break-exit com.acme.Foo.bar")
    args = {k: v for k, v in _breakpoint_options(options).items() if k in ("condition", "log", "thread")}
    args["method"] = head
    return args


CATALOG.add(Command("break-entry", _method_break("entry"), "Stop on entry to a method (every overload).",
                     ("stop-entry",), (Arg("method", "method"),), "breakpoints", mutates=True,
                     parser=_parse_method_break, syntax='break-entry CLASS.METHOD [if EXPR] [log "MSG"]'))
CATALOG.add(Command("break-exit", _method_break("exit"), "Stop when a method returns, showing the return value.",
                     ("stop-exit",), (Arg("method", "method"),), "breakpoints", mutates=True,
                     parser=_parse_method_break, syntax='break-exit CLASS.METHOD [if EXPR] [log "MSG"]'))
