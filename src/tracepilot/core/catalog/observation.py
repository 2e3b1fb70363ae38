"""The jdb/gdb commands of the catalog for observation: trace, untrace, events, output."""

from __future__ import annotations

from typing import Any

from ...commands.syntax import (
    Arg,
)
from .. import render as shared_render
from ..render import command_text as render
from .framework import (
    CommandError,
    CommandResult,
    Context,
    cmd,
    current_location,
    ok,
)


def parse_trace(rest: str) -> dict[str, Any]:
    words = rest.split()
    if words and words[0] in ("methods", "method", "go"):
        words.pop(0)
    args: dict[str, Any] = {}
    if words and words[0] == "summary":
        words.pop(0)
    if words:
        args["pattern"] = words.pop(0)
    if words and words[0] not in ("resume", "folded"):
        try:
            args["duration"] = float(words.pop(0))
        except ValueError:
            raise CommandError("trace: duration must be a number of seconds") from None
    while words:
        word = words.pop(0)
        if word == "resume":
            args["resume"] = True
        elif word == "folded" and words:
            args["folded"] = words.pop(0)
        else:
            raise CommandError(f"trace: unexpected {word!r}", f"usage: {TRACE_SYNTAX}")
    return args


TRACE_SYNTAX = "trace [methods] [PATTERN] [SECONDS] [resume] [folded FILE]"


@cmd("trace", "Trace calls to classes matching a pattern for some seconds, then summarise (counts, times).",
     aliases=("trace methods",), category="observation", waits=True, parser=parse_trace,
     syntax=TRACE_SYNTAX, examples=("trace com.acme.* 5", "trace com.acme.* 5 resume folded /tmp/acme.folded"))
async def _trace(ctx: Context, pattern: str | None = None, duration: float = 5.0, resume: bool = False,
                 folded: str | None = None) -> CommandResult:
    if pattern is None:
        here = await current_location(ctx)
        if here is None:
            raise CommandError("trace needs a class pattern", "e.g. trace com.acme.* 5")
        pattern = here.class_name.rsplit(".", 1)[0] + ".*" if "." in here.class_name else here.class_name
    result = await ctx.debugger.trace(pattern, duration, actor=ctx.actor, resume=resume, folded=folded)
    return ok(render(result), result)


@cmd("untrace", "Stop tracing (a trace ends by itself after its duration).", category="observation")
async def _untrace(ctx: Context) -> CommandResult:
    return ok("tracing is timed: a running `trace` ends after its duration (Ctrl+C ends the wait)")


@cmd("events", "The event history (stops, breakpoints, logpoints, threads) with who caused each.",
     aliases=("history",), args=[Arg("since", "int", required=False), Arg("limit", "int", required=False)],
     category="observation")
async def _events(ctx: Context, since: int = 0, limit: int = 50) -> CommandResult:
    records = await ctx.debugger.events(since, None, 100_000)
    records = records[-limit:] if since == 0 else records[:limit]
    return ok("\n".join(shared_render.event(r) for r in records) if records else "No events.", records)


@cmd("output", "The target's stdout/stderr (launched targets).", args=[Arg("stream", "word", required=False,
     choices=("stdout", "stderr", "both"))], category="observation")
async def _output(ctx: Context, stream: str = "both") -> CommandResult:
    chunks = await ctx.debugger.output(stream, 0)
    text = "".join(c.text for c in chunks)
    return ok(text.rstrip("\n") or "(no output captured)", chunks)
