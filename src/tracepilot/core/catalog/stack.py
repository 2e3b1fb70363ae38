"""The jdb/gdb commands of the catalog for stack: where, up/down/frame, locals, snapshot, pop, reenter, return.

Frames are numbered as jdb numbers them, from 1 at the top (`main[1]`, `[1] Foo.bar`): `where`, `up`, `down`,
`frame N` and the REPL prompt all use that number. The selection keeps the 0-based index the core and the MCP
tools use (DESIGN.md: 0 = top), so only the words a person reads and types change.
"""

from __future__ import annotations

from typing import Any

from ...commands.syntax import (
    Arg,
    thread_word,
)
from ..errors import DebuggerError, InvalidArgument
from ..model import (
    FrameInfo,
    StopReason,
    Variable,
)
from ..render import command_text as render
from ..render import source_line
from ..render import variable as variable_text
from .framework import (
    CommandError,
    CommandResult,
    Context,
    cmd,
    ok,
    waited,
)


def parse_where(rest: str) -> dict[str, Any]:
    words = rest.split()
    if not words:
        return {}
    if words[0] == "all":
        return {"all_threads": True}
    if words[0] in ("full", "locals"):
        return {"with_locals": True, **({"thread": thread_word(words[1])} if len(words) > 1 else {})}
    if len(words) == 1:
        try:
            return {"count": int(words[0])}
        except ValueError:
            return {"thread": thread_word(words[0])}
    raise CommandError(f"where: unexpected {rest!r}", "usage: where [all|THREAD|COUNT|full]")


@cmd("where", "The stack of the current thread (all: every thread; full: with locals).",
     aliases=("bt", "backtrace", "wherei"), category="stack", parser=parse_where, syntax="where [all|THREAD|N|full]")
async def _where(ctx: Context, all_threads: bool = False, thread: str | int | None = None, count: int = 50,
                 with_locals: bool = False) -> CommandResult:
    if all_threads:
        threads = await ctx.debugger.threads()
        blocks, data = [], {}
        for t in threads:
            try:
                frames = await ctx.debugger.stack(t.id, 0, count)
            except DebuggerError as e:
                blocks.append(f"{t.name} ({t.state}): {e}")
                continue
            data[t.name] = frames
            blocks.append(f"{t.name} ({t.state}{', suspended' if t.suspended else ''}):\n" + render_frames(frames))
        return ok("\n".join(blocks), data)
    target = thread if thread is not None else ctx.thread
    frames = await ctx.debugger.stack(target, 0, count, locals=with_locals)
    selected = ctx.frame if thread is None else -1
    return ok(render_frames(frames, selected), frames)


def frame_number(index: int) -> int:
    """The number a person reads and types for a frame (jdb's: 1 = top) from the core's index (0 = top)."""
    return index + 1


def render_frames(frames: list[FrameInfo], selected: int = -1) -> str:
    if not frames:
        return "No frames."
    lines = []
    for f in frames:
        marker = "*" if f.index == selected else " "  # (">" reads as an echoed command in a transcript)
        lines.append(f"{marker} [{frame_number(f.index)}] {f.location}" + (" (native)" if f.is_native else ""))
        for v in f.locals or []:
            lines.append(f"        {v.name} = {v.value.text}")
    return "\n".join(lines)


async def _select_frame(ctx: Context, index: int) -> CommandResult:
    try:
        frames = await ctx.debugger.stack(ctx.thread, index, 1)
    except InvalidArgument as e:
        if not e.message.startswith(f"frame {index} "):
            raise
        frames = []  # (the core's words count from 0: say it in the numbers `where` shows)
    if not frames:
        raise InvalidArgument(f"no frame {frame_number(index)}", "use `where` to see the frames of this thread")
    ctx.selection.frame = index
    location = frames[0].location
    text = f"[{frame_number(index)}] {location}"
    line = source_line(location, getattr(ctx.debugger.session, "sources", None))
    if line:
        text += f"\n{line}"
    return ok(text, frames[0])


