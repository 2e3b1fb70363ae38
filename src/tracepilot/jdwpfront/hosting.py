"""The JDWP front end beside every published session: `--jdwp-port N` on the session's owner, and the host's end
of `tracepilot jdwp --join` (a share socket that turns into a JDWP stream).

`install()` (called by the command line) registers both with the share host. The front end runs in the process
that owns the JVM connection, so a guest's commands and events never take an extra hop through the share
protocol's JSON; a joiner elsewhere relays raw bytes to it (join.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import JdwpFrontEnd

log = logging.getLogger("tracepilot.jdwpfront")

PORT_ENV = "TRACEPILOT_JDWP_PORT"  # set by `--jdwp-port N`: the owner also listens on 127.0.0.1:N
ALLOW_EXIT_ENV = "TRACEPILOT_JDWP_ALLOW_EXIT"  # a guest's VirtualMachine.Exit ends the JVM (else refused)
STREAM = "jdwp"  # the share message that hands a connection over to the JDWP front end

_front_ends: weakref.WeakKeyDictionary[Any, JdwpFrontEnd] = weakref.WeakKeyDictionary()


def front_end_for(debugger: Any) -> JdwpFrontEnd:
    """The one front end of a session (one guest at a time, whichever way it came)."""
    from .server import JdwpFrontEnd  # noqa: PLC0415 - loaded with the session, never on a front end's start path

    front = _front_ends.get(debugger)
    if front is None:
        front = _front_ends[debugger] = JdwpFrontEnd(debugger, allow_exit=bool(os.environ.get(ALLOW_EXIT_ENV)))
    return front


def install() -> None:
    """Offer the JDWP front end beside every session this process publishes (cheap: nothing loads until then)."""
    from ..share import hooks  # noqa: PLC0415

    if _on_publish not in hooks.PUBLISH_HOOKS:
        hooks.PUBLISH_HOOKS.append(_on_publish)
        hooks.WARM_UPS.append(_load_front_end)
    hooks.STREAM_HANDLERS[STREAM] = _serve_joined


def _load_front_end() -> None:
    """What the first publish loads (~15 ms), for a front end's warm-up to load ahead of it."""
    from . import server  # noqa: F401, PLC0415


def _on_publish(session_host: Any) -> None:
    front = front_end_for(session_host.debugger)
    session_host.on_close.append(front.close)
    port = os.environ.get(PORT_ENV)
    if port is None:
        return
    front.port = int(port)
    task = asyncio.get_running_loop().create_task(_listen(front))
    task.add_done_callback(lambda t: t.cancelled() or (t.exception() and _cannot_listen(t.exception())))


async def _listen(front: JdwpFrontEnd) -> None:
    from .server import HOST  # noqa: PLC0415

    port = await front.start()
    # stderr, never stdout (an MCP server's stdout carries its protocol)
    print(f"tracepilot: JDWP front end on {HOST}:{port} — attach IntelliJ (Remote JVM Debug), Eclipse (Remote Java "
          f"Application) or `jdb -attach {HOST}:{port}`", file=sys.stderr, flush=True)


def _cannot_listen(exc: BaseException | None) -> None:
    log.warning("jdwp: no JDWP front end: %s", exc)
    print(f"tracepilot: cannot offer the JDWP front end: {exc}", file=sys.stderr, flush=True)


async def _serve_joined(session_host: Any, message: dict[str, Any], reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
    from ..share import protocol  # noqa: PLC0415

    if message.get("probe") is True:  # `jdwp --join tcp://...` checking its token at start (the host checked it)
        writer.write(protocol.dumps({"type": "jdwp_ready"}))
        await writer.drain()
        return
    front = front_end_for(session_host.debugger)
    if front.guest is not None:
        writer.write(protocol.dumps(protocol.bye(f"{front.guest.name} is attached through the JDWP front end; "
                                                 "one JDWP debugger at a time")))
        await writer.drain()
        return
    writer.write(protocol.dumps({"type": "jdwp_ready"}))
    await front.serve(reader, writer, name=str(message.get("client") or "jdwp"),
                      read_only=message.get("read_only") is True)
