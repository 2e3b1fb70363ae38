"""The catalog's commands for capture points: `capture at LOCATION` sets one, `captures` shows what they took."""

from __future__ import annotations

from typing import Any

from ...commands.syntax import BREAK_OPTIONS
from ..render import captures as render_captures
from .framework import CommandError, CommandResult, Context, cmd, keyword_split, ok, resolve_location

CAPTURE_OPTIONS = (*BREAK_OPTIONS, "times", "show")


def parse_capture(rest: str) -> dict[str, Any]:
    """`[at|in] LOCATION [times N] [if EXPR] [hit N] [thread T] [show "EXPR; EXPR"]`."""
    from .breakpoints import parse_break  # noqa: PLC0415  (its option words, shared)

    words = rest.split(None, 1)
    if words and words[0] in ("at", "in"):  # (`in Class.method` as jdb's `stop in`: a method-entry point)
        rest = words[1] if len(words) > 1 else ""
    head, options = keyword_split(rest, CAPTURE_OPTIONS)
    if len(head.split()) > 1 and "(" not in head:
        raise CommandError(f"unexpected {head.split(None, 1)[1]!r} after the location",
                           "options are: times, if, hit, thread, show")
    times = options.pop("times", None)
    show = options.pop("show", None)
    text = head + "".join(f" {k} {v}" for k, v in options.items())
    args = parse_break(text)
    for key in ("log", "temporary", "suspend"):
        if key in args:
            raise CommandError(f"a capture point takes no `{key}`", "it never stops and takes values, not lines")
    if times is not None:
        if not times.isdigit() or int(times) < 1:
            raise CommandError("`times` needs a number of captures", "e.g. capture at Foo:42 times 3")
        args["capture"] = int(times)
    else:
        args["capture"] = True
    if show:
        args["expressions"] = [e.strip() for e in show.split(";") if e.strip()]
    return args


@cmd("capture", "Capture the stack and values at a line without stopping (once, or `times N`).",
     aliases=("capture at", "capture in"), category="breakpoints", mutates=True, parser=parse_capture,
     syntax='capture [at] LOCATION [times N] [if EXPR] [hit N] [thread T] [show "EXPR; EXPR"]',
     examples=("capture at Worker.handle:42 times 3 if items.size() > 2", 'capture Foo:12 show "order.id; total"'))
async def _capture(ctx: Context, location: str, **options: Any) -> CommandResult:
    location = await resolve_location(ctx, location)
    info = await ctx.debugger.breakpoint_set(location, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


def parse_captures(rest: str) -> dict[str, Any]:
    """`[bp-N] [wait SECONDS] [limit N] [since SEQ]`."""
    args: dict[str, Any] = {}
    items = rest.split()
    while items:
        word = items.pop(0)
        if word in ("wait", "limit", "since") and items:
            try:
                number = float(items.pop(0))
            except ValueError:
                raise CommandError(f"`{word}` needs a number") from None
            args[word] = number if word == "wait" else max(0 if word == "since" else 1, int(number))
        elif "id" not in args:
            args["id"] = word
        else:
            raise CommandError(f"unexpected {word!r}", "usage: captures [bp-N] [wait SECONDS] [limit N] [since SEQ]")
    return args


@cmd("captures", "What capture points took, oldest first (`captures bp-3`, `captures wait 5`; `since SEQ`: only "
     "those after capture seq SEQ, so `wait` waits for the next one).",
     category="observation", parser=parse_captures, syntax="captures [bp-N] [wait SECONDS] [limit N] [since SEQ]")
async def _captures(ctx: Context, id: str | None = None, wait: float = 0.0, limit: int = 20,  # noqa: A002
                    since: int = 0) -> CommandResult:
    found = await ctx.debugger.captures(id, wait, limit, since)
    return ok(render_captures(found), found)
