"""The start-up coroutines `tracepilot attach|launch|demo` give the App (it runs one in a worker at mount):
stop on uncaught exceptions, launch and set the breakpoints, run to the first stop. They see the App only
as a `StartupHost`."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from ..core.errors import DebuggerError
from ..core.model import (
    SessionState,
    StopKind,
)
from .view import done_value


class StartupHost(Protocol):
    """What the start-up coroutines need of the App they start (tui/app.py's TracepilotApp is one)."""

    debugger: Any
    stop_at_main: bool  # with no breakpoint, a launch (and a restart) stops at the first line of main

    def progress(self, text: str) -> None: ...

    def notify(self, message: str, *, severity: Any = ..., timeout: float | None = ...) -> None: ...


async def stop_on_uncaught(app: StartupHost) -> None:
    """Stop where an exception nobody catches is thrown (jdb's and IntelliJ's default) instead of letting it end
    the program; the breakpoint list shows it (`exception * uncaught only`), removing it turns it off."""
    d = app.debugger
    infos = await d.breakpoint_list()
    if not any(b.kind == "exception" and b.spec == "*" and b.uncaught for b in infos):
        await d.exception_break("*", caught=False, uncaught=True)


async def run_to_first_stop(app: StartupHost, started: Awaitable[Any]) -> None:
    """After a launch (or restart) the JVM waits at VM start: run it to the first breakpoint or exception, or,
    when `app.stop_at_main` and no breakpoint is set (the uncaught-exception stop aside), to the first line of
    main, where jdb and pudb start a program (issue 29, point 7)."""
    await started
    d = app.debugger
    status = await d.status()
    if status.state is SessionState.STOPPED and status.stop and status.stop.kind is StopKind.VM_START:
        if getattr(app, "stop_at_main", False) and not any(b.kind != "exception" for b in await d.breakpoint_list()):
            app.progress("running to the start of main…")
            try:
                await d.run_to_main(0.0)
            except DebuggerError as e:  # (a jar without Main-Class): run, and say why it did not stop
                app.notify(f"not stopping at main: {e}", severity="warning", timeout=10)
                await d.resume(None, 0.0)
        else:
            app.progress("running to the first breakpoint or exception…")
            await d.resume(None, 0.0)
    app.progress("")


async def launch_and_run(app: StartupHost, options: dict[str, Any], breaks: list[str],
                         uncaught: bool = True, stop_at_main: bool = False) -> None:
    """Start a JVM suspended, install the breakpoints and the uncaught-exception stop, then run it (to the first
    line of main when `stop_at_main` and no breakpoint is given)."""
    d = app.debugger
    app.stop_at_main = stop_at_main
    app.progress("starting the JVM…")
    await d.launch(**options)
    app.progress("setting breakpoints…")
    if uncaught:
        await stop_on_uncaught(app)
    for location in breaks:
        try:
            await d.breakpoint_set(location)
        except DebuggerError as e:
            app.notify(f"--break {location}: {e}", severity="error", timeout=10)
    await run_to_first_stop(app, done_value(None))