@cmd("up", "Select the caller's frame (N frames up).", args=[Arg("count", "int", required=False)], category="stack")
async def _up(ctx: Context, count: int = 1) -> CommandResult:
    return await _select_frame(ctx, ctx.frame + count)


@cmd("down", "Select the callee's frame (N frames down).", args=[Arg("count", "int", required=False)], category="stack")
async def _down(ctx: Context, count: int = 1) -> CommandResult:
    if ctx.frame - count < 0:
        raise InvalidArgument("already at the top frame (1)", "use `up` to go to callers")
    return await _select_frame(ctx, ctx.frame - count)


@cmd("frame", "Select a frame by its number in `where` (1 = top, as in jdb), or show the selected one.",
     aliases=("f",), args=[Arg("index", "frame", required=False)], category="stack")
async def _frame(ctx: Context, index: int | None = None) -> CommandResult:
    if index is not None and index < 1:
        raise InvalidArgument(f"no frame {index}: frames are numbered from 1 (the top frame), as in jdb's `where`",
                              "`frame 1` is the top frame; `where` lists the numbers")
    return await _select_frame(ctx, ctx.frame if index is None else index - 1)


@cmd("locals", "The method arguments and the local variables of the selected frame, each under its heading "
     "as jdb lists them.", aliases=("info locals", "info args"), category="stack")
async def _locals(ctx: Context) -> CommandResult:
    variables = await ctx.debugger.locals(ctx.frame, ctx.thread)
    return ok(render_locals(variables) if variables else "No local variables.", variables)


def render_locals(variables: list[Variable]) -> str:
    """jdb's layout: "Method arguments:" then "Local variables:", each heading only when it has a name under it;
    at an exception stop `$exception` comes first, above both (it is neither)."""
    thrown = [v for v in variables if v.kind == "exception"]
    arguments = [v for v in variables if v.kind == "argument"]
    others = [v for v in variables if v.kind not in ("argument", "exception")]
    lines: list[str] = [variable_text(v) for v in thrown]
    for heading, group in (("Method arguments:", arguments), ("Local variables:", others)):
        if group:
            lines.append(heading)
            lines.extend(variable_text(v) for v in group)
    return "\n".join(lines)


@cmd("snapshot", "Everything about the current stop at once: reason, stack, locals, watchers.",
     args=[Arg("thread", "thread", required=False)], category="stack")
async def _snapshot(ctx: Context, thread: str | int | None = None) -> CommandResult:
    snap = await ctx.debugger.snapshot(thread if thread is not None else ctx.thread)
    return ok(render(snap), snap)


@cmd("pop", "Pop frames up to and including the selected one (the caller re-executes the call).",
     aliases=("popframes",), category="code", mutates=True)
async def _pop(ctx: Context) -> CommandResult:
    result = await ctx.debugger.pop_frames(ctx.frame, ctx.thread, actor=ctx.actor)
    ctx.selection.frame = 0
    return ok(render(result), result, stop=getattr(result, "stop", None) if isinstance(getattr(result, "stop", None), StopReason) else None)


@cmd("reenter", "Pop the selected frame and step into the call again.", category="code", mutates=True, waits=True)
async def _reenter(ctx: Context) -> CommandResult:
    await ctx.debugger.pop_frames(ctx.frame, ctx.thread, actor=ctx.actor)
    ctx.selection.frame = 0
    return await waited(ctx, await ctx.debugger.step("into", ctx.thread, 1, ctx.selection.wait_timeout,
                                                      actor=ctx.actor))


@cmd("return", "Return from the current method at once with a value (force early return).",
     aliases=("force-return",), args=[Arg("value", "expr", required=False, rest=True)], category="code", mutates=True)
async def _force_return(ctx: Context, value: str = "") -> CommandResult:
    result = await ctx.debugger.force_return(value, ctx.thread, actor=ctx.actor)
    return ok(render(result), result)
