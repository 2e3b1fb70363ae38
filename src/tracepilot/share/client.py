"""`RemoteDebugger`: a live session hosted by another process, driven as if it were a local `Debugger`.

It has the facade's async methods (generated from `Debugger`'s signatures, so the two cannot drift) and
forwards each call over the session socket; the host runs it on its one Debugger. `history` is a local
mirror fed by the host's event stream, so `history.subscribe`/`since`/`last_seq` work as usual and the
TUI and the MCP server drive a remote session without knowing it.

    remote = await RemoteDebugger.join("mcp-4242", actor=Actor.PERSON)
    await remote.breakpoint_set("Foo:12")      # the host's history records actor=person
    await remote.close()                       # leaves; the host is unchanged

When the host ends, `ended` is set, the mirror records a `session_ended` event and every call raises
`SessionEnded`; what was received stays readable.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import itertools
import logging
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..core.debugger import Debugger
from ..core.history import EventHistory
from ..core.model import Actor, EventRecord, SessionState, StopReason
from ..core.sources import SourcePath
from . import guard, protocol, registry
from .host import facade_methods, is_action
from .protocol import SessionEnded, ShareError
from .registry import SessionInfo

log = logging.getLogger("tracepilot.share")

CONNECT_TIMEOUT = 10.0
_ON_TARGET: contextvars.ContextVar[str | None] = contextvars.ContextVar("tracepilot_remote_target", default=None)


class MirrorHistory(EventHistory):
    """The host's history as received: same sequence numbers, same actors, same subscribe API."""

    def receive(self, record: EventRecord) -> None:
        if record.seq <= self._seq and any(r.seq == record.seq for r in self._ring):
            return  # already have it (snapshot and stream overlap)
        self._seq = max(self._seq, record.seq)
        if len(self._ring) == self._ring.maxlen:
            self.dropped += 1
        self._ring.append(record)
        for listener in list(self._listeners):
            try:
                listener(record)
            except Exception:
                self._listeners.remove(listener)


class RemoteSession:
    """The session's state as the host last told it, kept current from the event stream. Front ends read it
    through `RemoteDebugger`'s `DebuggerApi` properties; the jdb command catalog and its completion (which
    run on the client for `tracepilot watch`) still read it as `debugger.session`."""

    def __init__(self) -> None:
        self.state = SessionState.DISCONNECTED
        self.stop: StopReason | None = None
        self.target: str | None = None
        self.read_only = False
        self.sources = SourcePath([])
        self.vm = None  # no JDWP here: completion falls back to what it can ask the facade


