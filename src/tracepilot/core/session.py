"""The session: one JDWP connection, its state machine, its stops, execution control and lifecycle.

States: DISCONNECTED -> RUNNING <-> STOPPED -> EXITED. Events are handled as composite units; stop events
stay suspended, monitoring events resume at once (seed 001). Lifecycle follows seed 000's matrix:
detach = clean slate; VM death keeps the target address, breakpoints and history and reconnects on
next use; reset keeps the connection and the marks.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import deque
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
    VmInfo,
    WaitResult,
)
from .sources import SourcePath
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
class ResumePlan:
    """What releases the current stop: a VM-wide resume and/or thread resumes, matching the suspensions."""

    vm: int = 0
    threads: tuple[int, ...] = ()


@dataclass
class StepState:
    thread_id: int
    depth: StepDepth
    size: StepSize
    remaining: int
    request_id: int = 0
    kind: str = "over"
    skips: int = 0


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
        self._plan = ResumePlan()
        self._pending_stops: deque[tuple[StopReason, ResumePlan]] = deque()
        self._waiters: set[asyncio.Future[None]] = set()
        self._event_task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._invoking: set[int] = set()
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

    async def ensure_connected(self) -> Vm:
        """The live VM; after a VM death with a remembered target, try one reconnect (seed 000)."""
        if self._vm is not None and self.conn is not None and not self.conn.is_closed:
            return self._vm
        if self.state is SessionState.EXITED and self.target and self.launched is None:
            host, port = self.target
            try:
                await self._connect(host, port, timeout=2.0, actor=Actor.TARGET, reconnect=True)
            except DebuggerError as exc:
                raise NotConnected(f"the VM at {host}:{port} has terminated and does not answer again ({exc.message})",
                                   "start it again and retry, or attach elsewhere") from None
            return self.require_vm()
        if self.state is SessionState.EXITED and self.launched is not None:
            code = self.launched.exit_code
            raise NotConnected(f"the launched program has exited (exit code {code})", "launch it again")
        return self.require_vm()

    def require_stopped(self, thread_id: int | None = None) -> None:
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
        if isinstance(thread, int) or str(thread).isdigit():
            tid = int(thread)
            threads = (await vm.send(VirtualMachine.AllThreads)).threads
            if tid in threads:
                return tid
            raise NotFound(f"no thread with id {tid}", hint="threads lists the live threads")
        threads = (await vm.send(VirtualMachine.AllThreads)).threads
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
    async def invoking(self, thread_id: int) -> AsyncIterator[None]:
        """Around a method invocation: events of this thread meanwhile are resumed and recorded as suppressed."""
        self._invoking.add(thread_id)
        try:
            yield
        finally:
            self._invoking.discard(thread_id)
            self.stop_generation += 1  # frame ids are stale after an invocation

    # -- attach / launch / detach --------------------------------------------------------------------

    async def attach(self, address: str, timeout: float, actor: Actor) -> Status:
        host, port = parse_address(address)
        if self.conn is not None and not self.conn.is_closed:
            if self.target == (host, port):
                return await self.status()  # already attached to this target
            await self._teardown(clean=True)
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
        self.state = SessionState.RUNNING
        self.stop = None
        self._plan = ResumePlan()
        self._pending_stops.clear()
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
        self.state = SessionState.DISCONNECTED
        self.stop = None
        self.target = None
        self.vm_info = None
        self.launched = None
        self.breakpoints.clear_all_local()
        self.inspector.reset()
        self.inspector.forget_vm()
        self.history.clear()
        self._pending_stops.clear()
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
            pending_stops=len(self._pending_stops), last_error=self.last_error,
            last_event_seq=self.history.last_seq,
        )

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

    async def wait_for_stop(self, timeout: float) -> WaitResult:
        started = time.monotonic()
        deadline = started + max(timeout, 0.0)
        # Loop: a wake-up may belong to a stop that was already left again (a fast resume by another caller).
        while (self.state is SessionState.RUNNING or self._stopping) and (remaining := deadline - time.monotonic()) > 0:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.add(waiter)
            try:
                await asyncio.wait_for(asyncio.shield(waiter), remaining)
            except TimeoutError:
                break
            finally:
                self._waiters.discard(waiter)
        waited = int((time.monotonic() - started) * 1000)
        if self.state is SessionState.STOPPED:
            return WaitResult(True, self.state, self.stop, waited)
        if self.state is SessionState.RUNNING:
            return WaitResult(False, self.state, None, waited,
                              f"still running after {timeout:g}s" if timeout > 0 else "running")
        if self.state is SessionState.EXITED:
            return WaitResult(False, self.state, self.stop, waited, "the VM terminated")
        return WaitResult(False, self.state, None, waited, "not attached: call attach or launch")

    # -- execution -----------------------------------------------------------------------------------

    async def resume(self, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        await self.ensure_connected()
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            await self._send(ThreadReference.Resume, tid)
            self.history.add("resume", f"resumed thread {await self.vm.thread_name(tid)}", actor, thread=tid)
            if self.stop and self.stop.thread_id == tid and not self._plan.vm:
                await self._leave_stop()
            return await self.wait_for_stop(timeout)
        if self.state is SessionState.STOPPED:
            self.history.add("resume", "resumed", actor)
            await self._leave_stop()
        return await self.wait_for_stop(timeout)

    async def _leave_stop(self) -> None:
        """Release the current stop; if other stops are queued, the next becomes current."""
        plan = self._plan
        self._plan = ResumePlan()
        self.stop_generation += 1
        if self._pending_stops:
            reason, next_plan = self._pending_stops.popleft()
            await self._release(plan)
            await self._become_stopped(reason, next_plan)
            return
        self.state = SessionState.RUNNING
        self.stop = None
        await self._release(plan)

    async def _release(self, plan: ResumePlan) -> None:
        conn = self.conn
        if conn is None or conn.is_closed:
            return
        futures = [conn.send_nowait(ThreadReference.Resume, t) for t in plan.threads]
        futures += [conn.send_nowait(VirtualMachine.Resume) for _ in range(plan.vm)]
        results = await asyncio.gather(*futures, return_exceptions=True)
        for r in results:
            if isinstance(r, JdwpError):
                log.debug("resume after stop: %s", r)

    async def pause(self, thread: str | int | None, actor: Actor) -> WaitResult:
        vm = await self.ensure_connected()
        if self.state is SessionState.STOPPED:
            return await self.wait_for_stop(0)
        if thread is not None and thread != "":
            tid = await self.resolve_thread(thread)
            await vm.send(ThreadReference.Suspend, tid)
            plan = ResumePlan(threads=(tid,))
        else:
            await vm.send(VirtualMachine.Suspend)
            tid = 0
            plan = ResumePlan(vm=1)
        summaries = await self._where_threads_are()
        if not tid:
            tid = next((t for t, name, loc in summaries if name == "main" and loc), 0) or next(
                (t for t, _n, loc in summaries if loc), 0)
        location = next((loc for t, _n, loc in summaries if t == tid), None)
        where = "; ".join(f"{name} at {loc}" for _t, name, loc in summaries if loc)
        reason = StopReason(StopKind.PAUSE, thread_id=tid or None,
                            thread_name=await vm.thread_name(tid) if tid else None, location=location,
                            message=None)
        reason_where = where[:2000]
        self.history.add("pause", "paused" + (f": {reason_where}" if reason_where else ""), actor)
        await self._become_stopped(reason, plan)
        return await self.wait_for_stop(0)

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
        depth, size = kinds[kind]
        self._step = StepState(tid, depth, size, count, kind=kind)
        await self._request_step(self._step)
        self.history.add("step", f"step {kind}" + (f" x{count}" if count > 1 else ""), actor, thread=tid)
        await self._leave_stop()
        return await self.wait_for_stop(timeout)

    async def _request_step(self, step: StepState, depth: StepDepth | None = None) -> None:
        vm = self.require_vm()
        await self._clear_step_request(step)
        mods = [Mod.Step(step.thread_id, step.size, depth if depth is not None else step.depth)]
        mods += [Mod.ClassExclude(p) for p in self.step_filters]
        mods.append(Mod.Count(1))
        reply = await vm.send(EventRequest.Set, EventKind.SINGLE_STEP, SuspendPolicy.ALL, mods)
        step.request_id = reply.request_id

    async def _clear_step_request(self, step: StepState | None) -> None:
        if step and step.request_id and self.conn and not self.conn.is_closed:
            with contextlib.suppress(JdwpError):
                await self.conn.send(EventRequest.Clear, EventKind.SINGLE_STEP, step.request_id)
            step.request_id = 0

    async def run_to(self, location: str, thread: str | int | None, timeout: float, actor: Actor) -> WaitResult:
        await self.ensure_connected()
        info = await self.breakpoints.set_line(location, temporary=True, thread=thread, actor=actor, internal=True)
        if not info.verified:
            await self.breakpoints.remove(info.id, actor=actor, quiet=True)
            raise InvalidArgument(f"cannot run to {location}: {info.message or 'no code there in a loaded class'}",
                                  "pick a line with code in a loaded class")
        result = await self.resume(None, timeout, actor)
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
        for event in composite.events:
            kind = type(event).KIND
            if kind == EventKind.VM_START:
                self.history.add("vm_start", "VM started", Actor.TARGET, thread=event.thread)
                if composite.suspend_policy != SuspendPolicy.NONE:
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
                self.history.add("thread_start", f"thread {await vm.thread_name(event.thread)} started", Actor.TARGET,
                                 thread=event.thread)
            elif kind == EventKind.THREAD_DEATH:
                self.history.add("thread_death", f"thread {await vm.thread_name(event.thread)} ended", Actor.TARGET,
                                 thread=event.thread)
                vm.thread_died(event.thread)
            elif kind in STOP_EVENT_KINDS:
                if event.thread in self._invoking:
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
        stops.sort(key=lambda s: s[0].kind is StopKind.STEP)
        reason, needs_vm_suspend = stops[0]
        reason.also = [s.breakpoint_id for s, _ in stops[1:] if s.breakpoint_id and s.breakpoint_id != reason.breakpoint_id]
        if self._step and self._step.thread_id == reason.thread_id and reason.kind is not StopKind.STEP:
            await self._clear_step_request(self._step)
            self._step = None
        plan = self._plan_for(composite, reason)
        if needs_vm_suspend:
            await vm.send(VirtualMachine.Suspend)
            plan = ResumePlan(vm=plan.vm + 1, threads=plan.threads)
        await self._become_stopped(reason, plan)

    def _plan_for(self, composite: Any, reason: StopReason) -> ResumePlan:
        if composite.suspend_policy == SuspendPolicy.ALL:
            return ResumePlan(vm=1)
        if composite.suspend_policy == SuspendPolicy.EVENT_THREAD and reason.thread_id:
            return ResumePlan(threads=(reason.thread_id,))
        return ResumePlan()

    async def _resume_for_policy(self, composite: Any) -> None:
        conn = self.conn
        if conn is None or conn.is_closed:
            return
        if composite.suspend_policy == SuspendPolicy.ALL:
            _forget(conn.send_nowait(VirtualMachine.Resume))
        elif composite.suspend_policy == SuspendPolicy.EVENT_THREAD:
            for event in composite.events:
                thread = getattr(event, "thread", None)
                if thread:
                    _forget(conn.send_nowait(ThreadReference.Resume, thread))
                    break
        conn.flush()  # the target waits for this: don't hold it until the end of the loop turn

    async def _on_step(self, event: Any) -> tuple[StopReason, bool] | None:
        step = self._step
        if step is None or event.request_id != step.request_id:
            return None  # a stale step request: ignore it (its thread is resumed by policy)
        vm = self.require_vm()
        method = await vm.line_table(event.location.class_id, event.location.method_id)
        skip = (method.is_synthetic and not method.is_lambda_body) or method.is_bridge or method.is_static_initializer
        if skip and step.skips < 20:
            # IDE behaviour: don't stop in accessors, bridges or class initialisers; get out of them.
            step.skips += 1
            await self._request_step(step, StepDepth.OUT if method.is_static_initializer else step.depth)
            return None
        step.remaining -= 1
        if step.remaining > 0:
            await self._request_step(step)
            return None
        await self._clear_step_request(step)
        self._step = None
        location = await self.code_location(event.location)
        return StopReason(StopKind.STEP, thread_id=event.thread, thread_name=await vm.thread_name(event.thread),
                          location=location), False

    async def _become_stopped(self, reason: StopReason, plan: ResumePlan) -> None:
        if self.state is SessionState.STOPPED and self.stop is not None:
            # Another thread stopped while we are stopped: keep it for after the next resume.
            self._pending_stops.append((reason, plan))
            self.history.add("stop_queued", f"also {reason.headline()}", Actor.TARGET, stop=reason.to_dict())
            return
        self.state = SessionState.STOPPED
        self.stop = reason
        self._plan = plan
        self.stop_generation += 1
        # Waiters see the stop only once watchers and changed values are known (`_stopping`).
        self._stopping = True
        try:
            if reason.kind is not StopKind.VM_START:  # nothing has run yet: no frames, no values to compare
                await self.inspector.on_stop()
        except NotImplementedError:
            pass
        except Exception as exc:  # watchers failing must not lose the stop
            log.warning("on_stop hook failed: %s", exc)
        finally:
            self._stopping = False
        self.history.add("stop", reason.headline(), Actor.TARGET, stop=reason.to_dict())
        if self.stop is reason:  # not already resumed while the hooks ran
            self._notify_waiters()

    async def _on_vm_gone(self, conn: JdwpConnection) -> None:
        """VM death or disconnect: keep target, breakpoints (unbound) and history; drop the rest."""
        reason = conn.close_reason
        self.conn = None
        self._vm = None
        self.state = SessionState.EXITED
        self.stop = StopReason(StopKind.VM_DEATH, message=str(reason) if reason else None)
        self._plan = ResumePlan()
        self._pending_stops.clear()
        self._step = None
        self.breakpoints.forget_vm()
        self.inspector.forget_vm()
        if self.launched is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.launched.exited.wait(), 2.0)
            self.exit_code = self.launched.exit_code
        code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        self.history.add("vm_death", f"the VM terminated{code}", Actor.TARGET)
        self._notify_waiters()

    async def _send(self, command: Any, *args: Any) -> Any:
        vm = await self.ensure_connected()
        try:
            return await vm.send(command, *args)
        except JdwpError as exc:
            raise TargetError(f"the JVM refused {command.name}: {exc.code.name if hasattr(exc.code, 'name') else exc.code}") from None


def _is_vm_start(composite: Any) -> bool:
    return composite is not None and any(type(e).KIND == EventKind.VM_START for e in composite.events)


def _forget(future: asyncio.Future[Any]) -> None:
    """Fire-and-forget a request: nobody awaits it, so swallow its outcome."""
    future.add_done_callback(lambda f: f.cancelled() or f.exception())
