"""The event log: the shared event history as it arrives, with who caused each event; filterable."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, RichLog

from ...core.model import EventRecord

ACTOR_STYLE = {"agent": "bold magenta", "person": "bold cyan", "target": "dim"}
KIND_STYLE = {"stop": "bold yellow", "vm_death": "bold red", "error": "red", "log": "green", "exception": "red"}


def render_event(record: EventRecord, clock: bool = True) -> Text:
    text = Text()
    if clock:
        text.append(time.strftime("%H:%M:%S ", time.localtime(record.time)), style="dim")
    text.append(f"{record.actor.value:<6} ", style=ACTOR_STYLE.get(record.actor.value, ""))
    text.append(f"{record.kind:<14} ", style=KIND_STYLE.get(record.kind, "blue"))
    text.append(record.text)
    for cause in _causes(record):  # an exception stop's cause chain, as Java prints "Caused by:"
        text.append(f"\n    caused by {cause}", style="red")
    return text


def _causes(record: EventRecord) -> list[str]:
    exception = (record.data.get("stop") or {}).get("exception") if record.kind == "stop" else None
    if not isinstance(exception, dict):
        return []
    out = []
    for cause in exception.get("causes") or []:
        if isinstance(cause, dict):
            text = str(cause.get("class_name", "?")) + (f": {cause['message']}" if cause.get("message") else "")
            out.append(text + (f" at {cause['top_frame']}" if cause.get("top_frame") else ""))
    return out


class EventsPane(Vertical):
    """Filter box over a log; typing a word shows only events whose kind, actor or text contain it."""

    MAX = 2000

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Events"
        self.records: list[EventRecord] = []
        self.clock = True  # snapshot tests turn the wall clock off

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter events (kind, actor or text)", id="event-filter")
        yield RichLog(id="event-log", wrap=False, markup=False, max_lines=self.MAX)

    def _matches(self, record: EventRecord) -> bool:
        needle = self.query_one("#event-filter", Input).value.strip().lower()
        if not needle:
            return True
        return needle in record.kind.lower() or needle in record.actor.value or needle in record.text.lower()

    def add(self, record: EventRecord) -> None:
        self.records.append(record)
        del self.records[:-self.MAX]
        if self.is_mounted and self._matches(record):
            self.query_one("#event-log", RichLog).write(render_event(record, self.clock))

    def replay(self, records: list[EventRecord]) -> None:
        self.records = list(records[-self.MAX:])
        self._redraw()

    def _redraw(self) -> None:
        log = self.query_one("#event-log", RichLog)
        log.clear()
        for record in self.records:
            if self._matches(record):
                log.write(render_event(record, self.clock))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._redraw()
