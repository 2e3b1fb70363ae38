"""The MCP tools, bound from the operation specs (tracepilot/commands): one tool per spec with a tool name.

The tool names, argument names, types, defaults and descriptions are the spec's, which keep the names
of ../shared/DESIGN.md (tests/mcp/tool_contract.json holds them). Every tool answers with a compact text
rendering (the core/render package) for the model plus the structured form (`to_dict()` of the core's result).
Waiting tools (resume, step, run_to, wait_for_stop) answer with the stop context when the program stops
and a plain "still running" when their timeout passes.
"""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..commands import ArgumentError, Arguments, Effect, Param, Spec, by_tool
from ..version import package_version
from .app import McpApp, answer
from .arguments import remember_boolean_arguments
from .warm_start import settled

if TYPE_CHECKING:
    from ..core.debugger import Debugger

ANNOTATIONS = {
    Effect.READ: ToolAnnotations(read_only_hint=True, open_world_hint=False),
    Effect.CONTROL: ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    Effect.CHANGE: ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
}


def _data(obj: Any, key: str = "result") -> dict[str, Any] | None:
    from ..core.model import to_dict  # noqa: PLC0415

    data = to_dict(obj)
    if isinstance(data, dict):
        return data
    return {key: data}


def _text(obj: Any) -> str:
    from ..core import render  # noqa: PLC0415

    return render.render(obj)


def _agent() -> Any:
    from ..core.model import Actor  # noqa: PLC0415

    return Actor.AGENT


def _annotation(param: Param) -> Any:
    """The argument's type as pydantic reads it: with its description and bounds when it has them."""
    if param.description is None and not param.constraints():
        return param.type
    return Annotated[param.type, Field(description=param.description, **param.constraints())]


def _signature(spec: Spec) -> tuple[inspect.Signature, dict[str, Any]]:
    parameters, hints = [], {}
    for param in spec.params:
        annotation = _annotation(param)
        default = inspect.Parameter.empty if param.required else param.default
        parameters.append(inspect.Parameter(param.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=default, annotation=annotation))
        hints[param.name] = annotation
    if spec.waits_on is not None:  # the SDK passes the request context here, for progress notifications
        parameters.append(inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                            annotation=Context | None))
        hints["ctx"] = Context | None
    hints["return"] = CallToolResult
    return inspect.Signature(parameters, return_annotation=CallToolResult), hints


def register(server: MCPServer, app: McpApp) -> None:
    """Add one tool per spec that has a tool name."""
    for spec in by_tool().values():
        fn = _tool_function(spec, app)
        server.add_tool(fn, description=spec.help, annotations=ANNOTATIONS[spec.effect])
        remember_boolean_arguments(fn)  # so `thread: true` is refused, not taken as thread 1


def _tool_function(spec: Spec, app: McpApp) -> Any:
    custom = _CUSTOM_ANSWERS.get(spec.tool or "")

    async def run_tool(**kwargs: Any) -> CallToolResult:
        ctx = kwargs.pop("ctx", None)
        await settled()  # a warm-up still loading the core ends first (warm_start.py)
        if custom is not None:
            return await custom(app)
        arguments = Arguments(kwargs, actor=_agent())
        if spec.stop_context:
            timeout = getattr(arguments, spec.waits_on) if spec.waits_on else 0
            return await _stop_context(app, spec, ctx, timeout, arguments)
        return await _reply(app, spec, ctx, arguments)

    signature, hints = _signature(spec)
    run_tool.__name__ = run_tool.__qualname__ = spec.tool or spec.name
    run_tool.__signature__ = signature  # type: ignore[attr-defined]
    run_tool.__annotations__ = hints
    run_tool.__doc__ = spec.help
    return run_tool


def _call(spec: Spec, arguments: Arguments) -> Any:
    """The core call of a spec, with argument combinations it refuses said in its own words."""
    async def call(d: Debugger) -> Any:
        assert spec.call is not None
        try:
            return await spec.call(d, arguments)
        except ArgumentError as e:
            raise ToolError(str(e)) from e

    return call


