"""What the MCP tools share: the one Debugger (created on first use), error mapping, answers, progress.

Nothing here knows how to debug: every tool is one call on `core.debugger.Debugger`. The core, the
JDWP layer and tree-sitter are imported on first use so `initialize` is answered as soon as the SDK is
loaded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

if TYPE_CHECKING:
    from ..core.debugger import Debugger

log = logging.getLogger("tracepilot.mcp")

PROGRESS_EVERY = 1.0  # seconds between progress notifications while a tool waits


class McpApp:
    """State of one MCP server: options, the lazily created Debugger, and resource listeners."""

    def __init__(self, *, read_only: bool = False, redact: bool = False, join: str | None = None,
                 log_file: str | None = None, sourcepath: tuple[str, ...] = (),
                 debugger_factory: Callable[[], Debugger] | None = None) -> None:
        self.read_only = read_only
        self.redact = redact
        self.join = join
        self.log_file = log_file
        self.sourcepath = sourcepath
        self.started = time.time()
        self._factory = debugger_factory
        self._debugger: Debugger | None = None
        self.on_debugger: list[Callable[[Debugger], None]] = []  # e.g. resources subscribing to history

    # -- the debugger ------------------------------------------------------------------------------------

    @property
    def created(self) -> Debugger | None:
        return self._debugger

    def debugger(self) -> Debugger:
        if self._debugger is None:
            if self._factory is not None:
                self._debugger = self._factory()
            else:
                from ..core.debugger import Debugger  # noqa: PLC0415  (kept off the start path)
                from ..core.model import Actor  # noqa: PLC0415

                self._debugger = Debugger(read_only=self.read_only, redact=self.redact,
                                          sourcepath=self.sourcepath, default_actor=Actor.AGENT)
            log.info("debugger created (read_only=%s, redact=%s)", self.read_only, self.redact)
            for callback in self.on_debugger:
                try:
                    callback(self._debugger)
                except Exception:
                    log.exception("debugger listener failed")
        return self._debugger

    async def close(self) -> None:
        if self._debugger is not None:
            try:
                await self._debugger.close()
            except Exception:
                log.exception("closing the debugger failed")

    # -- calling the core ----------------------------------------------------------------------------------

    async def call(self, tool: str, fn: Callable[[Debugger], Awaitable[Any]]) -> Any:
        """Run one core call; every failure becomes a ToolError whose text says what to do next."""
        from ..core.errors import DebuggerError  # noqa: PLC0415

        try:
            return await fn(self.debugger())
        except ToolError:
            raise
        except DebuggerError as e:
            log.info("%s: %s", tool, e)
            raise ToolError(str(e)) from e
        except Exception as e:
            log.exception("%s failed", tool)
            raise ToolError(
                f"{tool} failed: {type(e).__name__}: {e or 'no details'} (the server keeps running: "
                "call status, or diagnose if the connection looks broken)") from e

    async def waiting(self, ctx: Context | None, timeout: float, work: Awaitable[Any],
                      what: str = "waiting for the program to stop") -> Any:
        """Await `work`, sending progress notifications meanwhile if the client asked for them."""
        task = asyncio.ensure_future(work)
        try:
            if ctx is not None and timeout > 0:  # report_progress is a no-op unless the client asked
                started = time.monotonic()
                while True:
                    done, _ = await asyncio.wait({task}, timeout=PROGRESS_EVERY)
                    if done:
                        break
                    elapsed = time.monotonic() - started
                    try:
                        await ctx.report_progress(round(elapsed, 1), timeout, what)
                    except Exception:  # a client that went away must not break the wait
                        log.debug("progress notification failed", exc_info=True)
            return await task
        finally:
            if not task.done():
                task.cancel()


def answer(text: str, data: dict[str, Any] | None = None) -> CallToolResult:
    """A tool result: compact text for the model plus the structured form."""
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)
