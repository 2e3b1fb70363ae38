"""The session's shared state and its access rules: what every part of the session (lifecycle, execution,
event dispatch) reads and checks; plus invocations on a suspended thread (InvocationCall)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...jdwp import (
    EventKind,
    JdwpConnection,
    JdwpError,
    StepDepth,
    StepSize,
    SuspendPolicy,
    ThreadReference,
    VirtualMachine,
    VMDisconnected,
)
from ..breakpoints import BreakpointTracker
from ..errors import DebuggerError, InvalidArgument, NotConnected, NotFound, NotStopped, TargetError, refused
from ..history import EventHistory
from ..launcher import LaunchedProcess
from ..model import (
    Actor,
    SessionState,
    StopKind,
    StopReason,
    VmInfo,
)
from ..secrets import KnownSecrets, redact_outgoing
from ..sources import SourcePath
from ..threads import Release, ThreadBook
from ..vm import Vm
from .deadlines import Deadlines

if TYPE_CHECKING:
    from ..foreign import ForeignClient
    from ..inspect.inspector import Inspector


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
    # From a method-exit stop: (class, method) of that exit, already reported. An in-JVM exit stands just
    # before the return, so its exit comes again as the step runs: not what the step returned from.
    seen_exit: tuple[int, int] | None = None
    # A step from a frame on obsolete code, which the JVM steps by instruction (see Events._on_step): the line
    # it started on (of the old version's table) and the method version it steps in.
    start_line: int | None = None
    start_method: int | None = None
    instructions: int = 0  # instructions stepped on obsolete code to reach the next line
    # A step from native or filtered code (a pause in Thread.sleep) first steps out until the thread's frame
    # count is this, the program's frame the person sees (step_origin.py); 0 once there (or never needed).
    leave_to: int = 0
    # The step filters this step keeps (None: the session's): fewer when it starts in filtered code with no
    # program frame to step out to (step_origin.step_start).
    filters: tuple[str, ...] | None = None
    # Where the step ended (its JDWP location), and the request that stops it just after the in-JVM probe calls
    # the line there starts with, which run first (Events._run_line_probes_first).
    ended_at: Any = None
    probes_request: int = 0


NO_SIDE_EFFECTS: contextvars.ContextVar[str | None] = contextvars.ContextVar("tracepilot_no_side_effects",
                                                                               default=None)


@contextlib.contextmanager
def no_side_effects(why: str) -> Iterator[None]:
    """Evaluations awaited in this block refuse invocation, `new` and assignment, as in a read-only session
    (the share host runs a follow-only client's looks this way). Other tasks are not affected."""
    token = NO_SIDE_EFFECTS.set(why)
    try:
        yield
    finally:
        NO_SIDE_EFFECTS.reset(token)


class SessionBase:
    """State of one session and the checks every operation makes before it acts."""

    def __init__(self, *, read_only: bool = False, redact: bool = False, sourcepath: Sequence[str] = ()) -> None:
        self.read_only = read_only
        self.redact = redact
        # --redact: the secrets learned so far; every value leaving the debugger is checked against it
        self.secrets: KnownSecrets | None = KnownSecrets() if redact else None
        self.sources = SourcePath(list(sourcepath))
        self.history = EventHistory(redactor=self.redact_outgoing if redact else None)
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
        self._deadlines = Deadlines()  # when each of them gives up (one timer for all)
        self._said_running = False  # attach answered "running" (a late VMStart then runs on: see Events)
        self._event_task: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._taps: list[Any] = []
        self.foreign: list[ForeignClient] = []  # guest debuggers on this connection (the JDWP front end)
        self._stopping = False
        self._step: StepState | None = None
        # Pauses so far and who made the last one: a pause is a stop for everyone, so it answers every call
        # waiting for a new stop (an agent's resume while a person pauses in `tracepilot watch`).
        self.pauses = 0
        self.paused_by: Actor | None = None
        self._detaching = False
        self.exit_code: int | None = None
        self._source_cache: dict[tuple[Any, ...], tuple[str | None, float]] = {}

    def redact_outgoing(self, value: Any) -> Any:
        """`value` as it may leave the debugger: under --redact, secrets hidden (core/secrets.py)."""
        return value if self.secrets is None else redact_outgoing(value, self.secrets)

    # -- access --------------------------------------------------------------------------------------

    @property
    def side_effects_refused(self) -> str | None:
        """Why evaluations may not invoke, create or assign right now (read-only, no_side_effects()), or None."""
        return "read-only session" if self.read_only else NO_SIDE_EFFECTS.get()

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
        from ..locations import suggest

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
            self.conn.send_unanswered(ThreadReference.Resume, thread_id)
        for _ in range(extra):  # back at its stop: the suspensions lifted for the call are put back
            self.conn.send_unanswered(ThreadReference.Suspend, thread_id)
        self.conn.flush()
        self.history.add("call_returned", f"{what} returned late in thread {name}"
                         + ("; resumed (its stop had been released)" if orphan else "; back at its stop"),
                         Actor.TARGET, thread=thread_id)


    async def _send(self, command: Any, *args: Any) -> Any:
        vm = await self.ensure_connected()
        try:
            return await vm.send(command, *args)
        except JdwpError as exc:
            raise TargetError(refused(exc)) from None


class InvocationCall:
    """Sends the invoke command of one call; a reply that comes after the timeout is still noticed (the
    thread is back at its stop then, or is resumed when that stop was released meanwhile)."""

    CHECK_AFTER = 0.25  # seconds before asking whether the call runs at all
    REPLY_WAIT = 0.25  # seconds a call found suspended is given for its reply, before it is taken as not started

    def __init__(self, session: SessionBase, thread_id: int) -> None:
        self.session = session
        self.thread_id = thread_id
        self.timed_out = False

    async def _unblock(self, conn: Any, call: asyncio.Future[Any]) -> None:
        """A running call leaves its thread at suspend count 0. Above 0, either it has not started (another
        thread's suspend-all event, sent while this one was being handled, suspended it once more: lifted for
        the call with one resume, put back when the call returns; the event is counted when it arrives), or it
        has just returned: the JVM suspends the thread again when the call returns, *before* it writes the
        reply. The reply tells them apart: taken, or coming soon after, the call returned and its thread stays
        where it is. (Resumed, a returned call's thread ran on from the stop the debugger still reported: "not
        stopped" right after "stopped", on a loaded machine where the reply was taken late.)"""
        if not await self._held(conn, call):
            return
        await asyncio.wait([call], timeout=self.REPLY_WAIT)  # (a returned call's reply is on its way)
        if not await self._held(conn, call):
            return
        record = self.session.threads.get(self.thread_id)
        await conn.send(ThreadReference.Resume, self.thread_id)
        record.call_extra += 1
        record.call_debt += 1

    async def _held(self, conn: Any, call: asyncio.Future[Any]) -> bool:
        """Is the thread suspended with its call unanswered (and not by a pause, which holds it on purpose)?"""
        if call.done():
            return False
        try:
            count = (await conn.send(ThreadReference.SuspendCount, self.thread_id)).suspend_count
        except (JdwpError, VMDisconnected):
            return False
        return count > 0 and not call.done() and not self.session.threads.get(self.thread_id).paused

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
                    await self._unblock(conn, future)
        except TimeoutError:
            self.timed_out = True
            thread_id, session = self.thread_id, self.session

            def returned(f: asyncio.Future[Any]) -> None:
                if not f.cancelled() and f.exception() is None:
                    session._call_returned_late(thread_id, what)  # noqa: SLF001

            future.add_done_callback(returned)
            raise TimeoutError(f"the VM did not answer {command.name} within {timeout:g}s") from None



def is_vm_start(composite: Any) -> bool:
    """A VMStart that holds the JVM (suspend=y). A suspend=n JVM attached in the moment between its agent's
    listening and its VM init sends one too, suspending nothing: attach waited 15 s for a stop from it."""
    return composite is not None and composite.suspend_policy != SuspendPolicy.NONE \
        and any(type(e).KIND == EventKind.VM_START for e in composite.events)

