"""One guest debugger (IntelliJ, Eclipse, jdb, any JDI program) speaking JDWP to the session's JVM.

After the handshake every command packet the guest sends is forwarded over the session's one connection with a
packet id of the connection's, and its reply goes back under the guest's own id; object, thread, class and
request ids pass through unchanged. A few commands are the front end's own business (see `_SPECIAL`): the ones
that would touch what the session holds (suspend and resume, clearing all breakpoints, holding events, dispose,
exit), the ones that would show the session's probes, and, in a read-only session, the ones with side effects.

Nothing in the command path awaits a reply: commands go out in the order they came (JDWP answers a command
sent behind an invocation while the invocation runs), and each reply is written back when it arrives. The one
exception is StackFrame.PopFrames: it goes through the session's pop lock and parks the thread first
(core/instrument/pops.py), and the guest's commands sent after it wait for it, so the JVM still runs them in
the order the guest sent them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from ..core.errors import DebuggerError, TargetError
from ..jdwp import EventKind, commands
from ..jdwp.constants import HANDSHAKE
from ..jdwp.errors import ErrorCode, JdwpError, ProtocolError, VMDisconnected
from ..jdwp.events import encode_composite
from ..jdwp.packets import (
    COMPOSITE_CMD,
    EVENT_SET,
    CommandPacket,
    PacketParser,
    ReplyPacket,
    frame_command,
    frame_reply,
)
from ..jdwp.wire import Reader, Writer
from . import policy
from .after_set import EventsAfterSet
from .holds import GuestHolds, Send

log = logging.getLogger("tracepilot.jdwpfront")

C = commands
HANDSHAKE_TIMEOUT = 10.0
Handler = Callable[["GuestConnection", CommandPacket], None]


class GuestConnection:
    """Serves one guest until it disposes, exits, disconnects, or the session's VM goes away."""

    def __init__(self, debugger: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, name: str,
                 allow_exit: bool = False, read_only: bool = False) -> None:
        self.debugger = debugger
        self.reader = reader
        self.writer = writer
        self.name = name
        self.allow_exit = allow_exit
        self.own_read_only = read_only  # joined with --read-only: on top of the session's own
        self.holds = GuestHolds()
        self.pinned: Counter[int] = Counter()  # objects the guest kept from collection (DisableCollection)
        self.guest: Any = None  # core.foreign.ForeignClient, once the handshake is done
        self._event_ids = itertools.count(1)
        self._events_out = EventsAfterSet(self._write_event)  # (JDI drops an event right behind a Set's reply)
        self._behind_pop: deque[CommandPacket] | None = None  # commands sent while a pop is under way
        self._pop_task: asyncio.Task[None] | None = None
        self._done = asyncio.Event()
        self.leaving = "disconnected"

    @property
    def read_only(self) -> bool:
        return self.own_read_only or self.guest.read_only

    # -- the connection ---------------------------------------------------------------------------------

    async def serve(self) -> None:
        if not await self._handshake():
            return
        open_guest = getattr(self.debugger, "foreign_client", None)
        if open_guest is None:  # a session joined from another process: its owner offers JDWP, not us
            log.warning("jdwp: %s refused: this process does not own the session's JVM connection", self.name)
            self.writer.close()
            return
        try:
            self.guest = open_guest(self.name, self._on_events)
        except DebuggerError as exc:
            log.warning("jdwp: %s refused: %s", self.name, exc)
            self.writer.close()
            return
        self.guest.holds = self.holds.count
        conn = self.guest.conn
        self.sizes = conn.sizes
        self.guest.note("client_attach", "a JDWP debugger attached through the JDWP front end")
        watch = asyncio.ensure_future(self._end_with_vm(conn))
        parser = PacketParser()
        self._leaving_task: asyncio.Future[None] | None = None
        try:
            while not self._done.is_set():
                data = await self.reader.read(256 * 1024)
                if not data:
                    break
                parser.feed(data)
                while (packet := parser.next_packet()) is not None and not self._done.is_set():
                    if isinstance(packet, CommandPacket):
                        self._command(packet)
        except (ConnectionError, ProtocolError) as exc:
            log.info("jdwp: %s dropped: %s", self.name, exc)
        finally:
            watch.cancel()
            await self._leave()
            if self._leaving_task is not None:
                await self._leaving_task

    async def _handshake(self) -> bool:
        try:
            greeting = await asyncio.wait_for(self.reader.readexactly(len(HANDSHAKE)), HANDSHAKE_TIMEOUT)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            self.writer.close()
            return False
        if greeting != HANDSHAKE:
            log.info("jdwp: %s sent %r instead of the JDWP handshake", self.name, greeting[:20])
            self.writer.close()
            return False
        self.writer.write(HANDSHAKE)
        return True

    async def _end_with_vm(self, conn: Any) -> None:
        await conn.wait_closed()
        self.leaving = "the session's VM went away"
        self._finish()

    def _finish(self) -> None:
        self._done.set()
        self._events_out.close()
        with contextlib.suppress(Exception):
            self.writer.close()

    def _go(self) -> None:
        """Leave now (the reply already written goes out before the socket closes); the read loop then ends."""
        self._leaving_task = asyncio.ensure_future(self._leave())

    async def _leave(self) -> None:
        """The guest is gone (or told to go): its requests are cleared and whatever it held is resumed."""
        guest = self.guest
        if guest is None or guest.closed:
            if guest is None:
                self._finish()
            return
        conn = guest.conn
        requests = dict(guest.requests)
        guest.close()  # its events from now on are nobody's: the session resumes them by their policy
        if not conn.is_closed:
            sends = [conn.send_nowait(C.EventRequest.Clear, kind, request) for request, kind in requests.items()]
            # (A thread on its way to parking after a pop has the guest's share lent: given back there, not here.)
            releases = guest.resumes_past_parking(self.holds.release_everything())
            sends += [conn.send_nowait(command, *args) for command, args in releases]
            # (a JVM forgets a disposing debugger's pins; the session's connection stays, so they are undone)
            sends += [conn.send_nowait(C.ObjectReference.EnableCollection, obj)
                      for obj, times in self.pinned.items() for _ in range(times)]
            conn.flush()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), 5.0)
            guest.moved(None)
        guest.note("client_detach", f"the JDWP debugger left ({self.leaving}); its requests were cleared and the "
                   "threads it held resumed")
        self._finish()

    # -- commands ---------------------------------------------------------------------------------------

    def _command(self, packet: CommandPacket) -> None:
        if self._behind_pop is not None:
            self._behind_pop.append(packet)
            return
        key = (packet.set_id, packet.cmd_id)
        if log.isEnabledFor(logging.DEBUG):
            known = C.ALL_COMMANDS.get(key)
            log.debug("jdwp: %s sent %s (%d bytes)", self.name, known.name if known else key, len(packet.data))
        try:
            if self.read_only and key in policy.SIDE_EFFECTS:
                self._reply(packet.id, ErrorCode.NOT_IMPLEMENTED)
                self.guest.note("client_refused", f"{policy.SIDE_EFFECTS[key]} refused: the session is read-only")
                return
            handler = _SPECIAL.get(key)
            if handler is not None:
                handler(self, packet)
            else:
                self._forward(packet)
        except (ProtocolError, TypeError, ValueError) as exc:  # a body we could not read: say so, go on
            log.info("jdwp: %s sent a malformed %s: %s", self.name, key, exc)
            self._reply(packet.id, ErrorCode.ILLEGAL_ARGUMENT)

    def _forward(self, packet: CommandPacket, data: bytes | None = None,
                 then: Callable[[ReplyPacket], bytes | None] | None = None) -> None:
        try:
            future = self.guest.conn.send_raw(packet.set_id, packet.cmd_id, packet.data if data is None else data)
        except Exception:  # the VM's connection closed: the watcher ends this guest
            self._reply(packet.id, ErrorCode.VM_DEAD)
            return

        def answered(f: asyncio.Future[ReplyPacket]) -> None:
            if f.cancelled() or f.exception() is not None:
                self._reply(packet.id, ErrorCode.VM_DEAD)
                return
            reply = f.result()
            body = reply.data
            if then is not None:
                try:
                    changed = then(reply)
                except (ProtocolError, TypeError, ValueError) as exc:
                    log.warning("jdwp: could not adjust the reply to %s: %s", (packet.set_id, packet.cmd_id), exc)
                    changed = None
                body = body if changed is None else changed
            self._reply(packet.id, reply.error_code, body)

        future.add_done_callback(answered)

    def _send_all(self, packet_id: int, sends: list[Send]) -> None:
        """Commands the front end made of one guest command; the guest's reply comes after the last one."""
        conn = self.guest.conn
        if not sends or conn.is_closed:
            self._reply(packet_id)
            return
        for command, args in sends[:-1]:
            conn.send_unanswered(command, *args)
        last = conn.send_nowait(sends[-1][0], *sends[-1][1])  # (its reply answers the guest's command)
        conn.flush()
        last.add_done_callback(lambda f: self._reply(
            packet_id, ErrorCode.NONE if f.cancelled() or f.exception() is None else _code(f.exception())))

    def _reply(self, packet_id: int, error: int = ErrorCode.NONE, data: bytes = b"") -> None:
        if self._done.is_set():
            return
        with contextlib.suppress(Exception):
            self.writer.write(frame_reply(packet_id, int(error), data if not error else b""))

    def _on_events(self, composite: Any) -> None:
        """The guest's events (core/foreign.py hands them over in arrival order)."""
        thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
        # A thread that ends holds nothing of the guest's any more, but for this event's own suspension: the
        # thread waits in it, and the guest's resume of the event set must release it (forgotten after it was
        # counted, its ThreadReference.Resume sent nothing: the thread never ended, the JVM never exited).
        for event in composite.events:
            if type(event).KIND == EventKind.THREAD_DEATH:
                self.holds.forget_thread(event.thread)
        self.holds.event(composite.suspend_policy, thread)
        w = Writer(self.sizes)
        encode_composite(w, composite)
        self._events_out.send(frame_command(next(self._event_ids), EVENT_SET, COMPOSITE_CMD, w.buf))

    def _write_event(self, frame: bytes) -> None:
        if self._done.is_set():
            return
        with contextlib.suppress(Exception):
            self.writer.write(frame)

    # -- the commands handled here ------------------------------------------------------------------------

    def _dispose(self, packet: CommandPacket) -> None:
        self.leaving = "VirtualMachine.Dispose"
        self._reply(packet.id)
        self._go()

    def _exit(self, packet: CommandPacket) -> None:
        if self.allow_exit and not self.read_only:
            self.guest.note("client_exit", "ended the JVM (VirtualMachine.Exit)")
            self._forward(packet)
            return
        self._reply(packet.id, ErrorCode.NOT_IMPLEMENTED)
        self.guest.note("client_refused", "VirtualMachine.Exit refused: the JVM belongs to the session; the "
                        "debugger was detached instead")
        self.leaving = "VirtualMachine.Exit, refused"
        self._go()

    def _suspend_vm(self, packet: CommandPacket) -> None:
        self.holds.suspend_vm()
        self._forward(packet)

    def _resume_vm(self, packet: CommandPacket) -> None:
        sends = self.guest.resumes_past_parking(self.holds.resume_vm())
        self._released(None)
        self._send_all(packet.id, sends)

    def _suspend_thread(self, packet: CommandPacket) -> None:
        thread = C.ThreadReference.Suspend.decode_request(Reader(packet.data, self.sizes)).thread
        self.holds.suspend_thread(thread)
        self._forward(packet)

    def _resume_thread(self, packet: CommandPacket) -> None:
        thread = C.ThreadReference.Resume.decode_request(Reader(packet.data, self.sizes)).thread
        sends = self.guest.resumes_past_parking(self.holds.resume_thread(thread))
        self._released([thread])
        self._send_all(packet.id, sends)

    def _suspend_count(self, packet: CommandPacket) -> None:
        # The guest's own count, the suspensions it can undo: a debugger that resumes "until the count is 0"
        # would otherwise spin on a thread the agent holds.
        thread = C.ThreadReference.SuspendCount.decode_request(Reader(packet.data, self.sizes)).thread
        self._reply(packet.id, data=self.holds.count(thread).to_bytes(4, "big"))

    def _released(self, threads: list[int] | None) -> None:
        """Stops of the guest whose threads it no longer holds are over."""
        candidates = list(self.guest.stops) if threads is None else threads
        self.guest.moved([t for t in candidates if self.holds.count(t) == 0])

    def _no_op(self, packet: CommandPacket) -> None:
        # HoldEvents/ReleaseEvents would hold the session's events too: the guest's are not held.
        self._reply(packet.id)

    def _set_request(self, packet: CommandPacket) -> None:
        kind, data = policy.event_request(packet.data, self.sizes)

        def owned(reply: ReplyPacket) -> None:
            if not reply.error_code:
                self.guest.own(int.from_bytes(reply.data[:4], "big", signed=True), kind)
                self._events_out.set_answered()

        self._forward(packet, data, then=owned)

    def _clear_request(self, packet: CommandPacket) -> None:
        request = C.EventRequest.Clear.decode_request(Reader(packet.data, self.sizes))
        if request.request_id not in self.guest.requests:
            self._reply(packet.id)  # not the guest's: never clear a request of the session's
            return
        self.guest.disown(request.request_id)
        self._forward(packet)

    def _clear_all_breakpoints(self, packet: CommandPacket) -> None:
        mine = [r for r, kind in self.guest.requests.items() if kind == EventKind.BREAKPOINT]
        for request in mine:
            self.guest.disown(request)
        self._send_all(packet.id, [(C.EventRequest.Clear, (EventKind.BREAKPOINT, r)) for r in mine])

    def _all_classes(self, packet: CommandPacket) -> None:
        command = C.ALL_COMMANDS[(packet.set_id, packet.cmd_id)]
        self._forward(packet, then=lambda reply: policy.without_probe_classes(command, reply.data, self.sizes))

    def _visible_classes(self, packet: CommandPacket) -> None:
        self._forward(packet, then=lambda reply: policy.without_probe_types(reply.data, self.sizes,
                                                                              self.guest.is_probe_type))

    def _classes_by_signature(self, packet: CommandPacket) -> None:
        if policy.is_probe_signature(packet.data, self.sizes):
            self._reply(packet.id, data=(0).to_bytes(4, "big"))
            return
        self._forward(packet)

    def _capabilities(self, packet: CommandPacket) -> None:
        if not self.read_only:
            self._forward(packet)
            return
        self._forward(packet, then=lambda reply: policy.read_only_capabilities(reply.data, self.sizes))

    def _pin(self, packet: CommandPacket) -> None:
        obj = C.ObjectReference.DisableCollection.decode_request(Reader(packet.data, self.sizes)).object

        def pinned(reply: ReplyPacket) -> None:
            if not reply.error_code:
                self.pinned[obj] += 1

        self._forward(packet, then=pinned)

    def _unpin(self, packet: CommandPacket) -> None:
        obj = C.ObjectReference.EnableCollection.decode_request(Reader(packet.data, self.sizes)).object
        if self.pinned[obj] <= 0:
            self.pinned.pop(obj, None)
            self._reply(packet.id)  # not the guest's pin: the session's marks keep theirs
            return
        self.pinned[obj] -= 1
        if not self.pinned[obj]:
            del self.pinned[obj]
        self._forward(packet)

    def _redefine(self, packet: CommandPacket) -> None:
        request = C.VirtualMachine.RedefineClasses.decode_request(Reader(packet.data, self.sizes))
        probed = self.guest.instrumented([c.ref_type for c in request.classes])
        if probed:
            self._reply(packet.id, ErrorCode.NOT_IMPLEMENTED)
            self.guest.note("client_refused", f"hot swap of {', '.join(probed)} refused: the session has in-JVM "
                            "probes in it (the agent's hotswap keeps them)")
            return
        self._forward(packet)

    def _invoke(self, packet: CommandPacket) -> None:
        def done(_reply: ReplyPacket) -> None:
            self.guest.moved([])  # frames read before the call are stale after it
        self._forward(packet, policy.single_threaded(packet.data), then=done)

    def _pop_frames(self, packet: CommandPacket) -> None:
        request = C.StackFrame.PopFrames.decode_request(Reader(packet.data, self.sizes))
        self._behind_pop = deque()
        self._pop_task = asyncio.ensure_future(self._pop(packet.id, request.thread, request.frame))

    async def _pop(self, packet_id: int, thread: int, frame_id: int) -> None:
        try:
            await self.guest.pop_frames(thread, frame_id)
            self._reply(packet_id)
        except JdwpError as exc:  # the JVM refused it (a native frame, a thread not suspended): as JDWP says
            self._reply(packet_id, _code(exc))
        except TargetError as exc:
            self._reply(packet_id, ErrorCode.INTERNAL)
            self.guest.note("client_refused", f"StackFrame.PopFrames refused: {exc}")
        except (VMDisconnected, DebuggerError, ConnectionError):
            self._reply(packet_id, ErrorCode.VM_DEAD)
        except Exception:  # never leave the guest waiting for its reply
            log.exception("jdwp: %s's PopFrames failed", self.name)
            self._reply(packet_id, ErrorCode.INTERNAL)
        finally:
            self._after_pop()

    def _after_pop(self) -> None:
        """The commands the guest sent while its pop was under way, in order (one may be another pop)."""
        waiting, self._behind_pop = self._behind_pop or deque(), None
        while waiting and self._behind_pop is None and not self._done.is_set():
            self._command(waiting.popleft())
        if self._behind_pop is not None:
            self._behind_pop.extendleft(reversed(waiting))

    def _changes_frames(self, packet: CommandPacket) -> None:
        self._forward(packet, then=lambda _reply: self.guest.moved([]))

    def _string_value(self, packet: CommandPacket) -> None:
        string_id = C.StringReference.Value.decode_request(Reader(packet.data, self.sizes)).string_object

        def redacted(reply: ReplyPacket) -> bytes | None:
            text = Reader(reply.data, self.sizes).string()
            shown = self.guest.redact_string(string_id, text)
            if shown == text:
                return None
            w = Writer(self.sizes)
            w.string(shown)
            return bytes(w.buf)

        self._forward(packet, then=redacted)


