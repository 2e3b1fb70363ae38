"""Argument checking for the MCP tools, answered in the tools' own words.

The SDK validates arguments with pydantic, which (1) quietly turns JSON `true` into the number 1, so
`thread: true` meant thread 1, and (2) reports a mistake as pydantic's multi-line text ending in a link
to its documentation. Here a boolean is refused where the tool takes no boolean, and a validation error
becomes one line per argument: which argument, what it takes, what was sent.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from ..commands import unknown_arguments

# A request the transport could not pass on as sent (mcp/stdio_input.py) arrives as this one argument,
# whose value says what was wrong: the tool answers with it instead of the request going unanswered.
BAD_INPUT = "__tracepilot_bad_input__"

# tool name -> names of its arguments that accept true/false
_BOOLEAN_ARGUMENTS: dict[str, frozenset[str]] = {}
_MAX_SHOWN = 60


def remember_boolean_arguments(fn: Callable[..., Any]) -> None:
    """Note which arguments of a tool function take a boolean (read from its type hints)."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - hints that do not resolve: check nothing rather than break the tool
        return
    _BOOLEAN_ARGUMENTS[fn.__name__] = frozenset(name for name, hint in hints.items() if _takes_bool(hint))


def _takes_bool(hint: Any) -> bool:
    if hint is bool:
        return True
    return any(_takes_bool(arg) for arg in typing.get_args(hint) if not isinstance(arg, str | int | float))


def check(tool: str, arguments: dict[str, Any]) -> None:
    """Refuse `true`/`false` for an argument that is a number, a name or a text (pydantic would take
    true as 1)."""
    takes_bool = _BOOLEAN_ARGUMENTS.get(tool)
    if takes_bool is None:
        return
    wrong = [name for name, value in arguments.items() if isinstance(value, bool) and name not in takes_bool]
    if wrong:
        parts = [f"{name}={str(arguments[name]).lower()} is not a valid {name} (it takes "
                 f"{'a thread id or name' if name == 'thread' else 'a number or text'}, not true/false)"
                 for name in wrong]
        raise ToolError(f"{tool}: " + "; ".join(parts) + ". Leave it out for the default.")


def explain(tool: str, error: ValidationError) -> str:
    """One line per wrong argument, no links: "step: count must be at least 1 (got 0)"."""
    parts = []
    for item in error.errors(include_url=False):
        name = ".".join(str(p) for p in item.get("loc", ())) or "arguments"
        message = str(item.get("msg", "is not valid")).removeprefix("Value error, ")
        message = message[0].lower() + message[1:] if message else "is not valid"
        got = item.get("input")
        if item.get("type") == "missing":
            parts.append(f"{name} is required")
            continue
        if item.get("type") == "extra_forbidden":
            parts.append(f"{name} is not an argument of {tool}")
            continue
        shown = repr(got)
        if len(shown) > _MAX_SHOWN:
            shown = shown[:_MAX_SHOWN] + "…"
        parts.append(f"{name}: {message} (got {shown})")
    return f"{tool}: " + "; ".join(parts) + ". The tool's description says what each argument takes."


class CheckedServer(MCPServer):
    """The MCP server whose tools answer argument mistakes in their own words, and refuse arguments they do
    not have (a typo such as `conditon` would otherwise be dropped and the tool run without it)."""

    def add_tool(self, *args: Any, **kwargs: Any) -> None:
        super().add_tool(*args, **kwargs)
        for tool in self._tool_manager.list_tools():
            tool.parameters["additionalProperties"] = False  # the schema says what call_tool enforces

    async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if BAD_INPUT in (arguments or {}):
            raise ToolError(f"{name}: {arguments[BAD_INPUT]}")
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            refused = unknown_arguments(arguments or {}, tool.parameters.get("properties", {}), name)
            if refused is not None:
                raise ToolError(refused + ". Nothing was done.")
        check(name, arguments)
        try:
            return await super().call_tool(name, arguments, *args, **kwargs)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(explain(name, exc.__cause__)) from exc.__cause__
            raise
