"""Start-up of the App: running the start-up coroutine (attach, or launch and run to the first stop) in a
worker, reporting its progress, and restarting a launched program; plus the start-up coroutines
`tracepilot attach|launch|demo` build the App with."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from textual import work

from ..core.errors import DebuggerError
from ..core.model import (
    SessionState,
    StopKind,
)
from .view import AppPart, _done

if TYPE_CHECKING:
    from .app import TracepilotApp


class StartupMixin(AppPart):
    """The start-up and restart part of `TracepilotApp` (tui/app.py)."""

    @work(group="startup")
    async def _start(self) -> None:
        try:
            if self.startup is not None:
                await self.startup(self)
        except DebuggerError as e:
            self._note(str(e), error=True)
        except Exception as e:  # noqa: BLE001 - shown to the person, never a traceback
            self._note(f"start-up failed: {e}", error=True)
        finally:
            self.ready.set()
        self._schedule_refresh(reset_selection=True)

    def progress(self, text: str) -> None:
        """Start-up steps report here (status bar), e.g. 'waiting for localhost:5005 to listen…'."""
        self._note(text)

    def action_restart(self) -> None:
        if not self.launched:
            self.notify("restart re-launches a program started by tracepilot launch/demo; this one was attached",
                        severity="warning")
            return
        self._run("restarting", lambda: run_to_first_stop(self, self.debugger.restart()))


async def stop_on_uncaught(app: TracepilotApp) -> None:
    """Stop where an exception nobody catches is thrown (jdb's and IntelliJ's default) instead of letting it end
    the program; the breakpoint list shows it (`exception * uncaught only`), removing it turns it off."""
    d = app.debugger
    infos = await d.breakpoint_list()
    if not any(b.kind == "exception" and b.spec == "*" and b.uncaught for b in infos):
        await d.exception_break("*", caught=False, uncaught=True)


async def run_to_first_stop(app: TracepilotApp, started: Awaitable[Any]) -> None:
    """After a launch (or restart) the JVM waits at VM start: run it to the first breakpoint or exception."""
    await started
    status = await app.debugger.status()
    if status.state is SessionState.STOPPED and status.stop and status.stop.kind is StopKind.VM_START:
        app.progress("running to the first breakpoint or exception…")
        await app.debugger.resume(None, 0.0)
    app.progress("")


async def launch_and_run(app: TracepilotApp, options: dict[str, Any], breaks: list[str],
                         uncaught: bool = True) -> None:
    """Start a JVM suspended, install the breakpoints and the uncaught-exception stop, then run it."""
    d = app.debugger
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
    await run_to_first_stop(app, _done(None))

