"""The session: one JDWP connection, its state machine, its stops, execution control and lifecycle.

States: DISCONNECTED -> RUNNING <-> STOPPED -> EXITED, moved only through states.py. Events are handled as
composite units; stop events stay suspended, monitoring events resume at once (seed 001). Every suspended
thread carries its own stop (threads.py keeps them and counts every suspension the debugger holds); the
current stop is a selection among them, and each stop is delivered once, to the waiting call that takes
it. Lifecycle follows seed 000's matrix: detach = clean slate; VM death keeps the target address,
breakpoints and history and reconnects on next use (the answer says so); reset keeps the connection and
the marks.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..jdwp import (
    ConnectError,
    EventKind,
    EventRequest,
    HandshakeError,
    JdwpConnection,
    JdwpError,
    JdwpTransportError,
    Mod,
    StepDepth,
    StepSize,
    SuspendPolicy,
    Tag,
    ThreadGroupReference,
    ThreadReference,
    VirtualMachine,
    VMDisconnected,
)
from .breakpoints import BreakpointTracker
from .errors import DebuggerError, InvalidArgument, NotConnected, NotFound, NotStopped, TargetError
from .history import EventHistory
from .inspect.threads import is_system
from .launcher import LaunchedProcess, plan_launch
from .model import (
    Actor,
    CodeLocation,
    OutputChunk,
    SessionState,
    Status,
    StopKind,
    StopReason,
    SuspendedThread,
    ThreadInfo,
    VmInfo,
    WaitResult,
)
from .sources import SourcePath
from .states import session_move
from .threads import Release, ThreadBook, ThreadState, why_suspended
from .vm import Vm

if TYPE_CHECKING:
    from .inspector import Inspector

log = logging.getLogger(__name__)

DEFAULT_STEP_FILTERS = ("java.*", "javax.*", "jdk.*", "sun.*", "com.sun.*")
STOP_EVENT_KINDS = frozenset({
    EventKind.BREAKPOINT, EventKind.SINGLE_STEP, EventKind.EXCEPTION, EventKind.FIELD_ACCESS,
    EventKind.FIELD_MODIFICATION, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT,
    EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
})


def parse_address(address: str) -> tuple[str, int]:
    text = (address or "").strip()
    if text.isdigit():
        return "localhost", int(text)
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise InvalidArgument(f"'{address}' is not a debugger address", "use host:port, e.g. localhost:5005")
    number = int(port)
    if not 0 < number < 65536:
        raise InvalidArgument(f"port {number} is out of range", "use a port between 1 and 65535")
    return host.strip("[]"), number


@dataclass
class StepState:
    thread_id: int
    depth: StepDepth
    size: StepSize
    remaining: int
    request_id: int = 0
    kind: str = "over"
    skips: int = 0
    vm_wide: bool = True  # the step's event suspends all threads (the stop it started from did)
    exit_request_id: int = 0  # method exits with return values on this thread, while the step runs
    returned: tuple[Any, Any] | None = None  # (location, value) of the last method exit seen


_NO_SIDE_EFFECTS: contextvars.ContextVar[str | None] = contextvars.ContextVar("tracepilot_no_side_effects",
                                                                               default=None)


@contextlib.contextmanager
def no_side_effects(why: str) -> Iterator[None]:
    """Evaluations awaited in this block refuse invocation, `new` and assignment, as in a read-only session
    (the share host runs a follow-only client's looks this way). Other tasks are not affected."""
    token = _NO_SIDE_EFFECTS.set(why)
    try:
        yield
    finally:
        _NO_SIDE_EFFECTS.reset(token)


class Session:
    def __init__(self, *, read_only: bool = False, redact: bool = False, sourcepath: Sequence[str] = ()) -> None:
        self.read_only = read_only
        self.redact = redact
        self.sources = SourcePath(list(sourcepath))
        self.history = EventHistory()
        self.breakpoints = BreakpointTracker(self)
        self.inspector: Inspector = None  # type: ignore[assignment]  # set by Debugger
        self.state = SessionState.DISCONNECTED
        self.stop: StopReason | None = None
        self.stop_generation = 0
        self.step_filters: list[str] = list(DEFAULT_STEP_FILTERS)
        self.conn: JdwpConnection | None = None
        self._vm: Vm | None = None
        self.vm_info: VmInfo | None = None
        self.target: tuple[str, int] | None = None  # remembered for reconnect after VM death
        self.launched: LaunchedProcess | None = None
        self.last_error: str | None = None
        self.last_attempt: dict[str, Any] | None = None
        self.threads = ThreadBook()  # per-thread state and the suspensions the debugger holds
        # Stops whose on-stop hook (watchers) ran, held so that a later stop cannot reuse a freed one's id.
        self._hooked: dict[int, StopReason] = {}
        self._run_to_target: str | None = None
        self._reconnect_note: str | None = None  # told in the answer of the call that reconnected
        self._waiters: set[asyncio.Future[None]] = set()
        self._event_task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._taps: list[Any] = []
        self._stopping = False
        self._step: StepState | None = None
        self._detaching = False
        self.exit_code: int | None = None
        self._source_cache: dict[tuple[Any, ...], tuple[str | None, float]] = {}

    # -- access --------------------------------------------------------------------------------------

    @property
    def side_effects_refused(self) -> str | None:
        """Why evaluations may not invoke, create or assign right now (read-only, no_side_effects()), or None."""
        return "read-only session" if self.read_only else _NO_SIDE_EFFECTS.get()

    @property
    def vm(self) -> Vm:
        return self.require_vm()

    def require_vm(self) -> Vm:
        if self._vm is None or self.conn is None or self.conn.is_closed:
            if self.state is SessionState.EXITED:
                raise NotConnected("the VM has terminated", "attach or launch again (or call a tool to reconnect)")
            raise NotConnected()
        return self._vm

    async def ensure_connected(self, reconnect_within: float = 2.0) -> Vm:
        """The live VM; after a VM death with a remembered target, try one reconnect (seed 000)."""
        if self._vm is not None and self.conn is not None and not self.conn.is_closed:
            return self._vm
        if self.state is SessionState.EXITED and self.target and self.launched is None:
            host, port = self.target
            try:
                await self._connect(host, port, timeout=reconnect_within, actor=Actor.TARGET, reconnect=True)
            except DebuggerError as exc:
                raise NotConnected(f"the VM at {host}:{port} has terminated and does not answer again ({exc.message})",
                                   "start it again and retry, or attach elsewhere") from None
            return self.require_vm()
        if self.state is SessionState.EXITED and self.launched is not None:
            code = self.launched.exit_code
            raise NotConnected("the launched program has exited" + (f" (exit code {code})" if code is not None else ""),
                               "launch it again")
        return self.require_vm()

    def require_not_in_call(self, thread_id: int) -> None:
        """A thread running a call for the debugger (that did not return) has no frames to read."""
        record = self.threads.records.get(thread_id)
        if record is not None and record.call and record.call_timed_out and (
                record.stop is None or record.stop.kind is not StopKind.PAUSE):
            raise NotStopped(f"thread {record.name or thread_id} is inside a call to {record.call} that did not "
                             "return in time", "pause that thread to see where the call is, or wait for it to return")

    def require_stopped(self, thread_id: int | None = None) -> None:
        if thread_id:
            self.require_not_in_call(thread_id)
        if self.state is not SessionState.STOPPED:
            if self.state is SessionState.RUNNING:
                raise NotStopped("the program is running", "pause it or wait_for_stop first")
            raise NotConnected()

    async def resolve_thread(self, thread: str | int | None, *, required: bool = True) -> int:
        """A thread id from an id, a numeric string or a name; None means the thread of the current stop."""
        vm = await self.ensure_connected()
        if thread is None or thread == "":
            if self.stop and self.stop.thread_id:
                return self.stop.thread_id
            if not required:
                return 0
            raise InvalidArgument("no current thread", "stop somewhere first, or name a thread (threads lists them)")
        known = [r.id for r in self.threads.stops()]  # virtual threads: JDWP's AllThreads omits unmounted ones
        if isinstance(thread, int) or str(thread).isdigit():
            tid = int(thread)
            threads = (await vm.send(VirtualMachine.AllThreads)).threads
            if tid in threads or tid in known:
                return tid
            raise NotFound(f"no thread with id {tid}", hint="threads lists the live threads")
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        threads += [t for t in known if t not in threads]
        names = await asyncio.gather(*(vm.thread_name(t) for t in threads))
        for tid, name in zip(threads, names, strict=True):
            if name == thread:
                return tid
        from .locations import suggest

        raise NotFound(f"no thread named '{thread}'", suggest(str(thread), list(names)), "threads lists the live threads")

    def add_event_tap(self, tap: Any) -> Any:
        """Call tap(composite) -> bool for every event packet first; True means it was consumed. Returns undo."""
        self._taps.append(tap)

        def undo() -> None:
            if tap in self._taps:
                self._taps.remove(tap)

        return undo

    @contextlib.asynccontextmanager
    async def invoking(self, thread_id: int, what: str | None = None) -> AsyncIterator[InvocationCall]:
        """Around a method invocation in `thread_id` (evaluate, conditions, watchers).

        The rule (INVOKE_SINGLE_THREADED, always): only the invoking thread runs the call; the other threads
        stay exactly as they were, so nothing else moves while a person looks at a stop. JDWP runs the call
        only if the thread is suspended exactly once, by an event: the session keeps it so (see
        _process_composite). Events of this thread meanwhile are resumed and recorded as suppressed. A call
        that does not return in time leaves the thread marked "inside a call" in every view until it returns
        (then it is back at its stop, or resumed if that stop was released meanwhile); `pause` suspends it."""
        call = InvocationCall(self, thread_id)
        # A thread suspended more than once (its stop, then pause all or another thread's suspend-all stop)
        # would stay suspended through the call: lift the extra suspensions for the call, put them back after.
        # The JVM's own count, not the book's: an event still on its way may have suspended it once more.
        count = self.threads.expected_count(thread_id)
        with contextlib.suppress(JdwpError, VMDisconnected):
            count = (await self.require_vm().send(ThreadReference.SuspendCount, thread_id)).suspend_count
        extra = max(0, count - 1)
        if extra:
            await self._send_release(Release(thread_resumes=[thread_id] * extra))
        self.threads.call_started(thread_id, what or "a method", extra)
        try:
            yield call
        finally:
            if call.timed_out:
                self.threads.call_timed_out(thread_id)
                self.history.add("call_timeout", f"{what or 'a call'} did not return in time: thread "
                                 f"{self.threads.get(thread_id).name or thread_id} stays inside the call",
                                 Actor.TARGET, thread=thread_id)
            else:
                _orphan, extra = self.threads.call_returned(thread_id)
                await self._suspend_again(thread_id, extra)
            self.stop_generation += 1  # frame ids are stale after an invocation

    async def _suspend_again(self, thread_id: int, times: int) -> None:
        conn = self.conn
        if times and conn is not None and not conn.is_closed:
            futures = [conn.send_nowait(ThreadReference.Suspend, thread_id) for _ in range(times)]
            conn.flush()
            await asyncio.gather(*futures, return_exceptions=True)

    def _call_returned_late(self, thread_id: int, what: str) -> None:
        """A call that had timed out returned: the JVM suspended its thread again."""
        if self.conn is None or self.conn.is_closed:
            return
        orphan, extra = self.threads.call_returned(thread_id)
        self.stop_generation += 1
        name = self.threads.get(thread_id).name or thread_id
        if orphan:  # its stop was released meanwhile: this suspension is the call's, resume it once
            _forget(self.conn.send_nowait(ThreadReference.Resume, thread_id))
        for _ in range(extra):  # back at its stop: the suspensions lifted for the call are put back
            _forget(self.conn.send_nowait(ThreadReference.Suspend, thread_id))
        self.conn.flush()
        self.history.add("call_returned", f"{what} returned late in thread {name}"
                         + ("; resumed (its stop had been released)" if orphan else "; back at its stop"),
                         Actor.TARGET, thread=thread_id)

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

    async def _connect(self, host: str, port: int, timeout: float, actor: Actor, reconnect: bool = False) -> None:
        address = f"{host}:{port}"
        self.last_attempt = {"address": address, "time": time.time(), "error": None}
        deadline = time.monotonic() + max(timeout, 0.0)
        conn: JdwpConnection | None = None
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
        suspended = await suspended_check
        events_context = contextvars.copy_context()  # a (re)connect inside no_side_effects() must not
        events_context.run(_NO_SIDE_EFFECTS.set, None)  # leave conditions and logpoints without side effects
        loop = asyncio.get_running_loop()

        def on_event(composite: Any) -> None:
            # Called by the connection as each event packet arrives. Taps (e.g. a running trace) consume
            # high-volume monitoring events without a task each; everything else gets its own handler task.
            if self._taps and any(tap(composite) for tap in list(self._taps)):
                return
            task = loop.create_task(self._handle_composite(composite), context=events_context.copy())
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)

        conn.set_event_handler(on_event)
        self._event_task = asyncio.create_task(self._event_loop(conn), name="tracepilot-events",
                                               context=events_context)
        self.history.add("attach" if not reconnect else "reconnect",
                         f"{'reconnected' if reconnect else 'attached'} to {address} ({version.vm_name} {version.vm_version})",
                         actor, address=address)
        await self.breakpoints.install_all()
        if suspended:
            # A JVM started with suspend=y sends VMStart on attach: it becomes our first stop. The event is
            # already on its way, so this returns at once unless the machine is very busy.
            await self.wait_for_stop(15.0)
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
        if any(_is_vm_start(e) for e in conn.queued_events()):
            return True
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        statuses, names = await asyncio.gather(
            asyncio.gather(*(vm.send(ThreadReference.Status, t) for t in threads), return_exceptions=True),
            asyncio.gather(*(vm.thread_name(t) for t in threads)),
        )
        if threads and all(not isinstance(s, BaseException) and s.suspend_status & 1 for s in statuses):
            return True
        main = next((t for t, name in zip(threads, names, strict=True) if name == "main"), None)
        if main is None:
            return False
        try:
            frames = (await vm.send(ThreadReference.FrameCount, main)).frame_count
        except JdwpError:
            return False
        if frames == 0 and await conn.wait_for_event(2.0):
            return any(_is_vm_start(e) for e in conn.queued_events())
        return False

    def _fail(self, error: str) -> None:
        self.last_error = error
        if self.last_attempt is not None:
            self.last_attempt["error"] = error

    async def launch(self, *, main: str | None, classpath: Any, jar: str | None, source: str | None,
                     args: Sequence[str], jvm_args: Sequence[str], cwd: str | None, env: dict[str, str] | None,
                     sourcepath: Sequence[str], suspend: bool, java: str | None, actor: Actor) -> Status:
        if self.read_only:
            from .errors import ReadOnlyViolation

            raise ReadOnlyViolation("launch")
        plan = await plan_launch(main=main, classpath=classpath, jar=jar, source=source, args=args,
                                 jvm_args=jvm_args, cwd=cwd, env=env, java=java)
        if self.conn is not None and not self.conn.is_closed:
            await self._teardown(clean=False)
        self.sources.add(*plan.sourcepath, *sourcepath)
        launched = await LaunchedProcess.start(plan)
        self.launched = launched
        self.exit_code = None
        try:
            await self._connect("127.0.0.1", launched.port, 10.0, actor)
        except BaseException:
            await launched.kill()
            self.launched = None
            raise
        self.history.add("launch", f"launched {plan.description} (pid {launched.pid})", actor,
                         command=plan.command, pid=launched.pid)
        if not suspend and self.state is SessionState.STOPPED:
            await self.resume(None, 0.0, actor)
        return await self.status()

    async def detach(self, terminate: bool, actor: Actor) -> Status:
        if terminate and self.read_only and self.conn is not None and self.launched is None:
            from .errors import ReadOnlyViolation

            raise ReadOnlyViolation("terminating the target")
        if self.conn is None and self.launched is None:
            self._clean_slate()
            return await self.status()
        self.history.add("detach", "detached" + (" and terminated the target" if terminate else ""), actor)
        await self._teardown(clean=True, terminate=terminate or self.launched is not None)
        return await self.status()

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
        out.sort(key=lambda t: (not t.current, t.name or ""))
        return out

    async def diagnose(self) -> dict[str, Any]:
        from .. import __name__ as pkg

        info: dict[str, Any] = {
            "package": pkg, "state": self.state.value, "target": self.target and f"{self.target[0]}:{self.target[1]}",
            "last_attempt": self.last_attempt, "last_error": self.last_error,
            "protocol_errors": list(self.conn.protocol_errors[-5:]) if self.conn else [],
            "launched_pid": self.launched.pid if self.launched else None,
        }
        try:
            from .discovery import find_debuggable_jvms  # type: ignore[import-not-found]

            info["local_jvms"] = await find_debuggable_jvms()
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

    # -- waiting -------------------------------------------------------------------------------------

    def _notify_waiters(self) -> None:
        for waiter in list(self._waiters):
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def wait_for_stop(self, timeout: float, *, new_only: bool = False) -> WaitResult:
        """The next stop not delivered yet (each stop is delivered to exactly one waiting call); when none
        comes, the current stop (unless `new_only`: resume or step of one thread wants a new one), or
        "still running" after `timeout` seconds. On a dead VM with a remembered target it reconnects, as
        every other call does, and says so."""
        started = time.monotonic()
        deadline = started + max(timeout, 0.0)
        if self.state is SessionState.EXITED and self.target and self.launched is None and timeout > 0:
            # The VM died: try the remembered target once, as every other call does (and say so if it answers).
            # A zero timeout only asks for the state: it does not reconnect.
            with contextlib.suppress(Exception):
                await self.ensure_connected(min(timeout, 2.0))
        while True:
            if not self._stopping:
                pending = self.threads.undelivered()
                if pending:
                    return await self._deliver(pending[0], started)
                if self.state is SessionState.STOPPED and self.stop is not None and not new_only and self._all_held():
                    return self._result(True, started, self.stop)  # already stopped, and nothing else can stop
            if self.state in (SessionState.EXITED, SessionState.DISCONNECTED):
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.add(waiter)
            try:
                await asyncio.wait_for(asyncio.shield(waiter), remaining)
            except TimeoutError:
                break
            finally:
                self._waiters.discard(waiter)
        if self.state is SessionState.EXITED:
            return self._result(False, started, self.stop, "the VM terminated")
        if self.state is SessionState.DISCONNECTED:
            return self._result(False, started, None, "not attached: call attach or launch")
        if self.state is SessionState.STOPPED and self.stop is not None and not new_only:
            return self._result(True, started, self.stop, f"no other thread stopped within {timeout:g}s; "
                                "still stopped here (the other threads keep running)")
        if timeout > 0:
            message = f"still running after {timeout:g}s"
            if self.state is SessionState.STOPPED and self.stop is not None:
                message += f" (no new stop; still stopped: {self.stop.headline()})"
            return self._result(False, started, None, message)
        return self._result(False, started, None, "running")

    def _all_held(self) -> bool:
        """Is every thread suspended by the debugger (so no new stop can come until something is resumed)?"""
        book = self.threads
        return book.vm_holds > 0 and not any(r.credit or r.call for r in book.records.values())

    def _result(self, stopped: bool, started: float, stop: StopReason | None, message: str = "") -> WaitResult:
        note, self._reconnect_note = self._reconnect_note, None
        if note:
            message = f"{note}; {message}" if message else note
        return WaitResult(stopped, self.state, stop, int((time.monotonic() - started) * 1000), message,
                          pending=len([r for r in self.threads.undelivered() if r.stop is not stop]),
                          reconnected=note)

    async def _deliver(self, record: Any, started: float) -> WaitResult:
        """Hand one stop to the waiting call: it becomes delivered and the current stop."""
        record.delivered = True
        await self._select(record.stop)
        return self._result(True, started, record.stop)

    async def _select(self, reason: StopReason | None) -> None:
        """Make `reason` the current stop (watchers and changed values are computed for it once)."""
        hooked = reason is not None and self._hooked.get(id(reason)) is reason
        if reason is self.stop and (reason is None or hooked):
            return
        if reason is not self.stop:  # (_after_release may have made it current already: the hook still runs)
            self.stop = reason
            self.stop_generation += 1
        if reason is None:
            return
        self._set_state(SessionState.STOPPED, "select a stop")
        if self._hooked.get(id(reason)) is reason:
            return
        if len(self._hooked) >= 10_000:
            self._hooked.clear()
        self._hooked[id(reason)] = reason
        self._stopping = True
        try:
            if reason.kind not in (StopKind.VM_START, StopKind.VM_DEATH):  # nothing has run yet: no values
                await self.inspector.on_stop()
        except NotImplementedError:
            pass
        except Exception as exc:  # watchers failing must not lose the stop
            log.warning("on_stop hook failed: %s", exc)
        finally:
            self._stopping = False

    def _set_state(self, new: SessionState, why: str) -> None:
        self.state = session_move(self.state, new, why)

    def _after_release(self) -> None:
        """After threads were resumed: the current stop is the newest remaining one, or none (RUNNING)."""
        remaining = self.threads.stops()
        if self.stop is not None and any(r.stop is self.stop for r in remaining):
            return
        delivered = [r for r in remaining if r.delivered]
        choice = (delivered or remaining or [None])[-1 if delivered else 0]
        self.stop_generation += 1
        if choice is None:
            self.stop = None
            if self.state is SessionState.STOPPED:
                self._set_state(SessionState.RUNNING, "last stop released")
        else:
            self.stop = choice.stop

    # -- execution -----------------------------------------------------------------------------------

    async def resume(self, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        """Resume all threads, or one. All: every delivered stop and pause is released; a stop of another
        thread that no call has returned yet stays suspended and is returned at once. One thread: only its
        suspensions are released (the others stay as they are) and the call waits for a *new* stop."""
        await self.ensure_connected()
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            if self._step is not None and self._step.thread_id == tid:
                await self._cancel_step()  # resuming the stepping thread: run, don't stop at the step's end
            release = self.threads.release_thread(tid)
            await self._send_release(release)
            self.history.add("resume", f"resumed thread {await self.vm.thread_name(tid)}", actor, thread=tid)
            self._after_release()
            return await self.wait_for_stop(timeout, new_only=True)
        if self._step is not None:
            await self._cancel_step()  # a step still under way ("still running") ends with a resume
        if self.state is SessionState.STOPPED or self.threads.vm_holds or self.threads.suspended():
            await self._release_all()
            self.history.add("resume", "resumed", actor)
        return await self.wait_for_stop(timeout, new_only=True)

    async def _cancel_step(self) -> None:
        step, self._step = self._step, None
        await self._clear_step_request(step)
        await self._clear_exit_request(step)

    async def _release_all(self) -> None:
        # Stops no call has returned yet stay (the next answer is one of them); the current stop counts as
        # seen even if no call returned it (status showed it), so resume releases it.
        keep = {r.id for r in self.threads.undelivered() if r.stop is not self.stop}
        release = self.threads.release_all(keep)
        await self._send_release(release)
        self._after_release()

    async def _send_release(self, release: Release) -> None:
        conn = self.conn
        if conn is None or conn.is_closed or not release:
            return
        # In order: credited threads are suspended again before the VM-wide resumes (see threads.py).
        futures = [conn.send_nowait(ThreadReference.Suspend, t) for t in release.thread_suspends]
        futures += [conn.send_nowait(ThreadReference.Resume, t) for t in release.thread_resumes]
        futures += [conn.send_nowait(VirtualMachine.Resume) for _ in range(release.vm_resumes)]
        conn.flush()
        for r in await asyncio.gather(*futures, return_exceptions=True):
            if isinstance(r, JdwpError):
                log.debug("resume: %s", r)

    async def pause(self, thread: str | int | None, actor: Actor) -> WaitResult:
        """Pause all threads (or one). A thread already suspended answers with its stop; a thread inside a
        call that did not return is suspended where the call is."""
        started = time.monotonic()
        vm = await self.ensure_connected()
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            record = self.threads.get(tid)
            if record.stop is not None and not record.call:
                record.delivered = True
                await self._select(record.stop)
                return self._result(True, started, record.stop, f"thread {record.name or tid} is already stopped")
            await vm.send(ThreadReference.Suspend, tid)
            self.threads.pause_thread(tid)
            vm_wide = False
        else:
            all_ids = (await vm.send(VirtualMachine.AllThreads)).threads
            everything_held = all_ids and all(self.threads.expected_count(t) > 0 and not self.threads.get(t).call
                                              for t in all_ids)
            if everything_held and self.stop is not None:
                return self._result(True, started, self.stop, "every thread is already suspended")
            await vm.send(VirtualMachine.Suspend)
            self.threads.pause_all()
            tid = 0
            vm_wide = True
        summaries = await self._where_threads_are()
        if not tid:
            free = [s for s in summaries if self.threads.get(s[0]).stop is None]
            tid = next((t for t, name, loc in free if name == "main" and loc), 0) or next(
                (t for t, _n, loc in free if loc), 0) or next((t for t, _n, loc in summaries if loc), 0) or next(
                (t for t, name, _l in summaries if name == "main"), 0) or next((t for t, _n, _l in summaries), 0)
        location = next((loc for t, _n, loc in summaries if t == tid), None)
        if tid and location is None:
            with contextlib.suppress(JdwpError):
                frames = (await vm.send(ThreadReference.Frames, tid, 0, 1)).frames
                location = await self.code_location(frames[0].location) if frames else None
        where = "; ".join(f"{name} at {loc}" for _t, name, loc in summaries if loc)
        self.history.add("pause", "paused" + (f": {where[:2000]}" if where else ""), actor)
        tid = tid or next(iter((await vm.send(VirtualMachine.AllThreads)).threads), 0)
        # (A thread with no Java frame yet, e.g. main right after VM start, still carries the pause.)
        reason = StopReason(StopKind.PAUSE, thread_id=tid or None, thread_name=await vm.thread_name(tid) if tid else None,
                            location=location)
        record = self.threads.get(tid)
        if record.stop is None or record.call:
            self.threads.add_stop(tid, reason, vm_wide, "pause")
            self.history.add("stop", reason.headline(), Actor.TARGET, stop=reason.to_dict())
        record.delivered = True
        await self._select(record.stop)
        self._notify_waiters()
        return self._result(True, started, record.stop)

    async def _where_threads_are(self) -> list[tuple[int, str, CodeLocation | None]]:
        """Each non-system thread's name and top location (for pause reports)."""
        vm = self.require_vm()
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
        out: list[tuple[int, str, CodeLocation | None]] = []

        async def one(tid: int) -> tuple[int, str, CodeLocation | None] | None:
            try:
                name = await vm.thread_name(tid)
                group = (await vm.send(ThreadReference.ThreadGroup, tid)).group
                group_name = (await vm.send(ThreadGroupReference.Name, group)).group_name if group else None
                if is_system(name, group_name):
                    return None
                frames = (await vm.send(ThreadReference.Frames, tid, 0, 1)).frames
                loc = await self.code_location(frames[0].location) if frames else None
                return tid, name, loc
            except JdwpError as exc:
                log.debug("no location for thread %s: %s", tid, exc)
                return None

        for item in await asyncio.gather(*(one(t) for t in threads)):
            if item is not None:
                out.append(item)
        return out

    async def code_location(self, location: Any) -> CodeLocation:
        loc = await self.require_vm().code_location(location)
        loc.source_path = self._source_path(loc.class_name, loc.source_file)
        return loc

    def _source_path(self, class_name: str, source_file: str | None) -> str | None:
        # Searching the source path stats (and globs) directories: remember answers for a second, so a
        # stop in a hot loop costs no file system calls while a file created meanwhile is still found.
        key = (class_name, source_file, tuple(self.sources.extra))
        now = time.monotonic()
        hit = self._source_cache.get(key)
        if hit is not None and now - hit[1] < 1.0:
            return hit[0]
        path = self.sources.find(class_name, source_file)
        if len(self._source_cache) > 512:
            self._source_cache.clear()
        self._source_cache[key] = (str(path) if path else None, now)
        return self._source_cache[key][0]

    async def step(self, kind: str, thread: str | int | None, count: int, timeout: float, actor: Actor) -> WaitResult:
        """Step one thread. From a suspend-all stop the other threads run while it steps and are all
        suspended again when the step ends (as jdb and IntelliJ do: a step that waits for another thread, or a
        program that exits meanwhile, never hangs); stops of other threads not delivered yet stay suspended.
        From a suspend-thread stop only this thread moves; the others keep doing what they did."""
        await self.ensure_connected()
        self.require_stopped()
        kinds = {"over": (StepDepth.OVER, StepSize.LINE), "next": (StepDepth.OVER, StepSize.LINE),
                 "into": (StepDepth.INTO, StepSize.LINE), "in": (StepDepth.INTO, StepSize.LINE),
                 "out": (StepDepth.OUT, StepSize.LINE), "up": (StepDepth.OUT, StepSize.LINE),
                 "stepi": (StepDepth.INTO, StepSize.MIN), "instruction": (StepDepth.INTO, StepSize.MIN)}
        if kind not in kinds:
            raise InvalidArgument(f"unknown step kind '{kind}'", "use over, into or out")
        if count < 1:
            raise InvalidArgument(f"step count {count} must be at least 1")
        tid = await self.resolve_thread(thread)
        record = self.threads.get(tid)
        if record.call:
            raise NotStopped(f"thread {record.name or tid} is inside a call to {record.call}",
                             "pause it first, or wait for the call to return")
        if self.threads.expected_count(tid) == 0:
            raise NotStopped(f"thread {record.name or tid} is running", "pause it, or step a stopped thread")
        depth, size = kinds[kind]
        if self._step is not None:
            await self._clear_step_request(self._step)
            await self._clear_exit_request(self._step)
        vm_wide = record.stop_vm_wide if record.stop is not None else self.threads.vm_holds > 0
        self._step = StepState(tid, depth, size, count, kind=kind, vm_wide=vm_wide)
        await self._request_step(self._step)
        await self._request_return_values(self._step)
        self.history.add("step", f"step {kind}" + (f" x{count}" if count > 1 else ""), actor, thread=tid)
        if vm_wide:
            await self._release_all()
        else:
            await self._send_release(self.threads.release_thread(tid))
            self._after_release()
        return await self.wait_for_stop(timeout, new_only=True)

    async def _request_step(self, step: StepState, depth: StepDepth | None = None) -> None:
        vm = self.require_vm()
        await self._clear_step_request(step)
        mods = [Mod.Step(step.thread_id, step.size, depth if depth is not None else step.depth)]
        mods += [Mod.ClassExclude(p) for p in self.step_filters]
        mods.append(Mod.Count(1))
        policy = SuspendPolicy.ALL if step.vm_wide else SuspendPolicy.EVENT_THREAD
        reply = await vm.send(EventRequest.Set, EventKind.SINGLE_STEP, policy, mods)
        step.request_id = reply.request_id

    async def _request_return_values(self, step: StepState) -> None:
        """Method exits of the stepping thread with their return values (no suspension): the last one
        before the step ends is what a step out / over a call returned (IntelliJ's "returned 659")."""
        vm = self.require_vm()
        if step.size is not StepSize.LINE:  # (JDWP 1.6+, every JVM this debugger attaches to, has the event)
            return
        mods = [Mod.ThreadOnly(step.thread_id)] + [Mod.ClassExclude(p) for p in self.step_filters]
        with contextlib.suppress(JdwpError):
            reply = await vm.send(EventRequest.Set, EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, mods)
            step.exit_request_id = reply.request_id

    async def _clear_exit_request(self, step: StepState | None) -> None:
        if step and step.exit_request_id and self.conn and not self.conn.is_closed:
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.METHOD_EXIT_WITH_RETURN_VALUE, step.exit_request_id)
            step.exit_request_id = 0

    async def _clear_step_request(self, step: StepState | None) -> None:
        if step and step.request_id and self.conn and not self.conn.is_closed:
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.SINGLE_STEP, step.request_id)
            step.request_id = 0

    async def run_to(self, location: str, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        """Resume all threads until `location` (a temporary breakpoint; deferred like breakpoint_set when its
        class is not loaded yet). The stop says "run to LOCATION"."""
        await self.ensure_connected()
        info = await self.breakpoints.set_line(location, temporary=True, thread=thread, actor=actor, internal=True)
        if not info.verified and not _waits_for_class(info.message):
            await self.breakpoints.remove(info.id, actor=actor, quiet=True)
            raise InvalidArgument(f"cannot run to {location}: {info.message or 'no code there'}",
                                  "pick a line with code")
        self._run_to_target = location
        result = await self.resume(None, timeout, actor)
        if not result.stopped:
            result.message = (result.message + "; " if result.message else "") + f"run to {location} is still armed"
        return result

    # -- events --------------------------------------------------------------------------------------

    async def _event_loop(self, conn: JdwpConnection) -> None:
        """Events are handled as they arrive (see on_event in _connect); this task notices the end."""
        try:
            await conn.wait_closed()
        finally:
            if not self._detaching and self.conn is conn:
                await self._on_vm_gone(conn)

    async def _handle_composite(self, composite: Any) -> None:
        try:
            await self._process_composite(composite)
        except (VMDisconnected, NotConnected, asyncio.CancelledError):
            pass  # the VM went away while we handled its last events
        except Exception as exc:  # never let one bad event wedge the target
            log.exception("event handling failed")
            self.history.add("error", f"internal error while handling an event: {exc}", Actor.TARGET)
            with contextlib.suppress(Exception):
                await self._resume_for_policy(composite)

    async def _process_composite(self, composite: Any) -> None:
        stops: list[tuple[StopReason, bool]] = []
        vm = self.require_vm()
        policy = composite.suspend_policy
        event_thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
        # Count the suspension this packet made before anything else runs (a resume must find it).
        if policy != SuspendPolicy.NONE:
            self.threads.event_suspended(event_thread, vm_wide=policy == SuspendPolicy.ALL)
        for event in composite.events:
            kind = type(event).KIND
            if kind == EventKind.VM_START:
                self.history.add("vm_start", "VM started", Actor.TARGET, thread=event.thread)
                if policy != SuspendPolicy.NONE:
                    stops.append((StopReason(StopKind.VM_START, thread_id=event.thread,
                                             thread_name=await vm.thread_name(event.thread)), False))
            elif kind == EventKind.VM_DEATH:
                self.history.add("vm_death", "the VM is terminating", Actor.TARGET)
            elif kind == EventKind.CLASS_PREPARE:
                vm.class_prepared(event.type_id, event.ref_type_tag, event.signature, event.status)
                await self.breakpoints.on_class_prepare(event)
            elif kind == EventKind.CLASS_UNLOAD:
                vm.class_unloaded(event.signature)
            elif kind == EventKind.THREAD_START:
                name = await vm.thread_name(event.thread)
                self.threads.thread_started(event.thread, name)
                self.history.add("thread_start", f"thread {name} started", Actor.TARGET, thread=event.thread)
            elif kind == EventKind.THREAD_DEATH:
                self.history.add("thread_death", f"thread {await vm.thread_name(event.thread)} ended", Actor.TARGET,
                                 thread=event.thread)
                self.threads.thread_ended(event.thread)
                vm.thread_died(event.thread)
            elif self._step is not None and event.request_id == self._step.exit_request_id and self._step.exit_request_id:
                if event.value.tag != Tag.VOID:  # no suspension: only remembered (a void method returns nothing)
                    self._step.returned = (event.location, event.value)
            elif kind in STOP_EVENT_KINDS:
                if self.threads.get(event.thread).call:
                    self.history.add("suppressed", f"{type(event).__name__} during an evaluation was not stopped at",
                                     Actor.TARGET, thread=event.thread, request=event.request_id)
                    continue
                if kind == EventKind.SINGLE_STEP:
                    decision = await self._on_step(event)
                else:
                    decision = await self.breakpoints.on_event(event)
                if decision is not None:
                    stops.append(decision)
        if not stops:
            await self._resume_for_policy(composite)
            return
        # One stop per composite: a breakpoint beats a step at the same place; others are listed in `also`.
        stops.sort(key=lambda s: (s[0].kind is StopKind.STEP, s[0].breakpoint_id is None))
        reason, needs_vm_suspend = stops[0]
        reason.also = [s.breakpoint_id for s, _ in stops[1:] if s.breakpoint_id and s.breakpoint_id != reason.breakpoint_id]
        if any(s.kind is StopKind.BREAKPOINT and s.breakpoint_id is None for s, _ in stops) and self._run_to_target:
            reason.run_to = self._run_to_target  # run_to's own temporary breakpoint is one of them
            self._run_to_target = None
        step = self._step
        if step and step.thread_id == reason.thread_id:
            if reason.kind is StopKind.STEP:
                await self._attach_return_value(step, reason)
            await self._clear_step_request(step)
            await self._clear_exit_request(step)
            self._step = None
        vm_wide = policy == SuspendPolicy.ALL
        if needs_vm_suspend and reason.thread_id:
            # A suspend-all breakpoint whose condition/log is checked here arrives suspending only its thread.
            # Suspend the rest, then take the event's own suspension back: the thread is suspended exactly
            # once, as an invocation (evaluate) requires.
            await vm.send(VirtualMachine.Suspend)
            await vm.send(ThreadReference.Resume, reason.thread_id)
            self.threads.convert_to_vm_wide(reason.thread_id)
            vm_wide = True
        elif policy != SuspendPolicy.NONE:
            self.threads.event_kept(event_thread, vm_wide=vm_wide)
        await self._become_stopped(reason, vm_wide)

    async def _attach_return_value(self, step: StepState, reason: StopReason) -> None:
        if step.returned is None:
            return
        location, value = step.returned
        with contextlib.suppress(JdwpError, DebuggerError):
            method = await self.require_vm().method(location.class_id, location.method_id)
            reason.returned_from = method.name
            reason.return_value = await self.inspector.view(value)

    async def _resume_for_policy(self, composite: Any) -> None:
        conn = self.conn
        if conn is None or conn.is_closed:
            return
        thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
        if composite.suspend_policy == SuspendPolicy.ALL:
            self.threads.event_resumed(None, vm_wide=True)
            _forget(conn.send_nowait(VirtualMachine.Resume))
        elif composite.suspend_policy == SuspendPolicy.EVENT_THREAD and thread:
            self.threads.event_resumed(thread, vm_wide=False)
            _forget(conn.send_nowait(ThreadReference.Resume, thread))
        conn.flush()  # the target waits for this: don't hold it until the end of the loop turn

    async def _on_step(self, event: Any) -> tuple[StopReason, bool] | None:
        step = self._step
        if step is None or event.request_id != step.request_id:
            return None  # a stale step request: ignore it (its thread is resumed by policy)
        vm = self.require_vm()
        method = await vm.line_table(event.location.class_id, event.location.method_id)
        class_name = (await vm.type(event.location.class_id)).name
        skip = (method.is_synthetic and not method.is_lambda_body) or method.is_bridge or method.is_static_initializer
        # Lambda proxies (Feat$$Lambda$1/0x….test) have no line info: go on into the lambda body, as the JDK does.
        proxy = "$$Lambda" in class_name or (not method.lines and not method.is_native and step.depth is StepDepth.INTO)
        if (skip or proxy) and step.skips < 20:
            # IDE behaviour: don't stop in accessors, bridges, lambda proxies or class initialisers.
            step.skips += 1
            await self._request_step(step, StepDepth.OUT if method.is_static_initializer else step.depth)
            return None
        step.remaining -= 1
        if step.remaining > 0:
            await self._request_step(step)
            return None
        location = await self.code_location(event.location)
        return StopReason(StopKind.STEP, thread_id=event.thread, thread_name=await vm.thread_name(event.thread),
                          location=location), False

    async def _become_stopped(self, reason: StopReason, vm_wide: bool) -> None:
        """A thread is suspended by a stop of its own. It is recorded once in the history now, becomes the
        current stop if there is none, and waits in the set until a waiting call takes it."""
        tid = reason.thread_id or 0
        reason.all_threads = vm_wide
        self.threads.add_stop(tid, reason, vm_wide, reason.kind.value.lower())
        if self.stop is None or self.state is not SessionState.STOPPED:
            await self._select(reason)  # (before the history record: watchers read the state with it)
        self.history.add("stop", reason.headline(), Actor.TARGET, stop=reason.to_dict())
        self._notify_waiters()

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

    async def _send(self, command: Any, *args: Any) -> Any:
        vm = await self.ensure_connected()
        try:
            return await vm.send(command, *args)
        except JdwpError as exc:
            raise TargetError(f"the JVM refused {command.name}: {exc.code.name if hasattr(exc.code, 'name') else exc.code}") from None


class InvocationCall:
    """Sends the invoke command of one call; a reply that comes after the timeout is still noticed (the
    thread is back at its stop then, or is resumed when that stop was released meanwhile)."""

    CHECK_AFTER = 0.25  # seconds before asking whether the call runs at all

    def __init__(self, session: Session, thread_id: int) -> None:
        self.session = session
        self.thread_id = thread_id
        self.timed_out = False

    async def _unblock(self, conn: Any) -> None:
        """A running call leaves its thread at suspend count 0. Above 0 it has not started: another thread's
        suspend-all event (sent while this one was being handled) suspended it once more. Lift that one for
        the call (it is put back when the call returns, and the event is counted when it arrives)."""
        try:
            count = (await conn.send(ThreadReference.SuspendCount, self.thread_id)).suspend_count
        except (JdwpError, VMDisconnected):
            return
        record = self.session.threads.get(self.thread_id)
        if count > 0 and not record.paused:
            await conn.send(ThreadReference.Resume, self.thread_id)
            record.call_extra += 1
            record.call_debt += 1

    async def send(self, command: Any, *args: Any, timeout: float, what: str = "a call") -> Any:
        conn = self.session.require_vm().conn
        future = conn.send_nowait(command, *args)
        conn.flush()
        deadline = time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                try:
                    return await asyncio.wait_for(asyncio.shield(future), min(remaining, self.CHECK_AFTER))
                except TimeoutError:
                    if time.monotonic() >= deadline:
                        raise
                    await self._unblock(conn)
        except TimeoutError:
            self.timed_out = True
            thread_id, session = self.thread_id, self.session

            def returned(f: asyncio.Future[Any]) -> None:
                if not f.cancelled() and f.exception() is None:
                    session._call_returned_late(thread_id, what)  # noqa: SLF001

            future.add_done_callback(returned)
            raise TimeoutError(f"the VM did not answer {command.name} within {timeout:g}s") from None


def _waits_for_class(message: str | None) -> bool:
    """Is an unverified breakpoint only waiting for its class to load (so run_to may defer like breakpoint_set)?"""
    text = (message or "").lower()
    return "not loaded" in text or "pending" in text and "no code" not in text


def _is_vm_start(composite: Any) -> bool:
    return composite is not None and any(type(e).KIND == EventKind.VM_START for e in composite.events)


def _forget(future: asyncio.Future[Any]) -> None:
    """Fire-and-forget a request: nobody awaits it, so swallow its outcome."""
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
