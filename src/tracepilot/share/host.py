"""A session host: publishes one `Debugger` on a private Unix socket so other front ends can watch and join.

On connect a client gets a full snapshot (status, breakpoints, watchers, marks, recent history), then
every history record as it is added. Its commands run on the SAME Debugger (or the same command catalog)
with the client's actor, so the shared history says who did what. A follow-only client may only look:
any Debugger method that takes an `actor` (the facade's mark of an action) is refused for it, and an
expression in one of its looks (`inspect`, `dump`, `referrers`) may not call methods, create objects or assign.

    host = SessionHost(debugger, "tui")
    await host.start()          # listed by `tracepilot sessions`
    ...
    await host.close()          # clients get `bye` and keep their last view

A client that leaves changes nothing here: its commands in flight finish, their answers are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import inspect
import logging
import os
import secrets
import socket
import struct
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..commands import unknown_arguments
from ..core.errors import DebuggerError, InvalidArgument
from ..core.model import Actor, EventRecord
from ..core.session import no_side_effects
from . import protocol, registry
from .hooks import PUBLISH_HOOKS, STREAM_HANDLERS
from .protocol import ControlRefused, ShareError
from .registry import SessionInfo

if TYPE_CHECKING:
    from ..core.debugger import Debugger

log = logging.getLogger("tracepilot.share")

HISTORY_IN_SNAPSHOT = 500  # recent records a new client gets; older ones via `events`
MAX_BUFFERED = 8 * 1024 * 1024  # bytes waiting for a client that does not read: beyond this it is dropped
HELLO_TIMEOUT = 10.0
TCP_HOST = "127.0.0.1"  # the TCP listener never binds beyond loopback
NOT_REMOTE = {"close"}  # a client ends its own connection, never the host's debugger
TARGET_KINDS = {"attach", "reconnect", "launch", "detach", "vm_death", "reset"}


@functools.cache  # the class never changes: read once per process (~15 ms), not per published session
def facade_methods(debugger_cls: type) -> dict[str, inspect.Signature]:
    """The Debugger's public async methods a client may call, with their signatures (shared: don't modify)."""
    methods = {}
    for name, fn in inspect.getmembers(debugger_cls, inspect.iscoroutinefunction):
        if not name.startswith("_") and name not in NOT_REMOTE:
            methods[name] = inspect.signature(fn)
    return methods


def is_action(signature: inspect.Signature) -> bool:
    """Methods that take an actor change the session (the facade's rule); the rest only look."""
    return "actor" in signature.parameters


class _FollowOnly:
    """The debugger as a follow-only client sees it: every action refused, every look allowed."""

    def __init__(self, debugger: Debugger, methods: dict[str, inspect.Signature]) -> None:
        self._debugger = debugger
        self._methods = methods

    def __getattr__(self, name: str) -> Any:
        signature = self._methods.get(name)
        if signature is not None and is_action(signature):
            async def refused(*args: Any, **kwargs: Any) -> Any:
                raise ControlRefused(name)
            return refused
        return getattr(self._debugger, name)


class _Client:
    def __init__(self, host: SessionHost, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.host = host
        self.reader = reader
        self.writer = writer
        self.name = "client"
        self.actor = Actor.PERSON
        self.follow_only = True  # until the hello says otherwise
        self.no_side_effects = False  # its evaluations may not invoke, create or assign (joined --read-only)
        self.live = False  # snapshot sent: events go straight out
        self.backlog: list[EventRecord] = []  # events that arrived while the snapshot was being built
        self.closed = False
        self.selection: Any = None  # catalog Selection for `line` commands
        self.tasks: set[asyncio.Task[None]] = set()

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self.writer.write(protocol.dumps(message))
        except (ConnectionError, RuntimeError):
            self.drop()
            return
        transport = self.writer.transport
        if transport is not None and transport.get_write_buffer_size() > MAX_BUFFERED:
            log.warning("share: dropping %s: it does not read its events", self.name)
            self.drop()

    def drop(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(Exception):
                self.writer.close()


class SessionHost:
    def __init__(self, debugger: Debugger, frontend: str, *, catalog: Any = None) -> None:
        from ..core.debugger import Debugger as DebuggerClass  # noqa: PLC0415

        self.debugger = debugger
        self.frontend = frontend
        self._catalog = catalog
        self._methods = facade_methods(DebuggerClass)
        self.clients: set[_Client] = set()
        self.info: SessionInfo | None = None
        self._server: asyncio.AbstractServer | None = None
        self._starting: asyncio.Task[Any] | None = None
        self._unsubscribe: Any = None
        self._clients_changed: asyncio.Condition | None = None
        self.closed = False
        self.tcp_token: str | None = None
        self._tcp_server: asyncio.AbstractServer | None = None
        self.on_close: list[Callable[[], Awaitable[None]]] = []  # what publish hooks started beside the session

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start_nowait(self) -> SessionInfo:
        """Bind and list the session now (connections queue), serve from the running loop."""
        session_id, path = registry.allocate(self.frontend)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket is born 0600; the 0700 directory guards the gap anyway
        try:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            sock.bind(str(path))
        except OSError as e:
            sock.close()
            raise ShareError(f"cannot create the session socket {path}: {e}",
                             "set TRACEPILOT_SHARE_DIR to a short private directory") from e
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        sock.listen(16)
        sock.setblocking(False)
        self.info = SessionInfo(session_id, str(path), os.getpid(), self.frontend, self._target(), time.time())
        registry.write_descriptor(self.info)
        self._unsubscribe = self.debugger.history.subscribe(self._on_record)
        self._starting = asyncio.get_running_loop().create_task(
            asyncio.start_unix_server(self._serve, sock=sock, limit=protocol.MAX_LINE))
        log.info("share: published %s at %s", session_id, path)
        for hook in PUBLISH_HOOKS:
            try:
                hook(self)
            except Exception:  # what runs beside the session never stops it from being shared
                log.exception("share: a publish hook failed")
        return self.info

    async def start(self) -> SessionInfo:
        info = self.start_nowait()
        await self.wait_started()
        return info

    async def wait_started(self) -> None:
        if self._server is None and self._starting is not None:
            self._server = await self._starting

    async def close(self, reason: str = "the session host ended") -> None:
        if self.closed:
            return
        self.closed = True
        for closer in self.on_close:
            with contextlib.suppress(Exception):
                await closer()
        if self._unsubscribe:
            self._unsubscribe()
        if self.info:
            registry.remove(self.info)
        for client in list(self.clients):
            client.send(protocol.bye(reason))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.writer.drain(), 1.0)
            client.drop()
        with contextlib.suppress(Exception):
            await self.wait_started()
        for server in (self._server, self._tcp_server):
            if server is not None:
                server.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(server.wait_closed(), 2.0)
        log.info("share: closed %s", self.info and self.info.id)

    async def wait_clients(self, count: int, timeout: float = 10.0) -> None:
        """Until exactly `count` clients are connected (tests, and front ends that show who watches)."""
        if self._clients_changed is None:
            self._clients_changed = asyncio.Condition()
        async with self._clients_changed:
            await asyncio.wait_for(self._clients_changed.wait_for(lambda: len(self.clients) == count), timeout)

    def _clients_now(self) -> None:
        if self._clients_changed is not None:
            condition = self._clients_changed

            async def notify() -> None:
                async with condition:
                    condition.notify_all()

            asyncio.get_running_loop().create_task(notify())

    def _target(self) -> str | None:
        target = self.debugger.target
        if isinstance(target, tuple) and len(target) == 2:
            return f"{target[0]}:{target[1]}"
        return str(target) if target else None

    # -- events ------------------------------------------------------------------------------------------

    def _on_record(self, record: EventRecord) -> None:
        try:
            self._publish(record)
        except Exception:  # the history drops a listener that raises: never lose the stream over one record
            log.exception("share: could not publish event %s", record.seq)

    def _publish(self, record: EventRecord) -> None:
        if record.kind in TARGET_KINDS and self.info is not None:
            target = self._target()
            if target != self.info.target:
                self.info.target = target
                with contextlib.suppress(OSError):
                    registry.write_descriptor(self.info)
        if not self.clients:
            return
        message = protocol.event(record, self.debugger.state, self.debugger.current_stop)
        for client in list(self.clients):
            if client.live:
                client.send(message)
            else:
                client.backlog.append(record)

    async def snapshot(self) -> dict[str, Any]:
        d = self.debugger

        async def quietly(call: Any, default: Any) -> Any:
            try:
                return await call
            except DebuggerError:
                return default

        status = await d.status()
        history = d.history.since(max(0, d.history.last_seq - HISTORY_IN_SNAPSHOT))
        return {
            "type": "snapshot", "protocol": protocol.PROTOCOL_VERSION,
            "session": dict(self.info.__dict__) if self.info else {},
            "status": protocol.encode(status),
            "breakpoints": protocol.encode(await quietly(d.breakpoint_list(), [])),
            "watches": protocol.encode(await quietly(d.watches(), [])),
            "marks": protocol.encode(await quietly(d.marks(), [])),
            "history": protocol.encode(history),
            "last_seq": d.history.last_seq,
            "sourcepath": list(d.sourcepath),
            "read_only": d.read_only,
            # records from before a second target came name no target: they are the first one's (dap --join --target)
            "first_target": next((t.name for t in await quietly(d.targets_list(), [])), None),
        }

    # -- one client --------------------------------------------------------------------------------------

    async def listen_tcp(self, port: int = 0) -> tuple[str, int, str]:
        """Also serve on a loopback TCP port (only when asked: `--share-tcp PORT`). Every client must
        present the returned token in its hello; the token is in the 0600 descriptor and printed once."""
        self.tcp_token = secrets.token_urlsafe(24)
        self._tcp_server = await asyncio.start_server(
            lambda r, w: self._serve(r, w, token=self.tcp_token), TCP_HOST, port, limit=protocol.MAX_LINE)
        bound = self._tcp_server.sockets[0].getsockname()[1]
        if self.info is not None:
            self.info.tcp = f"{TCP_HOST}:{bound}"
            self.info.token = self.tcp_token
            registry.write_descriptor(self.info)
        log.info("share: also listening on tcp://%s:%d (token required)", TCP_HOST, bound)
        return TCP_HOST, bound, self.tcp_token

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, token: str | None = None) -> None:
        client = _Client(self, reader, writer)
        if token is None and not _same_user(writer):
            writer.close()
            return
        try:
            line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT)
            if not line:  # `tracepilot sessions` checking that we listen
                return
            hello = protocol.loads(line)
            stream = STREAM_HANDLERS.get(hello["type"])
            if stream is not None:  # not a share client: a stream of another protocol (e.g. `tracepilot jdwp --join`)
                if token is not None and not hmac.compare_digest(str(hello.get("token", "")), token):
                    raise protocol.ProtocolError("wrong or missing token")
                await stream(self, hello, reader, writer)
                return
            if hello.get("type") != "hello":
                raise protocol.ProtocolError("the first message must be hello")
            if token is not None and not hmac.compare_digest(str(hello.get("token", "")), token):
                log.warning("share: refused a TCP client with a wrong or missing token")
                raise protocol.ProtocolError("wrong or missing token")
            client.name = str(hello.get("client", "client"))
            client.follow_only = bool(hello.get("follow_only", False))
            client.no_side_effects = hello.get("no_side_effects") is True
            client.actor = _actor(hello.get("actor"), Actor.PERSON)
            self.clients.add(client)
            snapshot = await self.snapshot()
            snapshot["follow_only"] = client.follow_only
            client.send(snapshot)
            for record in client.backlog:
                if record.seq > snapshot["last_seq"]:
                    client.send(protocol.event(record, self.debugger.state, self.debugger.current_stop))
            client.backlog.clear()
            client.live = True
            self._clients_now()
            log.info("share: %s joined %s (%s%s)", client.name, self.info and self.info.id, client.actor.value,
                     ", follow-only" if client.follow_only else "")
            await self._read_commands(client)
        except (TimeoutError, protocol.ProtocolError, ConnectionError, asyncio.IncompleteReadError,
                asyncio.LimitOverrunError, ValueError) as e:
            log.info("share: client %s dropped: %s", client.name, e)
        finally:
            self.clients.discard(client)
            client.drop()
            self._clients_now()

    async def _read_commands(self, client: _Client) -> None:
        while not client.closed:
            line = await client.reader.readline()
            if not line:
                return
            message = protocol.loads(line)
            kind = message["type"]
            if kind == "bye":
                return
            if kind == "command":
                task = asyncio.get_running_loop().create_task(self._command(client, message))
                client.tasks.add(task)
                task.add_done_callback(client.tasks.discard)
            elif kind == "cancel":
                for task in list(client.tasks):
                    if task.get_name() == f"share-cmd-{message.get('id')}":
                        task.cancel()
            else:
                raise protocol.ProtocolError(f"unexpected message {kind!r}")

    async def _command(self, client: _Client, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        task = asyncio.current_task()
        if task is not None:
            task.set_name(f"share-cmd-{request_id}")
        try:
            value = await self._execute(client, message)
        except asyncio.CancelledError:
            client.send(protocol.result_error(request_id, DebuggerError("cancelled")))
            return
        except Exception as e:  # every failure is an answer; the host keeps serving
            if not isinstance(e, DebuggerError):
                log.exception("share: %s failed", message.get("method") or message.get("line"))
            client.send(protocol.result_error(request_id, e))
            return
        client.send(protocol.result_ok(request_id, value))

    async def _execute(self, client: _Client, message: dict[str, Any]) -> Any:
        if client.follow_only:  # looks only: an expression in inspect/dump/referrers may not call methods either
            with no_side_effects("follow-only client"):
                return await self._run(client, message, _FollowOnly(self.debugger, self._methods))
        if client.no_side_effects:
            with no_side_effects("a client that joined with --read-only or --redact"):
                return await self._run(client, message, self.debugger)
        return await self._run(client, message, self.debugger)

    async def _run(self, client: _Client, message: dict[str, Any], debugger: Any) -> Any:
        if "line" in message:
            from ..core import catalog as catalog_module  # noqa: PLC0415

            catalog = self._catalog or catalog_module.default_catalog()
            if client.selection is None:
                client.selection = catalog_module.Selection()
            line = str(message["line"])
            if client.follow_only:  # a follow-only client runs no command that changes the program (`mutates`)
                with contextlib.suppress(DebuggerError):
                    command = catalog.parse(line).command
                    if command.mutates:
                        return catalog_module.CommandResult(False, str(ControlRefused(command.name)),
                                                            command=command.name)
            return await catalog.execute(debugger, line, client.actor, client.selection)
        method = str(message.get("method"))
        signature = self._methods.get(method)
        if signature is None:
            raise protocol.ProtocolError(f"no debugger action {method!r}")
        args = message.get("args") or {}
        if not isinstance(args, dict):
            raise protocol.ProtocolError("args must be an object")
        if is_action(signature):
            if client.follow_only:
                raise ControlRefused(method)
            args = dict(args, actor=_actor(args.get("actor"), client.actor))
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
        refused = None if takes_any else unknown_arguments(
            args, [name for name in signature.parameters if name != "self"], method)
        if refused is not None:  # a typo is never dropped: `conditon` would set an unconditional breakpoint
            raise InvalidArgument(refused, "nothing was done")
        try:
            signature.bind(None, **args)
        except TypeError as e:
            raise protocol.ProtocolError(f"{method}: {e}") from e
        target = message.get("target")  # several JVMs in one session: the client named one (core/targets.py)
        if target:
            with self.debugger.on_target(str(target)):
                return await getattr(debugger, method)(**args)
        return await getattr(debugger, method)(**args)


def _actor(value: Any, default: Actor) -> Actor:
    """A client speaks for a person or an agent, never for the target program."""
    if value in (Actor.AGENT.value, Actor.PERSON.value):
        return Actor(value)
    return default


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """The 0700 directory already keeps others out; SO_PEERCRED makes sure (Linux)."""
    sock = writer.get_extra_info("socket")
    peercred = getattr(socket, "SO_PEERCRED", None)
    if sock is None or peercred is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i")))
    except OSError:
        return True
    if uid != os.getuid():
        log.warning("share: refused a connection from uid %s", uid)
        return False
    return True


@contextlib.asynccontextmanager
async def published(debugger: Debugger, frontend: str) -> AsyncIterator[SessionHost | None]:
    """Publish a front end's debugger for as long as the block runs (never fails the front end)."""
    host: SessionHost | None = SessionHost(debugger, frontend)
    try:
        await host.start()
    except (ShareError, OSError) as e:
        log.warning("share: the session is not published: %s", e)
        host = None
    if host is not None:
        try:
            await _maybe_tcp(host)
        except (OSError, ValueError) as e:
            log.warning("share: no TCP listener: %s", e)
            print(f"tracepilot: cannot share over TCP: {e}", file=sys.stderr)
    try:
        yield host
    finally:
        if host is not None:
            await host.close()


def publish_soon(debugger: Debugger, frontend: str) -> SessionHost | None:
    """Publish from synchronous code running in the loop (the MCP server's debugger-created hook)."""
    host = SessionHost(debugger, frontend)
    try:
        host.start_nowait()
    except (ShareError, OSError) as e:
        log.warning("share: the session is not published: %s", e)
        return None
    if os.environ.get(TCP_ENV):
        task = asyncio.get_running_loop().create_task(_maybe_tcp(host))
        task.add_done_callback(lambda t: t.cancelled() or t.exception() and log.warning(
            "share: no TCP listener: %s", t.exception()))
    return host


TCP_ENV = "TRACEPILOT_SHARE_TCP"


async def _maybe_tcp(host: SessionHost) -> None:
    """`--share-tcp PORT` (TRACEPILOT_SHARE_TCP): also listen on 127.0.0.1:PORT, token required."""
    value = os.environ.get(TCP_ENV)
    if not value:
        return
    address, port, token = await host.listen_tcp(int(value))
    # stderr, never stdout (the MCP server's stdout carries its protocol)
    print(f"tracepilot: sharing on tcp://{address}:{port} — join with: tracepilot watch "
          f"tcp://{address}:{port} --token {token}", file=sys.stderr, flush=True)
