"""Session lifecycle (seed 000): attach, launch, detach, reset, status, diagnose, and the reconnect after
VM death."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import socket
import time
from collections.abc import Sequence
from typing import Any

from ...jdwp import (
    ConnectError,
    ErrorCode,
    EventKind,
    EventRequest,
    HandshakeError,
    JdwpConnection,
    JdwpError,
    JdwpTransportError,
    SuspendPolicy,
    ThreadReference,
    VirtualMachine,
)
from ..eager import start_eagerly
from ..errors import DebuggerError, InvalidArgument
from ..inspect.threads import is_system
from ..launcher import LaunchedProcess, plan_launch
from ..model import (
    Actor,
    OutputChunk,
    SessionState,
    Status,
    StopKind,
    StopReason,
    SuspendedThread,
    ThreadInfo,
    VmInfo,
)
from ..threads import ThreadBook, ThreadState, thread_description, why_suspended
from ..vm import Vm
from .base import NO_SIDE_EFFECTS, SessionBase, is_vm_start, parse_address

VM_START_WAIT = 15.0  # seconds attach waits for a suspend=y JVM's VMStart (nothing hangs: then it answers "running")
VM_START_LOOK_EVERY = 0.1  # seconds between two looks, while it waits, at whether the program runs after all


class Lifecycle(SessionBase):
    # -- attach / launch / detach --------------------------------------------------------------------

    async def attach(self, address: str, timeout: float, actor: Actor) -> Status:
        host, port = parse_address(address)
        if self.conn is not None and not self.conn.is_closed:
            if self.target == (host, port):
                return await self.status()  # already attached to this target
            await self._teardown(clean=True, terminate=self.launched is not None)
        elif self.launched is not None:  # a launched program that ended: its pid and exit code are not this JVM's
            await self.launched.kill()
            self._clean_slate()
        await self._connect(host, port, timeout, actor)
        return await self.status()

    async def _connect(self, host: str, port: int, timeout: float, actor: Actor, reconnect: bool = False,
                       launched_socket: socket.socket | None = None) -> None:
        """Attach to host:port, or (a launch) handshake over the connection the launched JVM opened to us."""
        address = f"{host}:{port}"
        self.last_attempt = {"address": address, "time": time.time(), "error": None}
        deadline = time.monotonic() + max(timeout, 0.0)
        conn: JdwpConnection | None = None
        if launched_socket is not None:
            try:
                conn = await JdwpConnection.over_socket(launched_socket, address, timeout=max(timeout, 0.5))
            except (HandshakeError, TimeoutError, JdwpTransportError) as exc:
                self._fail(str(exc))
                raise DebuggerError(f"the launched JVM connected but its debug agent failed the handshake: {exc}",
                                    "launch again; its output (the output tool) may say why") from None
        while conn is None:
            remaining = deadline - time.monotonic()
            try:
                conn = await JdwpConnection.connect(host, port, timeout=max(min(remaining, 5.0), 0.5))
            except ConnectError as exc:
                if time.monotonic() + 0.1 >= deadline:
                    self._fail(str(exc))
                    raise DebuggerError(
                        f"no JVM is listening on {address} (waited {timeout:g}s)",
                        "start the JVM with -agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=*:"
                        f"{port}, check the port, or give a longer timeout; diagnose lists local JVMs with a debug port",
                    ) from None
                await asyncio.sleep(0.1)  # the target may simply not listen yet: poll
            except HandshakeError as exc:
                self._fail(str(exc))
                raise DebuggerError(str(exc), "check the address: it must be the JVM's JDWP port") from None
            except (TimeoutError, JdwpTransportError) as exc:
                self._fail(str(exc))
                raise DebuggerError(f"cannot attach to {address}: {exc}", "check that a JVM debug agent listens there") from None
        self.conn = conn
        vm = Vm(conn)
        self._vm = vm
        answer_within = max(deadline - time.monotonic(), 2.0)
        # One burst: version, capabilities, the monitoring requests and the thread check go out together.
        monitoring = [vm.send(EventRequest.Set, kind, SuspendPolicy.NONE, [])
                      for kind in (EventKind.THREAD_START, EventKind.THREAD_DEATH, EventKind.CLASS_UNLOAD)]
        suspended_check = asyncio.ensure_future(self._all_threads_suspended())
        try:
            async with asyncio.timeout(answer_within):  # a peer that handshakes, then goes quiet
                await asyncio.gather(vm.load_basics(), *monitoring)
        except (JdwpTransportError, TimeoutError) as exc:
            suspended_check.cancel()
            with contextlib.suppress(BaseException):
                await suspended_check
            await conn.close()
            self._vm = None
            self.conn = None
            why = exc if isinstance(exc, JdwpTransportError) else f"it did not answer within {answer_within:g}s"
            self._fail(str(why))
            raise DebuggerError(f"{address} answered the JDWP handshake, then stopped answering during attach ({why})",
                                "check that the address is a JVM's JDWP port, then try again") from None
        self.target = (host, port)
        self.last_error = None
        version = vm.version
        self.vm_info = VmInfo(
            name=version.vm_name, version=version.vm_version, description=version.description,
            jdwp_version=f"{version.jdwp_major}.{version.jdwp_minor}", capabilities=vm.capabilities,
            address=address, pid=self.launched.pid if self.launched else None,
        )
        self.threads = ThreadBook()
        self.stop = None
        self._set_state(SessionState.RUNNING, "reconnected" if reconnect else "attached")
        # (The monitoring events above never suspend: they only feed the history and the caches.)
        # A JVM we launched always has suspend=y (launch_socket.py): its VMStart comes, however busy the machine.
        suspended = await suspended_check or launched_socket is not None
        self._said_running = not suspended  # a VMStart arriving after all runs on (see Events)
        events_context = contextvars.copy_context()  # a (re)connect inside no_side_effects() must not
        events_context.run(NO_SIDE_EFFECTS.set, None)  # leave conditions and logpoints without side effects
        loop = asyncio.get_running_loop()

        def on_event(composite: Any) -> None:
            # Called by the connection as each event packet arrives. Taps (e.g. a running trace) consume
            # high-volume monitoring events without a task each; everything else gets its own handler task.
            for guest in list(self.foreign):  # a guest debugger's events are its own (core/foreign.py)
                composite = guest.split(composite)
                if composite is None:
                    return
            if self._taps and any(tap(composite) for tap in list(self._taps)):
                return  # (a tap that takes a packet's suspension owns it: core/trace/borrow.py, round_trip.py)
            # Handled from here, as the packet is read, up to its first wait (core/eager.py): a stop whose
            # facts are all known is handed over without waiting for another turn of the event loop.
            task = start_eagerly(loop, self._handle_composite(composite), events_context.copy())
            if task is not None:
                self._handlers.add(task)
                task.add_done_callback(self._handlers.discard)

        # Said before the handler is set: events that came meanwhile are handed over as it is, and handled at
        # once (eagerly), so the history must say "attach" before their records.
        self.history.add("attach" if not reconnect else "reconnect",
                         f"{'reconnected' if reconnect else 'attached'} to {address} ({version.vm_name} {version.vm_version})",
                         actor, address=address)
        conn.set_event_handler(on_event)
        self._event_task = asyncio.create_task(self._event_loop(conn), name="tracepilot-events",
                                               context=events_context)
        await self.breakpoints.in_jvm.restore_leftovers(actor)  # a dead session's probe calls go before ours come
        await self.breakpoints.install_all()
        if suspended:
            # A JVM started with suspend=y sends VMStart on attach: it becomes our first stop. The event is
            # already on its way, so this returns at once unless the machine is very busy.
            await self.wait_for_stop(VM_START_WAIT)
        if reconnect:  # told in the answer of the call that caused it (see _result and status)
            self._reconnect_note = f"reconnected to {address} (the VM there had terminated)"

    async def _all_threads_suspended(self) -> bool:
        """Was the JVM started with suspend=y (it then sends VMStart with suspend-all on attach)?

        The VMStart event may still be on its way while the threads read as running: the agent suspends
        them just before sending it. Until then the main thread has no Java frame yet (it sits in the VM
        init callback), which a running program's main thread always has; only then do we wait for the event.
        """
        vm = self.require_vm()
        conn = vm.conn
        if any(is_vm_start(e) for e in conn.queued_events()):
            return True
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        statuses, names = await asyncio.gather(
            asyncio.gather(*(vm.send(ThreadReference.Status, t) for t in threads), return_exceptions=True),
            asyncio.gather(*(vm.thread_name(t) for t in threads)),
        )
        if threads and all(not isinstance(s, BaseException) and s.suspend_status & 1 for s in statuses):
            return True
        main = next((t for t, name in zip(threads, names, strict=True) if name == "main"), None)
        if main is None or await self._main_ran_java(main):
            return False
        # No Java frame: the JVM is still initialising and its agent is about to suspend everything and send
        # VMStart. On a loaded machine that can take seconds, and a short wait (once 2 s) made attach answer
        # "running", after which the first resume got the VM's start as its stop. Wait for the VMStart itself
        # (other events may come first), as long as attach waits for its stop -- unless main runs Java
        # meanwhile: then the JVM was started with suspend=n (attached before its program ran, e.g. in an
        # agent's premain) and no VMStart comes (attach waited VM_START_WAIT for it, 15 s).
        deadline = time.monotonic() + VM_START_WAIT
        while (remaining := deadline - time.monotonic()) > 0:
            if await conn.wait_for_queued(is_vm_start, min(VM_START_LOOK_EVERY, remaining)):
                return True
            if await self._main_ran_java(main):  # (a VMStart sent before would have come before the reply)
                return any(is_vm_start(e) for e in conn.queued_events())
        return False

    async def _main_ran_java(self, main: int) -> bool:
        """Has the main thread run any Java yet (the launcher, an agent's premain, the program)? A JVM started
        with suspend=y cannot have before its VMStart: main waits in the JDWP agent's VM-init callback, in native
        code, and the launcher loads LauncherHelper only after that. (True when JDWP refuses main's frames for
        another reason than its running; False -- not known -- when they cannot be counted even with it held.)"""
        vm = self.require_vm()
        launcher = await vm.send(VirtualMachine.ClassesBySignature, "Lsun/launcher/LauncherHelper;")
        if launcher.classes:
            with contextlib.suppress(JdwpError):  # (its ID given back: the agent pins every ID it holds)
                await vm.send(VirtualMachine.DisposeObjects, [(c.type_id, 1) for c in launcher.classes])
            return True
        try:
            return (await vm.send(ThreadReference.FrameCount, main)).frame_count > 0
        except JdwpError as exc:
            if exc.code != ErrorCode.THREAD_NOT_SUSPENDED:
                return True
        # Running: counted with the thread held for a moment (balanced: the agent's suspend-all, if it comes
        # meanwhile, keeps its own count). Not countable even so: not known, and the wait goes on.
        try:
            await vm.send(ThreadReference.Suspend, main)
        except JdwpError:
            return False
        try:
            return (await vm.send(ThreadReference.FrameCount, main)).frame_count > 0
        except JdwpError:
            return False
        finally:
            with contextlib.suppress(JdwpError):
                await vm.send(ThreadReference.Resume, main)

    def _fail(self, error: str) -> None:
        self.last_error = error
        if self.last_attempt is not None:
            self.last_attempt["error"] = error

    async def launch(self, *, main: str | None, classpath: Any, jar: str | None, source: str | None,
                     args: Sequence[str], jvm_args: Sequence[str], cwd: str | None, env: dict[str, str] | None,
                     sourcepath: Sequence[str], suspend: bool, java: str | None, actor: Actor) -> Status:
        if self.read_only:
            from ..errors import ReadOnlyViolation

            raise ReadOnlyViolation("launch")
        plan = await plan_launch(main=main, classpath=classpath, jar=jar, source=source, args=args,
                                 jvm_args=jvm_args, cwd=cwd, env=env, java=java)
        if self.conn is not None and not self.conn.is_closed:
            await self._teardown(clean=False)
        self.sources.add(*plan.sourcepath, *sourcepath)
        launched = await LaunchedProcess.start(plan)
        self.launched = launched
        self.exit_code = None
        for note in launched.refused:  # someone else tried to take the JVM before it connected
            self.history.add("launch", note, Actor.TARGET)
        try:
            await self._connect("127.0.0.1", launched.port, 10.0, actor, launched_socket=launched.take_socket())
        except BaseException:
            await launched.kill()
            self.launched = None
            raise
        self.history.add("launch", f"launched {plan.description} (pid {launched.pid})", actor,
                         command=plan.command, pid=launched.pid)
        if not suspend and self.state is SessionState.STOPPED:
            await self.resume(None, 0.0, actor)
        return await self.status()

    async def detach(self, terminate: bool, actor: Actor, keep_running: bool = False) -> Status:
        if terminate and self.read_only and self.conn is not None and self.launched is None:
            from ..errors import ReadOnlyViolation

            raise ReadOnlyViolation("terminating the target")
        if self.conn is None and self.launched is None:
            self._clean_slate()
            return await self.status()
        if self.conn is not None and not self.conn.is_closed:
            await self.breakpoints.flush_logs()  # in-JVM logpoints' last lines, before the history is cleared
            await self.breakpoints.in_jvm.refresh_hits()  # and the hits probes counted, before they go
        launched = self.launched
        if keep_running and not terminate and launched is not None:  # asked to leave the JVM we started running
            await self._teardown(clean=False, terminate=False)
            launched.release()
            self._detached(f"detached; the launched JVM (pid {launched.pid}) keeps running", actor)
            return await self.status()
        await self._teardown(clean=False, terminate=terminate or launched is not None)
        self._detached("detached" + (" and terminated the target" if terminate else ""), actor)
        return await self.status()

    def _detached(self, text: str, actor: Actor) -> None:
        """The connection is gone: record the detach, then leave a clean slate (the history too). Recorded once
        the state says so, because whoever follows the history (a watcher) reads the state with the record:
        it must see the end, not the stop before it."""
        self._set_state(SessionState.DISCONNECTED, "detach")
        self.stop = None
        self.history.add("detach", text, actor)
        self._clean_slate()
        self._notify_waiters()

    async def close(self) -> None:
        if self.conn is not None or self.launched is not None:
            await self._teardown(clean=True, terminate=self.launched is not None)

    async def _teardown(self, clean: bool, terminate: bool = False) -> None:
        """End the connection. clean=True is a detach: forget everything, including the target."""
        self._detaching = True
        conn = self.conn
        try:
            if conn is not None and not conn.is_closed:
                with contextlib.suppress(Exception):
                    if terminate:
                        await conn.send(VirtualMachine.Exit, 1, timeout=2.0)
                    else:
                        # Dispose clears our requests and resumes the VM (undoing our suspensions).
                        await self.breakpoints.clear_in_vm()
                        await conn.send(VirtualMachine.Dispose, timeout=2.0)
                await conn.close()
            if self._event_task is not None:
                self._event_task.cancel()
                with contextlib.suppress(BaseException):
                    await self._event_task
            for task in list(self._handlers):
                task.cancel()
            if self.launched is not None and terminate:
                await self.launched.kill()
        finally:
            self._detaching = False
        self.conn = None
        self._vm = None
        self._event_task = None
        self.inspector.forget_vm()
        if clean:
            self._clean_slate()
        self._notify_waiters()

    def _clean_slate(self) -> None:
        self._set_state(SessionState.DISCONNECTED, "detach")
        self.stop = None
        self.threads = ThreadBook()
        self.exit_code = None
        self.target = None
        self.vm_info = None
        self.launched = None
        self.breakpoints.clear_all_local()
        self.inspector.reset()
        self.inspector.forget_vm()
        self.history.clear()
        self._step = None

    async def reset(self, actor: Actor) -> Status:
        if self.conn is not None and not self.conn.is_closed:
            await self.breakpoints.clear_in_vm()
        self.breakpoints.clear_all_local()
        self.history.clear()
        self.history.add("reset", "reset: breakpoints, watchers and history cleared", actor)
        return await self.status()

    # -- status --------------------------------------------------------------------------------------

    async def status(self) -> Status:
        target = f"{self.target[0]}:{self.target[1]}" if self.target else None
        return Status(
            state=self.state, target=target, vm=self.vm_info, stop=self.stop,
            breakpoints=len(self.breakpoints.list()), launched=self.launched is not None,
            exit_code=self.launched.exit_code if self.launched else self.exit_code,
            pending_stops=len([r for r in self.threads.undelivered() if r.stop is not self.stop]),
            last_error=self.last_error, last_event_seq=self.history.last_seq,
            suspended=self._suspended_threads(), reconnected=self._take_reconnect_note(),
        )

    def explain_threads(self, infos: list[ThreadInfo]) -> list[ThreadInfo]:
        """Each thread's `why` (its stop, paused, held, inside a call) from the thread book, in place."""
        for info in infos:
            record = self.threads.records.get(info.id)
            if record is not None:
                info.why = why_suspended(record, self.threads)
                if record.call and record.call_timed_out:
                    info.suspended = info.suspended and record.stop is not None and record.stop.kind is StopKind.PAUSE
            elif info.suspended and self.threads.vm_holds:
                info.why = "held: suspended with all threads by a suspend-all stop"
            for guest in self.foreign:  # a guest debugger's holds (core/foreign.py) say whose they are
                if not info.why:
                    info.why = guest.why_suspended(info.id)
            info.description, info.waiting = thread_description(record, self.threads, info.state, info.suspended,
                                                                self.stop)
        return infos

    def _take_reconnect_note(self) -> str | None:
        note, self._reconnect_note = self._reconnect_note, None
        return note

    def _suspended_threads(self) -> list[SuspendedThread]:
        """Every thread the debugger holds, with its reason, the current stop first."""
        out = []
        for r in self.threads.suspended():
            why = why_suspended(r, self.threads)
            if why is None or (r.state is ThreadState.HELD and is_system(r.name or "", None)):
                continue  # (JVM housekeeping threads held with the rest are not worth a line)
            out.append(SuspendedThread(r.id, r.name, r.state.value, why,
                                       location=r.stop.location if r.stop is not None else None,
                                       current=r.stop is not None and r.stop is self.stop, delivered=r.delivered))
        for guest in self.foreign:
            out += guest.suspended_threads()
        out.sort(key=lambda t: (not t.current, t.name or ""))
        return out

    def _local_jdwp_port(self) -> int | None:
        """The JDWP port of this machine the session is attached to (diagnose lists that JVM by it)."""
        if self.conn is None or not self.target or self.target[0] not in ("localhost", "127.0.0.1", "::1", "0.0.0.0"):
            return None
        return int(self.target[1])

    async def diagnose(self) -> dict[str, Any]:
        from ... import __name__ as pkg

        info: dict[str, Any] = {
            "package": pkg, "state": self.state.value, "target": self.target and f"{self.target[0]}:{self.target[1]}",
            "last_attempt": self.last_attempt, "last_error": self.last_error,
            "protocol_errors": list(self.conn.protocol_errors[-5:]) if self.conn else [],
            "launched_pid": self.launched.pid if self.launched else None,
        }
        try:
            from ..discovery import find_debuggable_jvms  # type: ignore[import-not-found]

            info["local_jvms"] = await find_debuggable_jvms(attached_port=self._local_jdwp_port())
        except ImportError:
            info["local_jvms"] = []
        return info

    def read_output(self, stream: str, since: int) -> list[OutputChunk]:
        if self.launched is None:
            raise InvalidArgument("no launched program", "output is captured only for programs started with launch")
        if stream not in ("stdout", "stderr", "both"):
            raise InvalidArgument(f"unknown stream '{stream}'", "use stdout, stderr or both")
        streams = ["stdout", "stderr"] if stream == "both" else [stream]
        return [getattr(self.launched, s).read(since) for s in streams]


    async def _on_vm_gone(self, conn: JdwpConnection) -> None:
        """VM death or disconnect: keep target, breakpoints (unbound) and history; drop the rest."""
        reason = conn.close_reason
        self.conn = None
        self._vm = None
        self._set_state(SessionState.EXITED, "VM gone")
        self.stop = StopReason(StopKind.VM_DEATH, message=str(reason) if reason else None)
        self.threads.forget()
        self._step = None
        self.breakpoints.forget_vm()
        self.inspector.forget_vm()
        if self.launched is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.launched.exited.wait(), 2.0)
            self.exit_code = self.launched.exit_code
        else:
            self.exit_code = None  # an attached JVM's exit code is not ours to know: never invent one
        code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        self.history.add("vm_death", f"the VM terminated{code}", Actor.TARGET)
        self._notify_waiters()

