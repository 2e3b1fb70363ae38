"""The jdb/gdb commands of the catalog for session: help, exit."""

from __future__ import annotations

from ...commands.syntax import (
    ARG_KINDS,
    Arg,
    breakpoint_id,
    split_commands,
    tokenize,
)
from ..model import (
    BreakpointInfo,
    EventRecord,
    SessionState,
    Status,
    ValueView,
    Variable,
)
from ..render import command_text as render
from .framework import (
    DEFAULT_WAIT,
    Catalog,
    Command,
    CommandError,
    CommandResult,
    Context,
    Invocation,
    Selection,
    cmd,
    default_catalog,
    ok,
)


@cmd("help", "List commands, or explain one.", aliases=("?", "h"), args=[Arg("topic", "command", required=False,
     rest=True)], category="session")
async def _help(ctx: Context, topic: str | None = None) -> CommandResult:
    return ok(ctx.catalog.help(topic))


@cmd("exit", "Leave tracepilot (a launched JVM is terminated, an attached one keeps running).",
     aliases=("quit", "q"), category="session")
async def _exit(ctx: Context) -> CommandResult:
    return CommandResult(True, "", exit=True)


# used by other modules; kept here so the names stay in one place
__all__ = [
    "ARG_KINDS", "Arg", "Catalog", "Command", "CommandError", "CommandResult", "Context", "Invocation", "Selection",
    "default_catalog", "split_commands", "tokenize", "breakpoint_id", "DEFAULT_WAIT",
    "EventRecord", "SessionState", "Status", "ValueView", "Variable", "BreakpointInfo", "render",
]
