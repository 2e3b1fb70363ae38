"""An asyncio JDWP connection: handshake, pipelined requests, one ordered event stream.

Many requests may be in flight; replies are matched by id. Composite events go, in arrival order, to a
single consumer (`events()`). When the peer goes away every waiter learns it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from . import commands
from .constants import HANDSHAKE
from .errors import HandshakeError, JdwpTransportError, ProtocolError, VMDisconnected
from .packets import DEFAULT_MAX_PACKET, Codec, CommandPacket, PacketParser, ReplyPacket
from .spec import Command
from .wire import IdSizes

log = logging.getLogger(__name__)

_READ_CHUNK = 256 * 1024
RAW: Any = object()  # the "command" of a forwarded request: its reply is handed over undecoded
_DRAIN_ABOVE = 1024 * 1024
_EVENT_REQUEST_SET = (15, 1)  # (EventRequest.Set: its events may come before its reply, see _set_answered)


class ConnectError(JdwpTransportError):
    """Nothing JDWP could be reached at the address."""


class JdwpConnection:
    """One connection to a JDWP agent. Create it with `await JdwpConnection.connect(host, port)`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_packet: int) -> None:
        self._reader = reader
        self._writer = writer
        self.codec = Codec()
        self._parser = PacketParser(max_packet)
        self._pending: dict[int, tuple[Command, asyncio.Future[Any] | None]] = {}
        self._outgoing: list[Any] = []  # encoded requests (bytes) and places held for some (HeldPlace)
        self._flush_scheduled = False
        self._held = 0  # places in _outgoing still held (hold_place)
        self._events: deque[Any] = deque()
        self._events_ready = asyncio.Event()
        self._closed = asyncio.Event()  # (for wait_closed)
        self._is_closed = False  # the same, read on every packet and request: a plain flag is cheaper than is_set()
        self.close_reason: JdwpTransportError | None = None
        self.protocol_errors: list[str] = []
        self.unmatched_replies = 0
        self._protocol: _PacketProtocol | None = None
        self._event_handler: Callable[[Any], None] | None = None
        # Events held while an EventRequest.Set is answered (_set_answered): the packet ids of the Sets in
        # flight, the composites held, and whether their release is scheduled.
        self._sets_in_flight: set[int] = set()
        self._held_events: deque[Any] = deque()
        self._release_scheduled = False

    # -- opening -------------------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls, host: str, port: int, timeout: float = 10.0, max_packet: int = DEFAULT_MAX_PACKET
    ) -> JdwpConnection:
        """Open, handshake and learn the ID sizes; every failure is a `ConnectError`/`HandshakeError`."""
        address = f"{host}:{port}"
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, limit=_READ_CHUNK), timeout)
        except ConnectionRefusedError:
            raise ConnectError(f"nothing is listening on {address} (connection refused)") from None
        except TimeoutError:
            raise ConnectError(f"no answer from {address} within {timeout:g}s (host unreachable or filtered)") from None
        except OSError as exc:
            raise ConnectError(f"cannot connect to {address}: {exc.strerror or exc}") from None
        return await cls._open(reader, writer, address, timeout, max_packet)

    @classmethod
    async def over_socket(
        cls, sock: socket.socket, address: str, timeout: float = 10.0, max_packet: int = DEFAULT_MAX_PACKET
    ) -> JdwpConnection:
        """A connection over a socket the JVM opened to us (a launch with `server=n`): same handshake."""
        try:
            reader, writer = await asyncio.open_connection(sock=sock, limit=_READ_CHUNK)
        except OSError as exc:
            sock.close()
            raise ConnectError(f"cannot use the connection from {address}: {exc.strerror or exc}") from None
        return await cls._open(reader, writer, address, timeout, max_packet)

    @classmethod
    async def _open(cls, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str, timeout: float,
                    max_packet: int) -> JdwpConnection:
        # The IDSizes request (it holds no IDs) travels right behind the handshake: one round trip less.
        codec = Codec()
        sizes_id, sizes_request = codec.encode_request(commands.VirtualMachine.IDSizes)
        try:
            await cls._handshake(reader, writer, address, timeout, then=sizes_request)
        except BaseException:
            writer.close()
            raise
        conn = cls(reader, writer, max_packet)
        conn.codec = codec
        sizes_reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        conn._pending[sizes_id] = (commands.VirtualMachine.IDSizes, sizes_reply)
        conn._take_over_transport(reader, writer)
        try:
            try:
                sizes = await asyncio.wait_for(sizes_reply, timeout)
            except TimeoutError:
                raise TimeoutError(f"the VM did not answer VirtualMachine.IDSizes within {timeout:g}s") from None
            conn.codec.sizes = IdSizes(
                sizes.field_id_size, sizes.method_id_size, sizes.object_id_size,
                sizes.reference_type_id_size, sizes.frame_id_size,
            )
        except BaseException:
            await conn.close()
            raise
        return conn

    @staticmethod
    async def _handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, address: str, timeout: float,
                         then: bytes = b"") -> None:
        writer.write(HANDSHAKE + then)
        try:
            answer = await asyncio.wait_for(reader.readexactly(len(HANDSHAKE)), timeout)
        except TimeoutError:
            raise HandshakeError(
                f"{address} accepted the connection but sent no JDWP handshake within {timeout:g}s: "
                "it is not a JDWP agent, or the JVM is stuck"
            ) from None
        except asyncio.IncompleteReadError as exc:
            if exc.partial:
                raise HandshakeError(
                    f"{address} answered {exc.partial[:40]!r} and closed: not a JDWP agent"
                ) from None
            raise HandshakeError(
                f"{address} closed the connection during the handshake: "
                "another debugger may already be attached, or it is not a JDWP agent"
            ) from None
        except OSError as exc:
            raise HandshakeError(f"{address} dropped the connection during the handshake ({exc})") from None
        if answer != HANDSHAKE:
            raise HandshakeError(f"{address} answered {answer!r} instead of the JDWP handshake: not a JDWP agent")

    # -- requests ------------------------------------------------------------------------------------

    @property
    def sizes(self) -> IdSizes:
        return self.codec.sizes

    @property
    def is_closed(self) -> bool:
        return self._is_closed

    def send_nowait(self, command: Command, *args: Any, **kwargs: Any) -> asyncio.Future[Any]:
        """Write a request now and return the future of its reply (for pipelining)."""
        future = self._request(command, args, kwargs, self._outgoing)
        # Requests written in one turn of the event loop leave in one write (one syscall, one segment):
        # a burst such as frames + values + resume costs the VM one read instead of three.
        self._schedule_flush()
        return future

    def send_unanswered(self, command: Command, *args: Any, **kwargs: Any) -> None:
        """Write a request whose reply nobody waits for (a resume: the JVM runs a connection's commands in
        order, so what is sent next is handled after it). No future is made for it: its reply is dropped, and
        an error in it is logged."""
        self._request(command, args, kwargs, self._outgoing, answered=False)
        self._schedule_flush()

    def write_unanswered(self, commands: list[tuple[Command, tuple[Any, ...]]]) -> None:
        """send_unanswered for each (command, args), all written now in one write (a resume's: the JVM runs
        on while the caller's bookkeeping runs; no end-of-turn flush is scheduled for them)."""
        for command, args in commands:
            self._request(command, args, {}, self._outgoing, answered=False)
        self._flush()

    def hold_place(self) -> HeldPlace:
        """Hold a place in the write queue for requests made later: whatever is sent after this leaves after
        them (the JVM answers in that order), and waits until the place is released. (A stop's first reads
        hold their place before the stop is handed over and are made and written just after: core/inspect.)"""
        place = HeldPlace(self)
        self._outgoing.append(place)
        self._held += 1
        return place

    def _request(self, command: Command, args: tuple[Any, ...], kwargs: dict[str, Any],
                 into: list[Any], answered: bool = True) -> asyncio.Future[Any]:
        if self._is_closed:
            raise self._disconnected()
        packet_id, data = self.codec.encode_request(command, args, kwargs)
        if not answered:  # (send_unanswered: no future)
            self._pending[packet_id] = (command, None)
            into.append(data)
            return None  # type: ignore[return-value]
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[packet_id] = (command, future)
        if command.set_id == _EVENT_REQUEST_SET[0] and command.cmd_id == _EVENT_REQUEST_SET[1]:
            self._sets_in_flight.add(packet_id)
        future.packet_id = packet_id  # type: ignore[attr-defined]  # lets send() forget it on timeout
        into.append(data)
        return future

    def _schedule_flush(self) -> None:
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def send_raw(self, set_id: int, cmd_id: int, data: bytes) -> asyncio.Future[ReplyPacket]:
        """Write a request whose body is already encoded; the future gets the undecoded `ReplyPacket`
        (error code and body), whatever the error code. For a front end that forwards another debugger's
        commands: its packet ids are its own, this connection numbers the requests it sends."""
        if self._is_closed:
            raise self._disconnected()
        packet_id, packet = self.codec.encode_raw(set_id, cmd_id, data)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[packet_id] = (RAW, future)
        if (set_id, cmd_id) == _EVENT_REQUEST_SET:
            self._sets_in_flight.add(packet_id)
        self._outgoing.append(packet)
        self._schedule_flush()
        return future

    def _flush(self) -> None:
        self._flush_scheduled = False
        queued = self._outgoing
        if not queued:
            return
        if self._held:  # written up to the first place still held; the rest waits for its release
            cut = next(i for i, item in enumerate(queued) if isinstance(item, HeldPlace) and item.held)
            queued, self._outgoing = queued[:cut], queued[cut:]
        else:
            self._outgoing = []
        if len(queued) == 1 and isinstance(queued[0], bytes):
            data = queued[0]
        else:
            data = b"".join(part for item in queued
                            for part in (item.requests if isinstance(item, HeldPlace) else (item,)))
        if not data or self._is_closed:
            return
        self._writer.write(data)
        if self._writer.transport.get_write_buffer_size() > _DRAIN_ABOVE:
            # Backpressure only for huge bursts (class redefinition, big batches); normal requests never wait.
            asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        if self._protocol is not None:
            await self._protocol.writable.wait()

    async def send(self, command: Command, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        """Send a command and wait for its decoded reply (a namedtuple, or None for empty replies)."""
        future = self.send_nowait(command, *args, **kwargs)
        try:
            if timeout is None:
                return await future
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise TimeoutError(f"the VM did not answer {command.name} within {timeout:g}s") from None
        finally:
            if not future.done() or future.cancelled():
                # Timed out or cancelled: forget the request so its late reply is dropped, not leaked.
                self._pending.pop(future.packet_id, None)  # type: ignore[attr-defined]
                if future.packet_id in self._sets_in_flight:  # type: ignore[attr-defined]
                    self._set_answered(future.packet_id)  # type: ignore[attr-defined]  # (never answered)

    # -- events --------------------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Any]:
        """Composite events in arrival order; ends when the connection closes. One consumer only."""
        while True:
            while not self._events:
                self._events_ready.clear()
                await self._events_ready.wait()
            item = self._events[0]
            if item is None:
                return  # the end stays queued, visible to a later call
            self._events.popleft()
            yield item

    def set_event_handler(self, handler: Callable[[Any], None] | None) -> None:
        """Hand composites to handler(composite) as they arrive, in order, instead of queueing them for
        events() (saves an event-loop step per event). Events already queued are handed over first."""
        self._event_handler = handler
        if handler is not None:
            while self._events and self._events[0] is not None:
                handler(self._events.popleft())

    def flush(self) -> None:
        """Write queued requests now instead of at the end of this event-loop turn."""
        self._flush()

    def queued_events(self) -> list[Any]:
        """Events received but not yet consumed (None marks the end of the stream)."""
        return list(self._events)

    async def wait_for_event(self, timeout: float) -> bool:
        """Wait until at least one event (or the end) is queued; False on timeout."""
        if self._events:
            return True
        self._events_ready.clear()
        try:
            await asyncio.wait_for(self._events_ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def wait_for_queued(self, match: Callable[[Any], bool], timeout: float) -> bool:
        """Wait until a queued event composite satisfies `match` (other events may come first); False on timeout
        or at the end of the stream."""
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            if any(e is not None and match(e) for e in self._events):
                return True
            if self._events and self._events[-1] is None:
                return False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._events_ready.clear()
            try:
                await asyncio.wait_for(self._events_ready.wait(), remaining)
            except TimeoutError:
                return False

    # -- closing -------------------------------------------------------------------------------------

    def _disconnected(self) -> VMDisconnected:
        reason = self.close_reason
        if isinstance(reason, VMDisconnected):
            return reason
        return VMDisconnected(f"connection to the VM is closed ({reason})" if reason else "connection to the VM is closed")

    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        if not self._is_closed:
            self._flush()  # requests queued in this turn (a last resume) still leave
            self._shutdown(VMDisconnected("connection closed by the debugger"))
        await asyncio.sleep(0)  # let the transport finish closing

    def _shutdown(self, reason: JdwpTransportError) -> None:
        if self._is_closed:
            return
        self.close_reason = reason
        self._is_closed = True
        self._closed.set()
        with contextlib.suppress(Exception):
            self._writer.close()
        error = self._disconnected()
        for _command, future in list(self._pending.values()):
            if future is not None and not future.done():
                future.set_exception(error)
        self._pending.clear()
        self._sets_in_flight.clear()
        while self._held_events:  # (what came before the end is handed over before it)
            self._deliver_event(self._held_events.popleft())
        self._events.append(None)
        self._events_ready.set()

    def _take_over_transport(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """After the handshake, bytes go straight from the transport to the parser (no reader task:
        one event-loop step less per packet). Bytes the stream reader already holds are parsed first."""
        transport = writer.transport
        leftover = bytes(getattr(reader, "_buffer", b""))
        at_eof = reader.at_eof() or (reader.exception() is not None)
        self._protocol = _PacketProtocol(self)
        transport.set_protocol(self._protocol)
        if hasattr(transport, "is_reading") and not transport.is_reading() and not transport.is_closing():
            transport.resume_reading()
        if leftover:
            self._on_data(leftover)
        if at_eof:
            self._on_lost(None)

    def _on_data(self, data: bytes) -> None:
        if self._is_closed:
            return
        try:
            self._parser.feed(data)
            # (an event's handler runs from here up to its first wait, and may close the connection)
            while not self._is_closed and (packet := self._parser.next_packet()) is not None:
                self._dispatch(packet)
        except ProtocolError as exc:
            log.error("JDWP stream corrupted: %s", exc)
            self._shutdown(VMDisconnected(f"the VM sent malformed data and the connection was dropped: {exc}"))

    def _on_lost(self, exc: BaseException | None) -> None:
        if exc is None:
            self._shutdown(VMDisconnected("the VM closed the connection"))
        else:
            self._shutdown(VMDisconnected(f"connection to the VM lost: {exc}"))

    def _dispatch(self, packet: ReplyPacket | CommandPacket) -> None:
        if isinstance(packet, ReplyPacket):
            self._dispatch_reply(packet)
            if self._sets_in_flight and packet.id in self._sets_in_flight:
                self._set_answered(packet.id)  # (after its future: the requester runs before held events)
            return
        try:
            composite = self.codec.decode_events(packet)
        except ProtocolError as exc:
            self.protocol_errors.append(str(exc))
            log.warning("dropped an undecodable packet from the VM: %s", exc)
            return
        if self._sets_in_flight or self._release_scheduled:
            self._held_events.append(composite)  # (see _set_answered)
            return
        self._deliver_event(composite)

    # An event may name a request its requester has not seen the reply of: the JDWP agent writes a Set's reply
    # from its command thread and the first hit's event from the event thread, to one socket, so the event can
    # come just before the reply, or in the same read, and an event is handled as its packet is read (handlers
    # start eagerly). It was taken for nobody's and resumed: a hit lost, and the only stop of a request that
    # fires once (a hit count of 1, an IDE's pass count); JDI itself loses such events (jdwpfront/after_set.py).
    # Here events that come while a Set is in flight are held, and handed over, in order, a turn after the last
    # such reply: its requester (whose future was set first) has filed the id by then -- as every requester here
    # does, in the step its reply wakes it in.
    def _set_answered(self, packet_id: int) -> None:
        self._sets_in_flight.discard(packet_id)
        # (also with nothing held yet: an event later in this read waits for the requester all the same)
        if not self._sets_in_flight and not self._release_scheduled and not self._is_closed:
            self._release_scheduled = True
            asyncio.get_running_loop().call_soon(self._release_held_events)

    def _release_held_events(self) -> None:
        self._release_scheduled = False
        held = self._held_events
        while held and not self._sets_in_flight and not self._is_closed:  # (a handler may make a request)
            self._deliver_event(held.popleft())

    def _dispatch_reply(self, packet: ReplyPacket) -> None:
        entry = self._pending.pop(packet.id, None)
        if entry is None:
            self.unmatched_replies += 1  # a reply to a request that timed out or was cancelled
            return
        command, future = entry
        if future is None:  # (send_unanswered)
            if packet.error_code:
                log.debug("%s failed: JDWP error %d", command.name, packet.error_code)
            return
        if future.done():
            return
        if command is RAW:
            future.set_result(packet)
            return
        try:
            future.set_result(self.codec.decode_reply(command, packet))
        except JdwpTransportError as exc:
            future.set_exception(exc)

    def _deliver_event(self, composite: Any) -> None:
        if self._event_handler is not None:
            try:
                self._event_handler(composite)
            except Exception:  # the consumer's bug must not break the stream
                log.exception("event handler failed")
            return
        self._events.append(composite)
        self._events_ready.set()


class HeldPlace:
    """A place in a connection's write queue (JdwpConnection.hold_place): its requests are made later, and
    leave before everything sent after the place was taken."""

    __slots__ = ("_conn", "held", "requests")

    def __init__(self, conn: JdwpConnection) -> None:
        self._conn = conn
        self.held = True
        self.requests: list[bytes] = []

    def send_nowait(self, command: Command, *args: Any, **kwargs: Any) -> asyncio.Future[Any]:
        """A request at this place; it leaves when the place is released."""
        if not self.held:
            raise RuntimeError("this place in the write queue was released: use the connection's send_nowait")
        return self._conn._request(command, args, kwargs, self.requests)  # noqa: SLF001

    def release(self) -> None:
        """Write this place's requests now, and whatever waited behind them (up to another held place)."""
        if self.held:
            self.held = False
            self._conn._held -= 1  # noqa: SLF001
            self._conn.flush()


class _PacketProtocol(asyncio.Protocol):
    """Hands every byte the VM sends to its connection's parser, and tells it when the stream ends."""

    def __init__(self, conn: JdwpConnection) -> None:
        self.conn = conn
        self.writable = asyncio.Event()
        self.writable.set()

    def data_received(self, data: bytes) -> None:
        self.conn._on_data(data)

    def eof_received(self) -> bool:
        return False  # close the transport; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.writable.set()
        self.conn._on_lost(exc)

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()
