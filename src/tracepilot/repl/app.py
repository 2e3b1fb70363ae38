"""`tracepilot repl HOST:PORT`: a jdb-style line interface over the command catalog.

Three ways in: `-c "stop at Foo:12; cont; where"`, a script on stdin (`< script.txt`), or an interactive
prompt_toolkit prompt with history, completion and auto-suggest. Every command goes through
`Catalog.execute`; this module only reads lines, prints results and shows stops as they happen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import signal
import sys
from pathlib import Path

from ..core.catalog import Catalog, CommandResult, Selection, default_catalog, returned_text, split_commands
from ..core.debugger import Debugger
from ..core.errors import DebuggerError
from ..core.model import Actor, CodeLocation, EventRecord, SessionState
from ..core.render import source_line, stop_with_line
from .output import Printer

# Events worth a line of their own when they arrive between commands.
_SHOWN_EVENTS = {"stop", "log", "vm_death", "error", "breakpoint_verified"}


def _location_of(record: EventRecord) -> CodeLocation | None:
    """The stop's location as the history record carries it (StopReason.to_dict())."""
    data = (record.data.get("stop") or {}).get("location")
    if not isinstance(data, dict):
        return None
    known = {f.name for f in dataclasses.fields(CodeLocation)}
    try:
        return CodeLocation(**{k: v for k, v in data.items() if k in known})
    except TypeError:
        return None


def history_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "tracepilot" / "repl_history"


# Commands after which the program is a new one: the default stop at uncaught exceptions is (re)checked.
_STARTS_A_TARGET = {"attach", "launch", "restart"}


