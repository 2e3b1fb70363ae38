"""Every debugger operation declared once (`Spec`), grouped by feature; front ends bind to these.

    from tracepilot.commands import SPECS, by_tool
    spec = by_tool()["breakpoint_set"]   # name, arguments, help, effect, Debugger method, renderer

The MCP server registers one tool per spec with a `tool` name (mcp/tools.py). The command catalog's
jdb/gdb commands name the spec they run in `Spec.commands`; a spec without a tool says in
`person_only` why only a person at a prompt uses it (tests/commands checks that each catalog command
is covered).
"""

from __future__ import annotations

import functools

from . import breakpoints, code, execution, inspection, observation, session, targets, watchers
from .spec import REQUIRED, ArgumentError, Arguments, Effect, Param, Spec, unknown_arguments
from .targets import with_target_argument

SPECS: tuple[Spec, ...] = tuple(with_target_argument(spec) for spec in (
    *session.SPECS, *execution.SPECS, *breakpoints.SPECS, *observation.SPECS, *inspection.SPECS,
    *watchers.SPECS, *code.SPECS, *targets.SPECS,
))

__all__ = ["REQUIRED", "SPECS", "ArgumentError", "Arguments", "Effect", "Param", "Spec", "by_command", "by_tool",
           "unknown_arguments"]


@functools.cache
def by_tool() -> dict[str, Spec]:
    """The specs the MCP server offers, by tool name, in the order they are listed."""
    return {spec.tool: spec for spec in SPECS if spec.tool}


@functools.cache
def by_command() -> dict[str, Spec]:
    """The spec each catalog command (canonical name) runs."""
    return {command: spec for spec in SPECS for command in spec.commands}
