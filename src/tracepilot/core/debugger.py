"""`Debugger`: the one object every front end drives. Every user action exists here once.

It composes the session (connection, state, stops, execution, breakpoints — the packages session/ and
breakpoints/) and the inspector (threads, stacks, values, watchers, marks, tracing, code changes —
inspect/inspector.py). Mutating methods take `actor` so the shared history records who did what. Its typed
surface, which the share client and test fakes also implement, is `DebuggerApi` in api.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..jdwp import JdwpError, JdwpTransportError, ThreadReference, VirtualMachine, VMDisconnected
from .capture.model import Capture
from .capture.points import capture_state, limits_arguments
from .errors import DebuggerError, InvalidArgument, NotConnected, ReadOnlyViolation, TargetError, refused
from .foreign import ForeignClient
from .inspect.inspector import Inspector
from .model import (
    Actor,
    BreakpointInfo,
    EventRecord,
    FrameInfo,
    OutputChunk,
    SessionState,
    Status,
    StopReason,
    ThreadInfo,
    ValueView,
    Variable,
    WaitResult,
)
from .secrets import redact_error, redact_outgoing
from .session import Session
from .target_context import CHOSEN
from .target_info import TargetInfo
from .targets import Targets

EXIT_WAIT = 10.0  # seconds detach(terminate=True) waits for an attached JVM to end


def _explained(exc: Exception) -> Exception | None:
    """Protocol-level failures reaching a front end become core errors that say what to do next (None: the
    error goes out as it is)."""
    if isinstance(exc, DebuggerError):
        return None
    if isinstance(exc, VMDisconnected):
        return NotConnected(f"the VM disconnected ({exc})", "attach or launch again")
    if isinstance(exc, JdwpError):
        hint = "check the thread is suspended and try again" if exc.from_vm else (
            "try again; if it persists, detach and attach again (the debugger's tables may be stale)")
        return TargetError(refused(exc), hint)
    if isinstance(exc, JdwpTransportError):
        return TargetError(f"the connection to the JVM failed: {exc}", "attach again")
    if isinstance(exc, TimeoutError):
        return TargetError(f"the JVM did not answer in time ({exc})",
                           "it may be busy or hung: try again, pause it, or detach")
    return None


def _public_call(method: Any) -> Any:
    """What every public call of the Debugger goes through, in one frame (it runs on every call, each resume's
    too): routed to a target (core/targets.py: with one target exactly as before; with several, the one named
    with `on_target`, or the target of the current stop; calls that span targets are answered there), its
    protocol failures explained (_explained), and under --redact its answer and its error leaving through
    `redact_outgoing`/`redact_error` (core/secrets.py): the one place where what the debugger has learned to be
    secret is taken out, for every front end."""

    @functools.wraps(method)
    async def wrapper(self: Debugger, *args: Any, **kwargs: Any) -> Any:
        secrets = self.session.secrets
        try:
            result = await self.targets.route(method, self, args, kwargs)
        except Exception as exc:  # a DebuggerError, or a bug whose text a front end may still show
            explained = _explained(exc)
            if secrets is not None:
                redact_error(explained or exc, secrets)
            if explained is None:
                raise
            raise explained from None
        return result if secrets is None else redact_outgoing(result, secrets)

    wrapper.raw_method = method  # type: ignore[attr-defined]  (what a routed call runs on its target)
    return wrapper


def _with_explained_errors(cls: type) -> type:
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, _public_call(member))
    return cls


@_with_explained_errors
class Debugger:
    def __init__(self, *, read_only: bool = False, redact: bool = False, sourcepath: Sequence[str] = (),
                 default_actor: Actor = Actor.PERSON, logpoint_rate: float | None = None) -> None:
        def new_target() -> tuple[Session, Inspector]:
            session = Session(read_only=read_only, redact=redact, sourcepath=sourcepath)
            if logpoint_rate is not None:  # log lines/s per logpoint before it is throttled (<= 0: never)
                session.breakpoints.logpoint_rate = logpoint_rate
            session.inspector = Inspector(session)
            return session, session.inspector

        # One target until a second launch or attach adds one (several JVMs in one session, core/targets.py).
        self.targets = Targets(new_target, list(sourcepath))
        self.default_actor = default_actor

    # The session and inspector of the target the running call acts on (outside a call: the selected one).

    @property
    def session(self) -> Session:
        return self.targets.acting().session

    @property
    def inspector(self) -> Inspector:
        return self.targets.acting().inspector

    @property
    def _launch_options(self) -> dict[str, Any] | None:  # the target's last launch, for restart
        return self.targets.acting().launch_options

    @_launch_options.setter
    def _launch_options(self, options: dict[str, Any] | None) -> None:
        self.targets.acting().launch_options = options

    def foreign_client(self, name: str, deliver: Callable[[Any], None]) -> ForeignClient:
        """A guest debugger on this session's JDWP connection (the JDWP front end): its event requests'
        events go to `deliver`, its stops show in status and history. Needs a live VM; `close()` it."""
        guest = ForeignClient(self.session, name, deliver)
        self.session.foreign.append(guest)
        return guest

    @property
    def history(self):  # noqa: ANN201
        return self.targets.history

    # What front ends read synchronously (a prompt, a stop's source line) without reaching the session.

    @property
    def state(self) -> SessionState:
        return self.session.state

    @property
    def current_stop(self) -> StopReason | None:
        """The stop selected among the suspended threads' stops (None while running); with several targets,
        of the current target, and it names that target."""
        target = self.targets.acting()
        return self.session.redact_outgoing(self.targets.tag(target, self.session.stop))

    @property
    def sourcepath(self) -> list[str]:
        return [str(root) for root in self.session.sources.roots]

    @property
    def read_only(self) -> bool:
        return self.session.read_only

    @property
    def target(self) -> tuple[str, int] | None:
        """The address attached to (kept after VM death, for the reconnect), or None."""
        return self.session.target

    def _actor(self, actor: Actor | None) -> Actor:
        return actor or self.default_actor

    # -- several targets ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def on_target(self, name: str | None) -> Iterator[None]:
        """Calls made in this block act on the target `name` (None or "": the default, the target of the
        current stop). An unknown name is refused by the first call, with the names there are."""
        token = CHOSEN.set(name or None)
        try:
            yield
        finally:
            CHOSEN.reset(token)

    async def targets_list(self) -> list[TargetInfo]:
        """Each target (JVM) of the session with its state; `current` marks the one calls act on by default."""
        return self.targets.infos()

    async def select_target(self, name: str, actor: Actor | None = None) -> Status:
        """Make `name` the current target: calls without a target act on it until the next stop elsewhere."""
        target = self.targets.select(name)
        with self.targets.acting_on(target):
            return self.targets.tag(target, await self.session.status())

    # -- connection ----------------------------------------------------------------------------------

    async def attach(self, address: str = "localhost:5005", timeout: float = 10.0, sourcepath: Sequence[str] = (),
                     actor: Actor | None = None, name: str | None = None) -> Status:
        """Attach to a JVM listening for a debugger; waits up to `timeout` seconds for it to listen. Beside a
        JVM already there it is a new target, named `name` (default: host:port)."""
        self.session.sources.add(*sourcepath)
        return await self.session.attach(address, timeout, self._actor(actor))

    async def launch(self, main: str | None = None, classpath: str | Sequence[str] | None = None, jar: str | None = None,
                     source: str | None = None, args: Sequence[str] = (), jvm_args: Sequence[str] = (),
                     cwd: str | None = None, env: dict[str, str] | None = None, sourcepath: Sequence[str] = (),
                     suspend: bool = True, java: str | None = None, actor: Actor | None = None,
                     name: str | None = None) -> Status:
        """Start a JVM under the debugger (suspended at VM start unless suspend=False). Beside a JVM already
        there it is a new target, named `name` (default: the main class's simple name, made unique)."""
        self._launch_options = dict(main=main, classpath=classpath, jar=jar, source=source, args=args,
                                    jvm_args=jvm_args, cwd=cwd, env=env, sourcepath=sourcepath, suspend=suspend,
                                    java=java)
        return await self.session.launch(
            main=main, classpath=classpath, jar=jar, source=source, args=args, jvm_args=jvm_args, cwd=cwd,
            env=env, sourcepath=sourcepath, suspend=suspend, java=java, actor=self._actor(actor))

    async def restart(self, actor: Actor | None = None) -> Status:
        """Launch the last launched program again with the same command line (IntelliJ's rerun); breakpoints
        and watchers carry over. A target still running is ended first."""
        if self._launch_options is None or self.session.launched is None:
            raise InvalidArgument("restart re-launches a program this debugger launched; there is none",
                                  "launch it (launch -cp DIR Main, launch Foo.java), or start the JVM again and attach")
        if self.session.conn is not None:
            await self.session._teardown(clean=False, terminate=True)  # keeps breakpoints, like a VM death
        return await self.launch(**self._launch_options, actor=actor)

    async def detach(self, terminate: bool = False, actor: Actor | None = None, keep_running: bool = False) -> Status:
        """Disconnect; with terminate, end the JVM and answer once it is gone (or say it is still exiting).
        A JVM this debugger launched ends too, unless `keep_running` (DAP's terminateDebuggee: false)."""
        if terminate and self.session.conn is not None and not self.session.conn.is_closed:
            await self.session.breakpoints.flush_logs()  # in-JVM logpoints' last lines, before the JVM goes
        exited = await self._exit_attached(terminate)
        status = await self.session.detach(terminate, self._actor(actor), keep_running=keep_running)
        if exited is not None:
            status.note = ("the JVM has exited" if exited else
                           f"the JVM was told to exit and is still exiting after {EXIT_WAIT:g}s")
        return status

    async def _exit_attached(self, terminate: bool) -> bool | None:
        """An attached JVM told to exit lives on for a while (shutdown): wait until it closes the connection,
        which it does as the process ends. None when there is nothing to wait for (a launched JVM is killed
        and reaped by the session)."""
        conn, session = self.session.conn, self.session
        if not terminate or conn is None or conn.is_closed or session.launched is not None or session.read_only:
            return None
        try:
            await conn.send(VirtualMachine.Exit, 1, timeout=2.0)
        except (JdwpError, JdwpTransportError, VMDisconnected, TimeoutError):
            pass  # already going: wait for the close all the same
        try:
            await asyncio.wait_for(conn.wait_closed(), EXIT_WAIT)
        except TimeoutError:
            return False
        return True

    async def status(self) -> Status:
        return await self.session.status()

    async def reset(self, actor: Actor | None = None) -> Status:
        """Clear breakpoints, watchers and history; keep the connection and the marks."""
        self.inspector.reset()
        return await self.session.reset(self._actor(actor))

    async def diagnose(self) -> dict[str, Any]:
        return await self.session.diagnose()

    async def add_sourcepath(self, paths: Sequence[str]) -> list[str]:
        """Add source roots (directories or jars) where sources are looked up; answers the whole sourcepath."""
        self.session.sources.add(*paths)
        return self.sourcepath

    async def close(self) -> None:
        """End this debugger: detach (terminating a launched target) and release everything."""
        await self.session.close()

    # -- execution -----------------------------------------------------------------------------------

    async def resume(self, thread: str | int | None = None, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        """Resume all threads (every stop already answered, every pause), or only `thread`; with timeout > 0
        wait that long for a new stop. A stop no call has returned yet (the current one too; for a person's
        front end the stop it shows counts as returned) is the answer at once, still suspended.
        The semantics (each stop delivered once, counted suspensions) are in session/ and threads.py."""
        return await self.session.resume(thread, timeout, self._actor(actor))

    async def pause(self, thread: str | int | None = None, actor: Actor | None = None) -> WaitResult:
        """Suspend all threads (or one; a thread inside a call that did not return is suspended there)."""
        return await self.session.pause(thread, self._actor(actor))

    async def step(self, kind: str = "over", thread: str | int | None = None, count: int = 1, timeout: float = 5.0,
                   actor: Actor | None = None) -> WaitResult:
        """Step one thread "over", "into" or "out" (kind "stepi": one instruction). After a step out or over
        a call the stop carries the returned value (`return_value`, `returned_from`)."""
        return await self.session.step(kind, thread, count, timeout, self._actor(actor))

    async def run_to(self, location: str, thread: str | int | None = None, timeout: float = 5.0,
                     actor: Actor | None = None) -> WaitResult:
        """Resume until `location` (deferred until its class loads); the stop says "run to LOCATION"."""
        return await self.session.run_to(location, thread, timeout, self._actor(actor))

    async def run_to_main(self, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        """Run a launched program to the first line of its main method (where jdb and pudb start a program
        given no breakpoint); the stop says "run to Main.main"."""
        launched = self.session.launched
        main = launched.plan.main_class if launched is not None else None
        if not main:
            raise InvalidArgument("the program's main class is not known (it was not launched by this debugger, "
                                  "or its jar names no Main-Class)", "set a breakpoint and resume instead")
        return await self.run_to(f"{main}.main", None, timeout, actor)

    async def wait_for_stop(self, timeout: float = 5.0) -> WaitResult:
        """The next stop no call has returned yet; the current one at once when every thread is suspended."""
        return await self.session.wait_for_stop(timeout)

    async def thread_id(self, thread: str | int | None = None) -> int:
        """The id of a thread given by id, numeric string or name (None: the current stop's); an error
        that names the live threads when there is no such thread."""
        return await self.session.resolve_thread(thread)

    async def interrupt(self, thread: str | int | None = None, actor: Actor | None = None) -> str:
        """Thread.interrupt() on one thread (default: the current stop's): it wakes from sleep, wait or join
        with InterruptedException once it runs. Suspension is unchanged. Answers what was done."""
        session = self.session
        if session.read_only:
            raise ReadOnlyViolation("interrupt")
        thread_id = await session.resolve_thread(thread)
        await session.require_vm().send(ThreadReference.Interrupt, thread_id)
        name = await session.require_vm().thread_name(thread_id)
        self.history.add("interrupt", f"interrupted thread {name}", self._actor(actor), thread_id=thread_id)
        return f"interrupted thread {name} (id {thread_id})"

    # -- breakpoints ---------------------------------------------------------------------------------

    async def breakpoint_set(self, location: str, condition: str | None = None, hit_count: str | int | None = None,
                             log: str | None = None, thread: str | int | None = None, temporary: bool = False,
                             suspend: str = "all", after: str | None = None, enabled: bool = True,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        return await self.session.breakpoints.set_line(
            location, condition=condition, hit_count=hit_count, log=log, thread=thread, temporary=temporary,
            suspend=suspend, after=after, enabled=enabled, actor=self._actor(actor),
            capture=capture_state(capture, list(expressions or ()), **_limits(capture_limits)))

    async def breakpoint_list(self) -> list[BreakpointInfo]:
        await self.session.breakpoints.flush_logs()  # in-JVM logpoints' hit counts exact as of now
        await self.session.breakpoints.in_jvm.refresh_hits()  # hits counted in the JVM, not yet read
        return self.session.breakpoints.list()

    async def breakpoint_update(self, id: str, actor: Actor | None = None, **options: Any) -> BreakpointInfo:  # noqa: A002
        return await self.session.breakpoints.update(id, actor=self._actor(actor), **options)

    async def breakpoint_remove(self, id: str, actor: Actor | None = None) -> list[str]:  # noqa: A002
        """Remove one breakpoint, or every one with id "all"; returns the removed ids."""
        return await self.session.breakpoints.remove(id, actor=self._actor(actor))

    async def exception_break(self, exception: str = "*", caught: bool = True, uncaught: bool = True,
                              condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                              enabled: bool = True, capture: bool | int | None = None,
                              expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                              actor: Actor | None = None) -> BreakpointInfo:
        return await self.session.breakpoints.set_exception(
            exception, caught=caught, uncaught=uncaught, condition=condition, log=log, thread=thread,
            enabled=enabled, actor=self._actor(actor),
            capture=capture_state(capture, list(expressions or ()), **_limits(capture_limits)))

    async def watchpoint_set(self, field: str, access: bool = False, modify: bool = True, instance: str | None = None,
                             condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        return await self.session.breakpoints.set_watchpoint(
            field, access=access, modify=modify, instance=instance, condition=condition, log=log, thread=thread,
            actor=self._actor(actor),
            capture=capture_state(capture, list(expressions or ()), **_limits(capture_limits)))

    async def method_break(self, method: str, on: str = "entry", condition: str | None = None, log: str | None = None,
                           thread: str | int | None = None, capture: bool | int | None = None,
                           expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                           actor: Actor | None = None) -> BreakpointInfo:
        return await self.session.breakpoints.set_method(
            method, on=on, condition=condition, log=log, thread=thread, actor=self._actor(actor),
            capture=capture_state(capture, list(expressions or ()), **_limits(capture_limits)))

    # -- observation ---------------------------------------------------------------------------------

    async def captures(self, id: str | None = None, wait: float = 0.0, limit: int = 100,  # noqa: A002
                       since: int = 0) -> list[Capture]:
        """Captures of capture points (all, or breakpoint `id`'s), oldest first, after capture number `since`;
        with none there yet, wait up to `wait` seconds for the next."""
        points = self.session.breakpoints
        bp_id = points.get(id).info.id if id else None
        await points.captures.in_probe.drain_quietly()  # (what the JVM took before this call is in the answer)
        found = points.captures.book.select(bp_id, since, limit)
        if not found and wait > 0:
            await points.captures.book.wait(wait)
            found = points.captures.book.select(bp_id, since, limit)
        return found

    async def events(self, since: int = 0, kinds: Sequence[str] | None = None, limit: int = 100) -> list[EventRecord]:
        await self.session.breakpoints.flush_logs()  # what in-JVM logpoints logged up to now
        return self.session.history.since(since, kinds, limit)

    async def output(self, stream: str = "both", since: int = 0) -> list[OutputChunk]:
        return self.session.read_output(stream, since)

    async def trace(self, pattern: str, duration: float = 5.0, max_calls: int = 100_000,
                    actor: Actor | None = None, resume: bool = False, folded: str | None = None,
                    folded_by: str | None = None) -> Any:
        return await self.inspector.trace(pattern, duration, max_calls, self._actor(actor), resume, folded,
                                          folded_by)

    # -- inspection ----------------------------------------------------------------------------------

    async def snapshot(self, thread: str | int | None = None) -> Any:
        return await self.inspector.snapshot(thread)

    async def threads(self, include_system: bool = False, with_locks: bool = False) -> list[ThreadInfo]:
        return await self.inspector.threads(include_system, with_locks)

    async def stack(self, thread: str | int | None = None, start: int = 0, count: int = 20,
                    locals: bool = False) -> list[FrameInfo]:  # noqa: A002
        return await self.inspector.stack(thread, start, count, locals)

    async def locals(self, frame: int = 0, thread: str | int | None = None) -> list[Variable]:
        return await self.inspector.locals(frame, thread)

    async def inspect(self, target: str, frame: int = 0, thread: str | int | None = None, start: int = 0,
                      count: int = 50) -> Any:
        return await self.inspector.inspect(target, frame, thread, start, count)

    async def evaluate(self, expression: str, frame: int = 0, thread: str | int | None = None,
                       actor: Actor | None = None) -> ValueView:
        return await self.inspector.evaluate(expression, frame, thread, self._actor(actor))

    async def set_value(self, target: str, value: str, frame: int = 0, thread: str | int | None = None,
                        actor: Actor | None = None) -> ValueView:
        return await self.inspector.set_value(target, value, frame, thread, self._actor(actor))

    async def source(self, location: str | None = None, context: int = 5) -> Any:
        return await self.inspector.source(location, context)

    async def classes(self, pattern: str = "*", members: bool = False) -> Any:
        return await self.inspector.classes(pattern, members)

    async def locks(self) -> Any:
        return await self.inspector.locks()

    async def heap(self, pattern: str) -> Any:
        return await self.inspector.heap(pattern)

    async def referrers(self, target: str, limit: int = 20) -> Any:
        return await self.inspector.referrers(target, limit)

    async def watch_add(self, expression: str, breakpoint: str | None = None, actor: Actor | None = None) -> Any:
        return await self.inspector.watch_add(expression, breakpoint, self._actor(actor))

    async def watch_remove(self, id: str, actor: Actor | None = None) -> Any:  # noqa: A002
        return await self.inspector.watch_remove(id, self._actor(actor))

    async def watches(self) -> Any:
        return await self.inspector.watches()

    async def mark(self, target: str, label: str, actor: Actor | None = None) -> Any:
        return await self.inspector.mark(target, label, self._actor(actor))

    async def unmark(self, label: str, actor: Actor | None = None) -> Any:
        return await self.inspector.unmark(label, self._actor(actor))

    async def marks(self) -> Any:
        return await self.inspector.marks()

    # -- changing code -------------------------------------------------------------------------------

    async def hotswap(self, path: str, since: float | None = None, actor: Actor | None = None) -> Any:
        return await self.inspector.hotswap(path, since, self._actor(actor))

    async def pop_frames(self, frame: int = 0, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        return await self.inspector.pop_frames(frame, thread, self._actor(actor))

    async def force_return(self, value: str, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        return await self.inspector.force_return(value, thread, self._actor(actor))


def _limits(capture_limits: dict[str, Any] | None) -> dict[str, Any]:
    """capture_limits={"depth": 3, "items": 50, "chars": 1000, "fields": 40, "frames": 5, "rate": 10}."""
    return limits_arguments(capture_limits)