class RemoteDebugger:
    """Same methods as `Debugger`; each one runs on the session host."""

    def __init__(self, session: str | None = None, *, actor: Actor = Actor.PERSON, follow_only: bool = False,
                 client: str = "watch", token: str | None = None, read_only: bool = False,
                 redact: bool = False, target: str | None = None) -> None:
        self.session_name = session
        # Several JVMs in the host's session: this front end follows and drives one of them (`dap --join
        # --target NAME`): its calls name it, and the records of the other targets are not shown here.
        self.joined_target = target
        # This front end's own flags, held on top of the host's (guard.py): writes refused before they are
        # sent, answers redacted as they arrive.
        self.own_read_only = read_only
        self.redact = redact
        self.token = token if token is not None else os.environ.get("TRACEPILOT_SHARE_TOKEN")
        self.default_actor = actor
        self.follow_only = follow_only
        self.client_name = client
        self.history = MirrorHistory()
        self.session = RemoteSession()
        self.info: SessionInfo | None = None
        self.initial: dict[str, Any] = {}  # the snapshot received on connect
        self.ended = asyncio.Event()
        self.end_reason: str | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._read_task: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._connect_lock: asyncio.Lock | None = None
        self.latencies: list[float] = []  # seconds from a record's time on the host to its arrival here
        self.arrived: dict[int, float] = {}  # seq -> time.time() of arrival (the last 1000)

    # DebuggerApi's synchronous reads, as the host last told them

    @property
    def state(self) -> SessionState:
        return self.session.state

    @property
    def current_stop(self) -> StopReason | None:
        return self.session.stop

    @property
    def sourcepath(self) -> list[str]:
        return [str(root) for root in self.session.sources.roots]

    @property
    def read_only(self) -> bool:
        return self.session.read_only or self.own_read_only

    @property
    def target(self) -> str | None:
        return self.session.target

    @classmethod
    async def join(cls, session: str | None = None, **kwargs: Any) -> RemoteDebugger:
        remote = cls(session, **kwargs)
        await remote.connect()
        return remote

    # -- connection ------------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._writer is not None and not self.ended.is_set()

    async def connect(self) -> RemoteDebugger:
        if self._connect_lock is None:
            self._connect_lock = asyncio.Lock()
        async with self._connect_lock:
            if self._writer is not None:
                return self
            if self.ended.is_set():
                raise SessionEnded(self.end_reason or "the session host ended")
            tcp = _tcp_address(self.session_name)
            if tcp is not None:
                # A session shared with --share-tcp (e.g. through an SSH tunnel): loopback address + token.
                if not self.token:
                    raise ShareError("a TCP session needs its token", "pass --token (printed by the host) "
                                     "or set TRACEPILOT_SHARE_TOKEN")
                info = SessionInfo(f"tcp://{tcp[0]}:{tcp[1]}", "", 0, "tcp", None, time.time())
                opening = asyncio.open_connection(tcp[0], tcp[1], limit=protocol.MAX_LINE)
            else:
                info = await asyncio.to_thread(registry.resolve, self.session_name)
                registry.check_private_dir(Path(info.socket).parent)
                opening = asyncio.open_unix_connection(info.socket, limit=protocol.MAX_LINE)
            try:
                reader, writer = await asyncio.wait_for(opening, CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as e:
                raise ShareError(f"cannot reach session {info.id}: {e}", "tracepilot sessions lists live ones") from e
            writer.write(protocol.dumps(protocol.hello(self.client_name, self.default_actor.value, self.follow_only,
                                                       self.token if tcp is not None else None,
                                                       no_side_effects=self.own_read_only or self.redact)))
            try:
                line = await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT)
            except TimeoutError:
                writer.close()
                raise ShareError(f"session {info.id} did not answer", "is its process stuck?") from None
            if not line:
                writer.close()
                raise ShareError(f"session {info.id} closed the connection", "tracepilot sessions lists live ones")
            snapshot = protocol.loads(line)
            if snapshot["type"] != "snapshot":
                writer.close()
                raise protocol.ProtocolError(f"expected a snapshot, got {snapshot['type']!r}")
            self.info, self._reader, self._writer = info, reader, writer
            self._apply_snapshot(snapshot)
            self._read_task = asyncio.get_running_loop().create_task(self._read_loop(), name=f"share-{info.id}")
            log.info("share: joined %s", info.label())
            return self

    def _apply_snapshot(self, snapshot: dict[str, Any]) -> None:
        self.initial = {key: protocol.decode(value) for key, value in snapshot.items()}
        status = self.initial.get("status")
        if status is not None:
            self.session.state = status.state
            self.session.stop = status.stop
            self.session.target = status.target
        self.session.read_only = bool(snapshot.get("read_only"))
        self.session.sources = SourcePath(list(snapshot.get("sourcepath") or []))
        if self.redact:
            self.initial = guard.redact(self.initial)
        first = snapshot.get("first_target") or self.joined_target  # (untargeted: from before a second target)
        for record in self.initial.get("history") or []:
            if not self.joined_target or (record.data.get("target") or first) == self.joined_target:
                self.history.receive(record)
        self.history.advance_to(int(snapshot.get("last_seq") or 0))

    async def _read_loop(self) -> None:
        reason = "the session host ended"
        try:
            assert self._reader is not None
            while True:
                line = await self._reader.readline()
                if not line:
                    reason = "the session host went away"
                    break
                message = protocol.loads(line)
                kind = message["type"]
                if kind == "event":
                    self._on_event(message)
                elif kind == "result":
                    self._on_result(message)
                elif kind == "bye":
                    reason = str(message.get("reason") or reason)
                    break
        except (ConnectionError, protocol.ProtocolError, ValueError) as e:
            reason = f"the connection to the session host broke: {e}"
        except asyncio.CancelledError:
            reason = "left the session"
            raise
        finally:
            self._end(reason)

    def _on_event(self, message: dict[str, Any]) -> None:
        record = protocol.decode(message["record"])
        if self.redact:
            record = guard.redact(record)
        now = time.time()
        self.latencies.append(max(0.0, now - record.time))
        del self.latencies[:-1000]
        self.arrived[record.seq] = now
        if len(self.arrived) > 1000:
            del self.arrived[min(self.arrived)]
        about = record.data.get("target") if isinstance(getattr(record, "data", None), dict) else None
        if self.joined_target and about not in (None, self.joined_target):
            return  # another JVM of the host's session: this front end follows one target
        state = protocol.decode(message.get("state"))
        stop = protocol.decode(message.get("stop"))
        if self.joined_target and about is None and getattr(stop, "target", None) not in (None, self.joined_target):
            state = None  # the state of another target (the host's current one): not this front end's
        if state is not None:
            self.session.state = SessionState(state)
            self.session.stop = stop
        self.history.receive(record)

    def _on_result(self, message: dict[str, Any]) -> None:
        future = self._pending.pop(message.get("id"), None)
        if future is None or future.done():
            return
        if message.get("ok"):
            future.set_result(protocol.decode(message.get("value")))
        else:
            future.set_exception(protocol.error_from_dict(message.get("error") or {}))

    def _end(self, reason: str) -> None:
        if self.ended.is_set():
            return
        self.end_reason = reason
        self.ended.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(SessionEnded(reason))
        self._pending.clear()
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
        if reason != "left the session":
            self.history.add("session_ended", f"{reason} — showing the session as it last was", Actor.TARGET)

    async def close(self) -> None:
        """Leave the session. The host and its debugger are not touched."""
        if self._writer is not None and not self.ended.is_set():
            with contextlib.suppress(Exception):
                self._writer.write(protocol.dumps(protocol.bye("left")))
                await asyncio.wait_for(self._writer.drain(), 1.0)
        if self._read_task is not None and not self._read_task.done():
            self._read_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._read_task
        self._end("left the session")

    # -- calls -----------------------------------------------------------------------------------------

    async def _send(self, message_for: Any) -> Any:
        await self.connect()
        if self.ended.is_set() or self._writer is None:
            raise SessionEnded(self.end_reason or "the session host ended")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self._writer.write(protocol.dumps(message_for(request_id)))
        except (ConnectionError, RuntimeError) as e:
            self._pending.pop(request_id, None)
            raise SessionEnded(f"the session host went away: {e}") from e
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            if not future.done() and not self.ended.is_set():  # stop the host's wait too (Ctrl+C, MCP cancel)
                with contextlib.suppress(Exception):
                    self._writer.write(protocol.dumps({"type": "cancel", "id": request_id}))
            self._pending.pop(request_id, None)
            raise

    async def call(self, method: str, **args: Any) -> Any:
        """Run one facade method on the host (unless this front end's own flags refuse it)."""
        known = guard.check_call(method, args, read_only=self.own_read_only, redact=self.redact)
        if known is not None:
            return known
        if isinstance(args.get("actor"), Actor):
            args["actor"] = args["actor"].value
        target = _ON_TARGET.get() or self.joined_target

        def message(request_id: int) -> dict[str, Any]:
            sent = protocol.command(request_id, method, args)
            if target:
                sent["target"] = target  # the host runs it in debugger.on_target(target)
            return sent

        value = await self._send(message)
        return guard.redact(value) if self.redact else value

    @contextlib.contextmanager
    def on_target(self, name: str | None) -> Iterator[None]:
        """Calls made in this block act on the host's target `name` (several JVMs in one session)."""
        token = _ON_TARGET.set(name or None)
        try:
            yield
        finally:
            _ON_TARGET.reset(token)

    async def execute_line(self, line: str) -> Any:
        """Run one command-catalog line on the host (the host keeps this client's thread/frame selection)."""
        return await self._send(lambda request_id: protocol.command(request_id, line=line))


