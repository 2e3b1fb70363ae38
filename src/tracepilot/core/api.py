"""`DebuggerApi`: the typed surface of the facade, what a front end may call.

`Debugger` implements it in-process, the share client's `RemoteDebugger` over a session socket, and the TUI's
test fake as a script; tests/test_layering.py checks each against these methods and signatures. Front ends
drive the debugger through this surface (plus the model, the renderers and the command specs) and never
reach `Debugger.session`. Methods that take `actor` change the session; the others only look.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .history import EventHistory
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
    from .target_info import TargetInfo


@runtime_checkable
class DebuggerApi(Protocol):
    """One debugger session as a front end sees it."""

    # read synchronously, kept current by the implementation (the remote one from the event stream)
    history: EventHistory
    state: SessionState
    current_stop: StopReason | None  # the selected stop among the suspended threads' stops
    sourcepath: list[str]
    read_only: bool
    target: tuple[str, int] | str | None  # the address attached to ("host:port" as a remote client knows it)

    async def attach(self, address: str = "localhost:5005", timeout: float = 10.0, sourcepath: Sequence[str] = (),
                     actor: Actor | None = None, name: str | None = None) -> Status:
        """Attach to a JVM listening for a debugger; waits up to `timeout` seconds for it to listen. Beside a
        JVM already there it is a new target, named `name` (default: host:port)."""
        ...

    async def launch(self, main: str | None = None, classpath: str | Sequence[str] | None = None, jar: str | None = None,
                     source: str | None = None, args: Sequence[str] = (), jvm_args: Sequence[str] = (),
                     cwd: str | None = None, env: dict[str, str] | None = None, sourcepath: Sequence[str] = (),
                     suspend: bool = True, java: str | None = None, actor: Actor | None = None,
                     name: str | None = None) -> Status:
        """Start a JVM under the debugger (suspended at VM start unless suspend=False). Beside a JVM already
        there it is a new target, named `name` (default: the main class's simple name, made unique)."""
        ...

    # several JVMs in one session (core/targets.py)

    def on_target(self, name: str | None) -> AbstractContextManager[None]:
        """Calls made in this block act on the target `name` (None: the target of the current stop)."""
        ...

    async def targets_list(self) -> list[TargetInfo]:
        """Each target (JVM) of the session with its state; `current` marks the one calls act on by default."""
        ...

    async def select_target(self, name: str, actor: Actor | None = None) -> Status:
        """Make `name` the current target: calls without a target act on it until the next stop elsewhere."""
        ...

    async def restart(self, actor: Actor | None = None) -> Status:
        """Launch the last launched program again with the same command line (IntelliJ's rerun); breakpoints
        and watchers carry over. A target still running is ended first."""
        ...

    async def detach(self, terminate: bool = False, actor: Actor | None = None, keep_running: bool = False) -> Status:
        """Disconnect; with terminate, end the JVM and answer once it is gone (or say it is still exiting).
        A JVM this debugger launched ends too, unless `keep_running`."""
        ...

    async def status(self) -> Status:
        ...

    async def reset(self, actor: Actor | None = None) -> Status:
        """Clear breakpoints, watchers and history; keep the connection and the marks."""
        ...

    async def diagnose(self) -> dict[str, Any]:
        ...

    async def add_sourcepath(self, paths: Sequence[str]) -> list[str]:
        """Add source roots (directories or jars) where sources are looked up; answers the whole sourcepath."""
        ...

    async def close(self) -> None:
        """End this debugger: detach (terminating a launched target) and release everything."""
        ...

    async def resume(self, thread: str | int | None = None, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        """Resume all threads (every stop already answered, every pause), or only `thread`; with timeout > 0
        wait that long for a new stop. A stop no call has returned yet (the current one too; for a person's
        front end the stop it shows counts as returned) is the answer at once, still suspended.
        The semantics (each stop delivered once, counted suspensions) are in session/ and threads.py."""
        ...

    async def pause(self, thread: str | int | None = None, actor: Actor | None = None) -> WaitResult:
        """Suspend all threads (or one; a thread inside a call that did not return is suspended there)."""
        ...

    async def step(self, kind: str = "over", thread: str | int | None = None, count: int = 1, timeout: float = 5.0,
                   actor: Actor | None = None) -> WaitResult:
        """Step one thread "over", "into" or "out" (kind "stepi": one instruction). After a step out or over
        a call the stop carries the returned value (`return_value`, `returned_from`)."""
        ...

    async def run_to(self, location: str, thread: str | int | None = None, timeout: float = 5.0,
                     actor: Actor | None = None) -> WaitResult:
        """Resume until `location` (deferred until its class loads); the stop says "run to LOCATION"."""
        ...

    async def run_to_main(self, timeout: float = 0.0, actor: Actor | None = None) -> WaitResult:
        """Run a launched program to the first line of its main method; the stop says "run to Main.main"."""
        ...

    async def wait_for_stop(self, timeout: float = 5.0) -> WaitResult:
        """The next stop no call has returned yet; the current one at once when every thread is suspended."""
        ...

    async def thread_id(self, thread: str | int | None = None) -> int:
        """The id of a thread given by id, numeric string or name (None: the current stop's); an error
        that names the live threads when there is no such thread."""
        ...

    async def interrupt(self, thread: str | int | None = None, actor: Actor | None = None) -> str:
        """Thread.interrupt() on one thread (default: the current stop's): it wakes from sleep, wait or join
        with InterruptedException once it runs. Suspension is unchanged. Answers what was done."""
        ...

    async def breakpoint_set(self, location: str, condition: str | None = None, hit_count: str | int | None = None,
                             log: str | None = None, thread: str | int | None = None, temporary: bool = False,
                             suspend: str = "all", after: str | None = None, enabled: bool = True,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        ...

    async def breakpoint_list(self) -> list[BreakpointInfo]:
        ...

    async def breakpoint_update(self, id: str, actor: Actor | None = None, **options: Any) -> BreakpointInfo:  # noqa: A002
        ...

    async def breakpoint_remove(self, id: str, actor: Actor | None = None) -> list[str]:  # noqa: A002
        """Remove one breakpoint, or every one with id "all"; returns the removed ids."""
        ...

    async def exception_break(self, exception: str = "*", caught: bool = True, uncaught: bool = True,
                              condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                              enabled: bool = True, capture: bool | int | None = None,
                              expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                              actor: Actor | None = None) -> BreakpointInfo:
        ...

    async def watchpoint_set(self, field: str, access: bool = False, modify: bool = True, instance: str | None = None,
                             condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                             capture: bool | int | None = None,
                             expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                             actor: Actor | None = None) -> BreakpointInfo:
        ...

    async def method_break(self, method: str, on: str = "entry", condition: str | None = None, log: str | None = None,
                           thread: str | int | None = None, capture: bool | int | None = None,
                           expressions: Sequence[str] | None = None, capture_limits: dict[str, Any] | None = None,
                           actor: Actor | None = None) -> BreakpointInfo:
        ...

    async def captures(self, id: str | None = None, wait: float = 0.0, limit: int = 100,  # noqa: A002
                       since: int = 0) -> list[Any]:
        ...

    async def events(self, since: int = 0, kinds: Sequence[str] | None = None, limit: int = 100) -> list[EventRecord]:
        ...

    async def output(self, stream: str = "both", since: int = 0) -> list[OutputChunk]:
        ...

    async def trace(self, pattern: str, duration: float = 5.0, max_calls: int = 100_000,
                    actor: Actor | None = None, resume: bool = False, folded: str | None = None,
                    folded_by: str | None = None) -> Any:
        ...

    async def snapshot(self, thread: str | int | None = None) -> Any:
        ...

    async def threads(self, include_system: bool = False, with_locks: bool = False) -> list[ThreadInfo]:
        ...

    async def stack(self, thread: str | int | None = None, start: int = 0, count: int = 20,
                    locals: bool = False) -> list[FrameInfo]:  # noqa: A002
        ...

    async def locals(self, frame: int = 0, thread: str | int | None = None) -> list[Variable]:
        ...

    async def inspect(self, target: str, frame: int = 0, thread: str | int | None = None, start: int = 0,
                      count: int = 50) -> Any:
        ...

    async def evaluate(self, expression: str, frame: int = 0, thread: str | int | None = None,
                       actor: Actor | None = None) -> ValueView:
        ...

    async def set_value(self, target: str, value: str, frame: int = 0, thread: str | int | None = None,
                        actor: Actor | None = None) -> ValueView:
        ...

    async def source(self, location: str | None = None, context: int = 5) -> Any:
        ...

    async def classes(self, pattern: str = "*", members: bool = False) -> Any:
        ...

    async def locks(self) -> Any:
        ...

    async def heap(self, pattern: str) -> Any:
        ...

    async def referrers(self, target: str, limit: int = 20) -> Any:
        ...

    async def watch_add(self, expression: str, breakpoint: str | None = None, actor: Actor | None = None) -> Any:
        ...

    async def watch_remove(self, id: str, actor: Actor | None = None) -> Any:  # noqa: A002
        ...

    async def watches(self) -> Any:
        ...

    async def mark(self, target: str, label: str, actor: Actor | None = None) -> Any:
        ...

    async def unmark(self, label: str, actor: Actor | None = None) -> Any:
        ...

    async def marks(self) -> Any:
        ...

    async def hotswap(self, path: str, since: float | None = None, actor: Actor | None = None) -> Any:
        ...

    async def pop_frames(self, frame: int = 0, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        ...

    async def force_return(self, value: str, thread: str | int | None = None, actor: Actor | None = None) -> Any:
        ...