class Repl:
    def __init__(self, debugger: Debugger, printer: Printer, catalog: Catalog | None = None, *,
                 stop_on_uncaught: bool = True) -> None:
        self.debugger = debugger
        self.printer = printer
        self.catalog = catalog or default_catalog()
        self.selection = Selection()
        self.stop_on_uncaught = stop_on_uncaught  # jdb's default "catch uncaught java.lang.Throwable"
        self.failed = 0
        self._running: str | None = None  # the command being executed, if any
        self._held: list[EventRecord] = []  # stops that arrived while a command ran
        self._unsubscribe = debugger.history.subscribe(self._on_event)

    # -- events between commands --------------------------------------------------------------------

    def _on_event(self, record: EventRecord) -> None:
        if record.kind not in _SHOWN_EVENTS:
            return
        if record.kind == "breakpoint_verified":
            if self._running is None:
                self.printer.note(record.text)
            return
        if record.kind in ("stop", "vm_death"):
            if self._running is not None:
                self._held.append(record)  # shown after the command, unless the command reported the stop
                return
            self._show_stop(record)
            if record.kind == "stop" and self.selection.monitors:
                asyncio.get_running_loop().create_task(self._run_monitors())
            return
        self.printer.event(record)

    def _show_stop(self, record: EventRecord) -> None:
        self.selection.on_stop()
        stop = self.debugger.current_stop
        if record.kind != "stop":
            self.printer.result(record.text)
            return
        if stop is not None and stop.headline() == record.text:
            text = stop_with_line(stop)
            returned = returned_text(stop)
            if returned and returned not in text:
                text += f"\n{returned}"
        else:  # the event is told before the session makes it the current stop: the record has it all
            text = record.text
            line = source_line(_location_of(record))
            if line:
                text += f"\n{line}"
        self.printer.result(text)

    async def _run_monitors(self) -> None:
        for line in list(self.selection.monitors):
            result = await self.catalog.execute(self.debugger, line, Actor.PERSON, self.selection)
            self.printer.result(result.text, result.ok)

    # -- commands -----------------------------------------------------------------------------------

    async def execute(self, line: str) -> CommandResult:
        """Run one command; Ctrl+C cancels its wait (the session stays) and returns a failed result."""
        try:
            self._running = self.catalog.parse(line).command.name
        except DebuggerError:
            self._running = None
        task = asyncio.ensure_future(self.catalog.execute(self.debugger, line, Actor.PERSON, self.selection))
        loop = asyncio.get_running_loop()
        handler_installed = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, task.cancel)
            handler_installed = True
        try:
            result = await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            state = self.debugger.state
            hint = " (the program keeps running; `suspend` stops it)" if state is SessionState.RUNNING else ""
            result = CommandResult(False, f"interrupted{hint}", command=self._running or "")
        finally:
            if handler_installed:
                loop.remove_signal_handler(signal.SIGINT)
            self._running = None
        self.printer.result(result.text, result.ok)
        held, self._held = self._held, []
        waited = result.ok and self._waits(result.command)  # its text already told how the wait ended
        if result.stop is None and not result.exit and not waited:
            for record in held[-1:]:  # the latest stop is the current one
                self._show_stop(record)
        if result.ok and result.command in _STARTS_A_TARGET and self.stop_on_uncaught:
            await self._stop_on_uncaught()
        if not result.ok:
            self.failed += 1
        if result.stop is not None and self.selection.monitors:
            await self._run_monitors()
        return result

    def _waits(self, name: str) -> bool:
        command = self.catalog.get(name) if name else None
        return bool(command and command.waits)

    async def _stop_on_uncaught(self) -> None:
        """Stop where an exception nobody catches is thrown, as jdb does, instead of letting it end the program."""
        infos = await self.debugger.breakpoint_list()
        existing = [b for b in infos if b.kind == "exception" and b.spec == "*" and b.uncaught]
        if existing:
            return
        try:
            info = await self.debugger.exception_break("*", caught=False, uncaught=True, actor=Actor.PERSON)
        except DebuggerError as e:
            self.printer.error(f"could not set the stop at uncaught exceptions: {e}")
            return
        number = info.id.removeprefix("bp-")
        self.printer.note(f"{info.id}: stopping at uncaught exceptions (`delete {number}` or "
                          "--no-stop-on-uncaught turns it off)")

    async def run_lines(self, lines: list[str], echo: bool) -> int:
        """Script mode: run every command in order, going on after one fails (as jdb does); the exit status
        is non-zero at the end when any failed."""
        for line in lines:
            if echo:
                self.printer.echo(line)
            result = await self.execute(line)
            if result.exit:
                break
        return 1 if self.failed else 0

    async def run_stdin(self) -> int:
        loop = asyncio.get_running_loop()
        while True:
            raw = await loop.run_in_executor(None, sys.stdin.readline)
            if not raw:
                break
            for line in split_commands(raw):
                self.printer.echo(line)
                result = await self.execute(line)
                if result.exit:
                    return 1 if self.failed else 0
        return 1 if self.failed else 0

    # -- interactive --------------------------------------------------------------------------------

    def prompt_text(self) -> str:
        state, stop = self.debugger.state, self.debugger.current_stop
        if state is SessionState.STOPPED and stop is not None:
            thread = self.selection.thread or stop.thread_name or "?"
            return f"{thread}[{self.selection.frame + 1}]> "  # jdb's numbering: main[1] is the top frame
        if state is SessionState.RUNNING:
            return "(running)> "
        return f"({state.value.lower()})> "

    async def interactive(self, **io: object) -> int:
        from .prompt import make_prompt_session  # noqa: PLC0415 (prompt_toolkit only when a person types)

        prompt = make_prompt_session(self, history_path(), **io)
        from prompt_toolkit import PromptSession  # noqa: PLC0415
        from prompt_toolkit.patch_stdout import patch_stdout  # noqa: PLC0415

        asking = PromptSession(**io)  # (answers stay out of the command history)

        async def confirm(question: str) -> bool:
            answer = await asking.prompt_async(f"{question} (y or n) ")
            return answer.strip().lower() in ("y", "yes")

        self.selection.confirm = confirm  # only a person at the prompt can answer (scripts pass -y)

        self.printer.note("tracepilot repl — `help` lists commands, Tab completes, Ctrl+D leaves")
        with patch_stdout(raw=True):
            while True:
                try:
                    text = await prompt.prompt_async(self.prompt_text)
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    break
                leave = False
                for line in split_commands(text):
                    result = await self.execute(line)
                    if result.exit:
                        leave = True
                        break
                if leave:
                    break
        return 0

    def close(self) -> None:
        self._unsubscribe()


async def amain(ns: argparse.Namespace) -> int:
    printer = Printer()
    debugger = Debugger(read_only=ns.read_only, redact=getattr(ns, "redact", False), sourcepath=ns.sourcepath or ())
    repl = Repl(debugger, printer, stop_on_uncaught=not getattr(ns, "no_stop_on_uncaught", False))
    from ..share.host import published  # noqa: PLC0415

    async with published(debugger, "repl"):  # listed by `tracepilot sessions` for watchers (issue 9)
        return await _drive(ns, repl, debugger)


async def _drive(ns: argparse.Namespace, repl: Repl, debugger: Debugger) -> int:
    try:
        if ns.address:
            result = await repl.execute(f"attach {ns.address} {ns.wait:g}")
            if not result.ok:
                return 2
        if ns.commands is not None:
            return await repl.run_lines(split_commands(ns.commands), echo=True)
        if not sys.stdin.isatty():
            return await repl.run_stdin()
        return await repl.interactive()
    finally:
        repl.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(debugger.close(), 10)


def run(ns: argparse.Namespace) -> int:
    try:
        return asyncio.run(amain(ns))
    except KeyboardInterrupt:
        return 130