async def _reply(app: McpApp, spec: Spec, ctx: Context | None, arguments: Arguments) -> CallToolResult:
    from ..core import render  # noqa: PLC0415

    call = _call(spec, arguments)
    if spec.waits_on is not None:
        timeout = getattr(arguments, spec.waits_on)

        async def work(d: Debugger) -> Any:
            return await app.waiting(ctx, timeout, _call(spec, arguments)(d), what=spec.waiting_for)

        call = work
    result = await app.call(spec.tool or spec.name, call)
    options = spec.render_options(arguments) if spec.render_options else {}
    # lists name their renderer, so an empty one still reads right
    return answer(getattr(render, spec.render)(result, **options), _data(result, spec.data_key))


async def _stop_context(app: McpApp, spec: Spec, ctx: Context | None, timeout: float,
                        arguments: Arguments) -> CallToolResult:
    """Run a waiting core call; on a stop, add the snapshot so one call shows everything."""
    from ..core import render  # noqa: PLC0415
    from ..core.model import SessionState, StopKind  # noqa: PLC0415

    async def work(d: Debugger) -> Any:
        return await app.waiting(ctx, timeout, _call(spec, arguments)(d))

    result = await app.call(spec.tool or spec.name, work)
    snap = None
    if result.stopped and result.state is SessionState.STOPPED and result.stop is not None \
            and result.stop.kind is not StopKind.VM_DEATH:
        try:
            snap = await app.debugger().snapshot()
        except Exception:  # the stop itself is the answer; the picture around it is a bonus
            snap = None
    data = _data(result) or {}
    if snap is not None:
        data["snapshot"] = _data(snap)
    text = render.wait_result(result, snap)
    if result.stopped or result.state is SessionState.RUNNING:  # what was logged and happened meanwhile
        start, news = app.debugger().history.unseen("mcp")
        if news:
            text += "\n" + render.since_last_answer(start, news)
            data["since_last_answer"] = [_data(e) for e in news]
    return answer(text, data)


# -- diagnose -----------------------------------------------------------------------------------------------------


async def _diagnose(app: McpApp) -> CallToolResult:
    import sys  # noqa: PLC0415

    from ..core.discovery import discover  # noqa: PLC0415

    session: dict[str, Any] = {}
    try:
        session = await app.call("diagnose", lambda d: d.diagnose()) or {}
    except Exception as e:  # diagnose must answer even when the session part is broken
        session = {"error": str(e)}
    jvms = session.pop("local_jvms", None) if isinstance(session, dict) else None
    if not jvms:
        jvms = await discover()
    server = {
        "name": "tracepilot", "version": package_version(), "pid": os.getpid(), "python": sys.version.split()[0],
        "log_file": app.log_file, "read_only": app.read_only, "redact": app.redact, "join": app.join,
    }
    data = {"server": server, "session": _data(session), "local_jvms": _data(jvms, "items")["items"]}
    lines = [f"tracepilot {server['version']} (pid {server['pid']}, Python {server['python']})"
             + (" read-only" if app.read_only else ""),
             f"log file: {app.log_file or 'none (stderr only)'}"]
    for key, val in (session or {}).items():
        if val in (None, "", [], {}):
            continue
        lines.append(f"{key}: {_text(val) if not isinstance(val, str | int | float | bool) else val}")
    if jvms:
        lines.append("local JVMs with a JDWP agent:")
        lines.extend("  " + (p.describe() if hasattr(p, "describe") else str(p)) for p in jvms)
        ports = [port for p in jvms for port in getattr(p, "jdwp_ports", ())]
        maybe = [port for p in jvms for port in getattr(p, "unverified_ports", ())]
        here = [p for p in jvms if getattr(p, "attached_port", None) is not None]
        if here:  # attached already: name that JVM, offer no other port
            lines.append(f"attached to pid {here[0].pid} on JDWP port {here[0].attached_port}")
        elif ports:
            lines.append(f"attach with attach(address='localhost:{ports[0]}')")
        elif maybe:
            lines.append(f"no port is verified as JDWP; try attach(address='localhost:{maybe[0]}') (not verified)")
    else:
        lines.append("no local JVM runs a JDWP agent (start one with "
                     "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=5005, or use launch)")
    return answer("\n".join(lines), data)


_CUSTOM_ANSWERS = {"diagnose": _diagnose}  # the server adds what only it knows