def _code(exc: BaseException | None) -> int:
    return int(getattr(exc, "code", ErrorCode.INTERNAL))


_SPECIAL: dict[tuple[int, int], Handler] = {
    policy.key(C.VirtualMachine.Dispose): GuestConnection._dispose,
    policy.key(C.VirtualMachine.Exit): GuestConnection._exit,
    policy.key(C.VirtualMachine.Suspend): GuestConnection._suspend_vm,
    policy.key(C.VirtualMachine.Resume): GuestConnection._resume_vm,
    policy.key(C.VirtualMachine.HoldEvents): GuestConnection._no_op,
    policy.key(C.VirtualMachine.ReleaseEvents): GuestConnection._no_op,
    policy.key(C.VirtualMachine.AllClasses): GuestConnection._all_classes,
    policy.key(C.VirtualMachine.AllClassesWithGeneric): GuestConnection._all_classes,
    policy.key(C.VirtualMachine.ClassesBySignature): GuestConnection._classes_by_signature,
    policy.key(C.ClassLoaderReference.VisibleClasses): GuestConnection._visible_classes,
    policy.key(C.VirtualMachine.CapabilitiesNew): GuestConnection._capabilities,
    policy.key(C.ThreadReference.Suspend): GuestConnection._suspend_thread,
    policy.key(C.ThreadReference.Resume): GuestConnection._resume_thread,
    policy.key(C.ThreadReference.SuspendCount): GuestConnection._suspend_count,
    policy.key(C.EventRequest.Set): GuestConnection._set_request,
    policy.key(C.EventRequest.Clear): GuestConnection._clear_request,
    policy.key(C.EventRequest.ClearAllBreakpoints): GuestConnection._clear_all_breakpoints,
    policy.key(C.StringReference.Value): GuestConnection._string_value,
    policy.key(C.VirtualMachine.RedefineClasses): GuestConnection._redefine,
    policy.key(C.ObjectReference.DisableCollection): GuestConnection._pin,
    policy.key(C.ObjectReference.EnableCollection): GuestConnection._unpin,
    policy.key(C.StackFrame.SetValues): GuestConnection._changes_frames,
    policy.key(C.StackFrame.PopFrames): GuestConnection._pop_frames,
    policy.key(C.ThreadReference.ForceEarlyReturn): GuestConnection._changes_frames,
    **{k: GuestConnection._invoke for k in policy.INVOCATIONS},
}
