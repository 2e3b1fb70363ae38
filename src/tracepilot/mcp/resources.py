"""Resources: the live session and its event history, with update notifications for subscribers.

Both MCP eras are served: clients on the handshake protocol subscribe with `resources/subscribe` and get
`notifications/resources/updated`; 2026-07-28 clients open `subscriptions/listen` and get the same
event through the SDK's subscription bus. Updates are coalesced: however many events arrive while one
notification round is out, one more round follows.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import SubscriptionBus
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types import EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from .app import McpApp

if TYPE_CHECKING:
    from ..core.debugger import Debugger
    from ..core.model import EventRecord

log = logging.getLogger("tracepilot.mcp.resources")

SESSION_URI = "tracepilot://session"
EVENTS_URI = "tracepilot://events"
BREAKPOINTS_URI = "tracepilot://breakpoints"
RECENT_EVENTS = 200
NO_SESSION = "DISCONNECTED — no JVM yet: call attach or launch"


class ResourceNotifier:
    """Publishes resource updates when the debugger's history grows."""

    def __init__(self, server: MCPServer, bus: SubscriptionBus) -> None:
        self.server = server
        self.bus = bus  # the server's subscriptions/listen bus (given to it at its making: server.py)
        self.legacy: dict[str, list[Any]] = {}  # uri -> sessions that sent resources/subscribe
        self._dirty: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self.published = 0

    def attach(self, debugger: Debugger) -> None:
        # Not a follower: an agent reads with `captures`, `events` or a stop answer, each of which reads the
        # capture ring first, so in-JVM captures may wait in the JVM (rendered when asked, not while the
        # program is under load; a resource subscriber hears of them within the ring's 5 s: capture/in_probe.py).
        debugger.history.subscribe(self._on_event, follows=False)

    def _on_event(self, record: EventRecord) -> None:
        uris = {EVENTS_URI, SESSION_URI}
        if record.kind.startswith("breakpoint") or record.kind in ("stop", "reset", "detach"):
            uris.add(BREAKPOINTS_URI)
        self.touch(*uris)

    def touch(self, *uris: str) -> None:
        self._dirty.update(uris)
        if self._task is None or self._task.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # an event recorded outside the loop: the next one will carry it
                return
            self._task = loop.create_task(self._flush())

    async def _flush(self) -> None:
        while self._dirty:
            uris, self._dirty = self._dirty, set()
            for uri in sorted(uris):
                await self._publish(uri)

    async def _publish(self, uri: str) -> None:
        self.published += 1
        try:
            await self.bus.publish(ResourceUpdated(uri=uri))
        except Exception:
            log.debug("subscription bus publish failed", exc_info=True)
        for session in list(self.legacy.get(uri, ())):
            try:
                await session.send_resource_updated(uri)
            except Exception:  # the client went away: forget it
                log.debug("dropping a subscriber of %s", uri, exc_info=True)
                self._forget(uri, session)

    def _forget(self, uri: str, session: Any) -> None:
        sessions = self.legacy.get(uri, [])
        if session in sessions:
            sessions.remove(session)

    async def on_subscribe(self, ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        sessions = self.legacy.setdefault(str(params.uri), [])
        if ctx.session not in sessions:
            sessions.append(ctx.session)
        return EmptyResult()

    async def on_unsubscribe(self, ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        self._forget(str(params.uri), ctx.session)
        return EmptyResult()


async def session_text(d: Debugger) -> str:
    from ..core import render  # noqa: PLC0415

    parts = [render.status(await d.status())]
    bps = await d.breakpoint_list()
    if bps:
        parts.append("breakpoints:\n" + render.breakpoints(bps))
    try:
        watches = await d.watches()
    except Exception:  # watchers are optional in this picture
        watches = None
    if watches:
        parts.append("watches:\n" + render.render(watches))
    return "\n".join(parts)


async def events_text(d: Debugger, limit: int) -> str:
    from ..core import render  # noqa: PLC0415

    records = await d.events(max(0, d.history.last_seq - limit), None, limit)
    return render.events(records, limit)


async def breakpoints_text(d: Debugger) -> str:
    from ..core import render  # noqa: PLC0415

    return render.breakpoints(await d.breakpoint_list())


def register(server: MCPServer, app: McpApp, bus: SubscriptionBus) -> ResourceNotifier:
    notifier = ResourceNotifier(server, bus)
    app.on_debugger.append(notifier.attach)
    low = server._lowlevel_server  # noqa: SLF001  (MCPServer has no public hook for resources/subscribe)
    low.add_request_handler("resources/subscribe", SubscribeRequestParams, notifier.on_subscribe)
    low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, notifier.on_unsubscribe)

    @server.resource(SESSION_URI, name="session", title="Debug session", mime_type="text/plain",
                     description="State, stop reason and location, target, breakpoints and watchers (live)")
    async def session_resource() -> str:
        d = app.created
        if d is None:
            return NO_SESSION
        return await session_text(d)

    @server.resource(EVENTS_URI, name="events", title="Event history", mime_type="text/plain",
                     description=f"The last {RECENT_EVENTS} events with who caused each (live)")
    async def events_resource() -> str:
        d = app.created
        if d is None:
            return "no events yet"
        return await events_text(d, RECENT_EVENTS)

    @server.resource(BREAKPOINTS_URI, name="breakpoints", title="Breakpoints", mime_type="text/plain",
                     description="Every breakpoint with its state and hit count (live)")
    async def breakpoints_resource() -> str:
        d = app.created
        if d is None:
            return "no breakpoints"
        return await breakpoints_text(d)

    return notifier
