"""The jdb/gdb commands of the catalog for threads: threads, thread, lock, locks."""

from __future__ import annotations

import difflib

from ...commands.syntax import (
    Arg,
)
from ..errors import InvalidArgument, NotFound
from ..model import (
    ThreadInfo,
)
from ..render import command_text as render
from .framework import (
    CommandResult,
    Context,
    cmd,
    ok,
)


@cmd("threads", "List threads with state and location (* = current).", aliases=("info threads",),
     args=[Arg("which", "word", required=False, choices=("all", "system"))], category="threads")
async def _threads(ctx: Context, which: str | None = None) -> CommandResult:
    threads = await ctx.debugger.threads(include_system=which is not None)
    text = render_threads(threads, ctx.thread)
    if which is None:
        everything = await ctx.debugger.threads(include_system=True)
        hidden = len(everything) - len(threads)
        if hidden > 0:
            text += f"\n({hidden} system thread{'s' if hidden != 1 else ''} hidden: `threads all` lists them)"
    return ok(text, threads)


def render_threads(threads: list[ThreadInfo], selected: str | int | None = None) -> str:
    if not threads:
        return "No threads."
    lines = []
    for t in threads:
        is_selected = (selected is None and t.current) or selected in (t.id, t.name)
        state = t.description or (t.state + (", suspended" if t.suspended else ""))
        where = f" at {t.location}" if t.location else ""
        lines.append(f"{'*' if is_selected else ' '} {t.id:<6} {t.name:<24} {state}{where}")
    return "\n".join(lines)


@cmd("thread", "Select the current thread (by id or name) for stack, locals, print and stepping.",
     args=[Arg("thread", "thread", required=False)], category="threads")
async def _thread(ctx: Context, thread: str | int | None = None) -> CommandResult:
    threads = await ctx.debugger.threads(include_system=True)
    if thread is None:
        current = [t for t in threads if (ctx.thread is None and t.current) or ctx.thread in (t.id, t.name)]
        return ok(render_threads(current, ctx.thread) if current else "No current thread.", current)
    found = [t for t in threads if thread in (t.id, t.name)]
    if not found:
        names = [t.name for t in threads]
        raise NotFound(f"no thread {thread}", difflib.get_close_matches(str(thread), names, 3),
                       hint="" if difflib.get_close_matches(str(thread), names, 3) else "`threads` lists them")
    ctx.selection.thread = found[0].id
    ctx.selection.frame = 0
    chosen = found[0]
    return ok(f"current thread: {chosen.name} (id {chosen.id}, {chosen.description or chosen.state})", chosen)


@cmd("lock", "Monitor info of an object: owner, entry count, waiting threads.", args=[Arg("target", "target", rest=True)],
     category="threads")
async def _lock(ctx: Context, target: str) -> CommandResult:
    view = await ctx.debugger.inspect(target, ctx.frame, ctx.thread, 0, 0)
    handle = view.value.handle
    if handle is None:
        raise InvalidArgument(f"{target} is not an object ({view.value.text}): only objects have a monitor",
                              "give an object: lock this, lock @12, lock $order")
    report = await ctx.debugger.locks()
    owners = [t.thread for t in report.threads if any(h.handle == handle for h in t.holds)]
    entering = [t.thread for t in report.threads
                if t.waits_for is not None and t.waits_for.handle == handle and t.wait_kind == "monitor"]
    waiting = [t.thread for t in report.threads
               if t.waits_for is not None and t.waits_for.handle == handle and t.wait_kind != "monitor"]
    lines = [f"monitor of {target} = {view.value.text}",
             f"  owner: {', '.join(owners) or 'none (unlocked)'}",
             f"  waiting to enter: {', '.join(entering) or 'none'}",
             f"  waiting for notify (Object.wait): {', '.join(waiting) or 'none'}"]
    data = {"object": view.value, "owners": owners, "entering": entering, "waiting": waiting}
    return ok("\n".join(lines), data)


@cmd("locks", "Every thread's owned monitors and what it waits for; reports deadlocks.",
     aliases=("threadlocks", "deadlocks", "info locks"), args=[Arg("thread", "thread", required=False)],
     category="threads")
async def _locks(ctx: Context, thread: str | int | None = None) -> CommandResult:
    locks = await ctx.debugger.locks()
    return ok(render(locks), locks)
