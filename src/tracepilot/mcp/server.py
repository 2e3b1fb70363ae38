"""`tracepilot --mcp`: the MCP server on stdio, a thin binding of the core Debugger for AI agents.

Start-up loads only the SDK and this package; the core, the JDWP layer and tree-sitter load on the first
tool call, so `initialize` is answered about as fast as the SDK imports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus

from ..signals import on_signals
from ..version import package_version
from . import resources, tools
from .app import McpApp
from .arguments import CheckedServer
from .logs import setup_logging

if TYPE_CHECKING:
    from ..core.debugger import Debugger

log = logging.getLogger("tracepilot.mcp")

INSTRUCTIONS = """\
tracepilot debugs Java programs over JDWP. Typical loop:
1. launch (main+classpath, jar, or source=Foo.java) or attach to "host:port" (diagnose lists local JVMs
   with a debug port). A launched program waits at VM start.
2. breakpoint_set "Foo:42" / exception_break "NullPointerException" / watchpoint_set / method_break.
3. resume: waits for the next stop and answers with its context (reason, source, stack, locals).
4. snapshot, locals, inspect "@12", evaluate "expr" to look around; step over/into/out to move.
Waiting tools answer "still running" on timeout: call wait_for_stop again or pause. Objects are named by
handles (@12) or marks ($label), frames by index (0 = top). Errors say what to do next.
Several JVMs (a client and its server): launch/attach each with a name; tools take target=NAME (default: the
target of the current stop), stops say which target (STOPPED [server] at ...), status lists them."""


def build_server(*, read_only: bool = False, redact: bool = False, join: str | None = None,
                 log_file: str | None = None, sourcepath: tuple[str, ...] = (),
                 debugger_factory: Callable[[], Debugger] | None = None) -> tuple[MCPServer, McpApp]:
    """The MCP server and its state; tests connect `mcp.client.Client(server)` to it in memory."""
    app = McpApp(read_only=read_only, redact=redact, join=join, log_file=log_file, sourcepath=sourcepath,
                 debugger_factory=debugger_factory or _join_factory(join, read_only, redact))

    bus = InMemorySubscriptionBus()  # (ours, so resource updates are published through the SDK's public seam)
    server = CheckedServer("tracepilot", title="tracepilot Java debugger", instructions=INSTRUCTIONS,
                           version=package_version(), log_level="INFO", subscriptions=bus)
    tools.register(server, app)
    server.notifier = resources.register(server, app, bus)  # type: ignore[attr-defined]
    return server, app


def _join_factory(join: str | None, read_only: bool = False, redact: bool = False) -> Callable[[], Debugger] | None:
    """With --join, the debugger is a live session another front end hosts (the share protocol); this
    server's own --read-only and --redact hold on top of the host's."""
    if join is None:
        return None

    def factory() -> Debugger:
        try:
            from ..share.client import join_session  # noqa: PLC0415
        except ImportError as e:
            from ..core.errors import Unsupported  # noqa: PLC0415

            raise Unsupported("--join is not available in this build", "run tracepilot --mcp without --join") from e
        return join_session(join or None, read_only=read_only, redact=redact)

    return factory


def _publish(debugger: Debugger):  # noqa: ANN202
    from ..share.host import publish_soon  # noqa: PLC0415  (loaded with the core, on the first tool call)

    return publish_soon(debugger, "mcp")


def run(read_only: bool, redact: bool, join: str | None, log_file: str | None) -> int:
    """Serve MCP on stdin/stdout until the client closes stdin (or SIGTERM/SIGHUP/SIGINT arrives): either way
    the debugger is closed (a launched JVM is ended, a published session unlisted); returns the exit status."""
    used_log = setup_logging(log_file)
    server, app = build_server(read_only=read_only, redact=redact, join=join, log_file=used_log)
    log.info("tracepilot MCP server starting (read_only=%s, join=%s, log=%s)", read_only, join, used_log)

    hosts: list = []
    if join is None:  # every session host publishes its session for `tracepilot watch` (issue 9)
        app.on_debugger.append(lambda debugger: hosts.append(_publish(debugger)))
    received: list[int] = []

    async def serve() -> None:
        import anyio  # noqa: PLC0415

        try:
            with anyio.CancelScope() as scope:
                with on_signals(lambda signum: (received.append(signum), scope.cancel())):
                    await _serve_stdio(server)
        finally:
            with anyio.CancelScope(shield=True):
                try:
                    await app.close()
                finally:
                    for host in hosts:
                        if host is not None:
                            await host.close("the agent's MCP server ended")

    import anyio  # noqa: PLC0415

    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        pass
    except Exception:
        log.exception("MCP server stopped on an error")
        return 1
    if received:
        log.info("tracepilot MCP server stopped on signal %d", received[0])
        return 128 + received[0]
    log.info("tracepilot MCP server stopped")
    return 0


async def _serve_stdio(server: MCPServer) -> None:
    """The SDK's stdio transport over our stdin reader (stdio_input.py: lines the SDK would leave unanswered
    are answered; a signal ends a read at once)."""
    from mcp.server.stdio import stdio_server  # noqa: PLC0415

    from .stdio_input import CheckedLines, stdin_lines  # noqa: PLC0415
    from .warm_start import warm_after_initialize  # noqa: PLC0415

    lowlevel = server._lowlevel_server  # noqa: SLF001  (what run_stdio_async runs, with our stdin)
    async with stdio_server(stdin=CheckedLines(warm_after_initialize(stdin_lines()))) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