def _forwarder(name: str, signature: inspect.Signature) -> Any:
    parameters = list(signature.parameters.values())

    async def method(self: RemoteDebugger, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        sent: dict[str, Any] = {}
        for key, value in list(bound.arguments.items())[1:]:
            kind = signature.parameters[key].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                sent.update(value)
            elif kind is not inspect.Parameter.VAR_POSITIONAL:
                sent[key] = value
        if is_action(signature) and sent.get("actor") is None:
            sent["actor"] = self.default_actor
        return await self.call(name, **sent)

    method.__name__ = name
    method.__qualname__ = f"RemoteDebugger.{name}"
    method.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    method.__doc__ = getattr(Debugger, name).__doc__
    return method


for _name, _signature in facade_methods(Debugger).items():
    setattr(RemoteDebugger, _name, _forwarder(_name, _signature))


def join_session(session: str | None = None, *, actor: Actor = Actor.AGENT, client: str = "mcp",
                 read_only: bool = False, redact: bool = False) -> RemoteDebugger:
    """For `tracepilot --mcp --join [SESSION]`: a debugger that connects on its first call, holding the MCP
    server's own --read-only and --redact on top of the host's."""
    return RemoteDebugger(session, actor=actor, client=client, read_only=read_only, redact=redact)


async def wait_for_record(remote: RemoteDebugger | Debugger, predicate: Any, timeout: float = 10.0,
                          since: int = 0) -> EventRecord:
    """The first history record after `since` that satisfies `predicate` (already there, or arriving)."""
    for record in remote.history.since(since):
        if predicate(record):
            return record
    loop = asyncio.get_running_loop()
    found: asyncio.Future[EventRecord] = loop.create_future()

    def listener(record: EventRecord) -> None:
        if record.seq > since and not found.done() and predicate(record):
            found.set_result(record)

    unsubscribe = remote.history.subscribe(listener)
    try:
        return await asyncio.wait_for(found, timeout)
    finally:
        unsubscribe()


__all__: Sequence[str] = ("MirrorHistory", "RemoteDebugger", "RemoteSession", "join_session", "wait_for_record")


def _tcp_address(session: str | None) -> tuple[str, int] | None:
    """`tcp://HOST:PORT` names a session shared over TCP; anything else is a local session name."""
    if not session or not session.startswith("tcp://"):
        return None
    host, _, port = session[len("tcp://"):].rpartition(":")
    if not host or not port.isdigit():
        raise ShareError(f"'{session}' is not tcp://HOST:PORT", "e.g. tcp://127.0.0.1:7777")
    return host, int(port)
