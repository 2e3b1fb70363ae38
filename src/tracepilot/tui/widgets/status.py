"""The status bar: session state, stop reason, target and who is driving. Below NARROW columns it says the
same in short words (Class.method:line, the reason, thread, target, driver) so 80 columns keep it all."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.catalog import returned_text
from ...core.frame_names import is_lambda_class
from ...core.model import CodeLocation, SessionState, Status, StopKind, StopReason, ThreadInfo

NARROW = 110

STATE_STYLE = {
    SessionState.STOPPED: "bold black on yellow",
    SessionState.RUNNING: "bold black on green",
    SessionState.EXITED: "bold white on red",
    SessionState.DISCONNECTED: "bold white on grey30",
}


class StatusBar(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.status: Status | None = None
        self.note = "starting…"
        self.driver = "you"
        self.viewing: ThreadInfo | None = None  # another thread than the stop's, selected in Threads
        self._shown: Text | None = None

    def show(self, status: Status | None = None, note: str | None = None, driver: str | None = None,
             viewing: ThreadInfo | None | bool = False) -> None:
        """`viewing`: the thread selected in Threads when it is not the stop's (None: the stop's own)."""
        if status is not None:
            self.status = status
        if note is not None:
            self.note = note
        if driver is not None:
            self.driver = driver
        if viewing is not False:
            self.viewing = viewing
        text = self.render_text()
        if text != self._shown:  # one line, fixed height: never a re-layout
            self._shown = text
            self.update(text, layout=False)

    def on_resize(self) -> None:
        self.show()  # the short form below NARROW columns, the full one above

    def render_text(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        status = self.status
        if status is None:
            text.append(" CONNECTING ", style="bold black on cyan")
            text.append(f" {self.note}")
            return text
        text.append(f" {status.state.value} ", style=STATE_STYLE.get(status.state, "reverse"))
        viewing = self.viewing if status.state is SessionState.STOPPED else None
        if viewing is not None:
            return self._viewing(text, status, viewing)
        if self.size.width and self.size.width < NARROW:
            return self._short(text, status)
        headline = status.headline()
        if headline.startswith(status.state.value):
            headline = headline[len(status.state.value):].strip()
        if status.target:
            headline = headline.replace(status.target, "").strip()
        if headline:
            text.append(f" {headline}")
        returned = returned_text(status.stop)
        if returned and returned not in headline:
            text.append(f" · {returned}", style="bold green")
        self._waiting(text, status)
        if self.note:
            text.append(f"  · {self.note}", style="italic")
        text.append(f"  · {_target_name(status) or status.target or 'no target'}", style="dim")
        text.append(f" · driving: {self.driver}", style="dim")
        return text

    def _short(self, text: Text, status: Status) -> Text:
        stop = status.stop
        if stop is not None and stop.location is not None and status.state is SessionState.STOPPED:
            text.append(f" {_where(stop.location)}", style="bold")
            text.append(f" {_reason(stop)}")
            returned = returned_text(stop)
            if returned:
                text.append(f" · {returned}", style="bold green")
            if stop.thread_name:
                text.append(f" · {stop.thread_name}", style="dim")
        elif status.state is SessionState.EXITED and status.exit_code is not None:
            text.append(f" exit code {status.exit_code}")
        self._waiting(text, status)
        if self.note:
            text.append(f" · {self.note}", style="italic")
        target = _target_name(status) or status.target or "no target"
        text.append(f" · {target} · {self.driver}", style="dim")
        return text


    def _viewing(self, text: Text, status: Status, thread: ThreadInfo) -> Text:
        """Another thread than the stop's is selected: its state and place first (what F10 would step)."""
        where = f" at {_where(thread.location)}" if thread.location else ""
        text.append(f" {thread.name}", style="bold")
        text.append(f": {thread.description or thread.state}{where}")
        stop = status.stop
        if stop is not None and stop.thread_name:
            text.append(f" · stop of {stop.thread_name}: {_reason(stop)}", style="dim")
        self._waiting(text, status)
        if self.note:
            text.append(f" · {self.note}", style="italic")
        return text

    @staticmethod
    def _waiting(text: Text, status: Status) -> None:
        """Stops of other threads not answered yet: the next F5/F10 hands one out first (marked ● in Threads)."""
        if status.state is SessionState.STOPPED and status.pending_stops:
            text.append(f" · {status.pending_stops} more stop(s) waiting ●", style="bold yellow")


def _where(loc: CodeLocation) -> str:
    """Class.method:line without the package or outer class (PriceCalculator, not Shop$PriceCalculator)."""
    if loc.method.startswith("lambda$") or is_lambda_class(loc.class_name):
        name = loc.function(short=True)
    else:
        name = f"{loc.class_name.rsplit('.', 1)[-1].rsplit('$', 1)[-1]}.{loc.method}"
    return f"{name}:{loc.line}" if loc.line >= 0 else name


def _target_name(status: Status) -> str | None:
    """With several JVMs in one session: "target server (1 of 2)", the one keys and commands act on."""
    if not status.targets:
        return None
    names = [t.name for t in status.targets]
    current = next((t.name for t in status.targets if t.current), names[0])
    return f"target {current} ({names.index(current) + 1} of {len(names)})"


def _reason(stop: StopReason) -> str:
    """The stop reason in a word or two (the full headline does not fit 80 columns)."""
    if stop.kind is StopKind.BREAKPOINT:
        return stop.breakpoint_id or "breakpoint"
    if stop.kind is StopKind.EXCEPTION and stop.exception is not None:
        return stop.exception.class_name.rsplit(".", 1)[-1]
    return {StopKind.STEP: "step", StopKind.PAUSE: "paused", StopKind.VM_START: "VM start",
            StopKind.METHOD_ENTRY: "entry", StopKind.METHOD_EXIT: "exit",
            StopKind.WATCHPOINT_ACCESS: f"read {stop.field}", StopKind.WATCHPOINT_MODIFY: f"write {stop.field}"
            }.get(stop.kind, stop.kind.value)
