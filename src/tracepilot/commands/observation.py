"""Operations that read what happened: the event history, the program's output, call tracing."""

from __future__ import annotations

from typing import Any, Literal

from .spec import Arguments, Param, Spec

ALL_EVENTS = 1_000_000  # more than the history ring holds: "every record after `since`"


class EventPage(list):
    """The events of one answer, and how many records that matched were left out before them (`earlier`, cut
    by `tail`) and after them (`later`, cut by `limit`): the text says how to reach those. Stays a plain list
    in the structured answer."""

    def __init__(self, items: Any, earlier: int = 0, later: int = 0, since: int = 0) -> None:
        super().__init__(items)
        self.earlier, self.later, self.since = earlier, later, since


async def event_page(d: Any, a: Arguments) -> EventPage:
    """`tail`: the last N records after `since` (`limit` does not cut them); else the first `limit` records
    after `since`, oldest first."""
    records = await d.events(a.since, a.kinds, ALL_EVENTS)
    if a.tail is not None:
        kept = records[-a.tail:]
        return EventPage(kept, earlier=len(records) - len(kept), since=a.since)
    kept = records[: a.limit]
    return EventPage(kept, later=len(records) - len(kept), since=a.since)

SPECS = (
    Spec(
        "events", "The event history (stops, logpoints, thread starts, class loads, ...) with who caused each.",
        tool="events", method="events", render="events", data_key="events", commands=("events",),
        call=event_page,
        params=(
            Param("since", int, 0, "only events after this sequence number", ge=0),
            Param("kinds", list[str] | None, None,
                  'only these kinds, e.g. ["stop", "log", "thread_start", "exception", "output"]'),
            Param("limit", int, 100, "at most this many (the oldest first after `since`)", ge=1, le=10_000),
            Param("tail", int | None, None, "only the last N events (after `since`, of `kinds`)", ge=1, le=10_000),
        )),
    Spec(
        "output", "Output of a launched program (stdout/stderr), read from an offset.",
        tool="output", method="output", render="output", data_key="chunks", commands=("output",),
        call=lambda d, a: d.output(a.stream, a.since),
        params=(
            Param("stream", Literal["stdout", "stderr", "both"], "both"),
            Param("since", int, 0, "character offset to read from (the last `end`)", ge=0),
        )),
    Spec(
        "trace", "Count method calls in matching classes for a while without stopping the program: calls and\n"
        "time per method, and the call tree of the busiest thread.",
        tool="trace", method="trace", waits_on="duration", waiting_for="tracing", commands=("trace", "untrace"),
        call=lambda d, a: d.trace(a.pattern, a.duration, a.max_calls, actor=a.actor, resume=a.resume,
                                  folded=a.folded, folded_by=a.folded_by),
        params=(
            Param("pattern", str, description='classes to trace, e.g. "com.acme.*"'),
            Param("duration", float, 5.0, "seconds to trace (kept: every call in them is counted)", gt=0, le=600),
            Param("max_calls", int, 100_000, "at most this many calls recorded in detail (never bounds counting)",
                  ge=1),
            Param("resume", bool, False, "resume the program first when it is stopped (else the trace is refused)"),
            Param("folded", str | None, None,
                  "also write the call paths in folded stack format (a;b;c 123) to this file, for flame graphs"),
            Param("folded_by", Literal["calls", "time"] | None, None,
                  "weight of a folded line: calls, or own time in us (in-JVM only); default time when measured"),
        )),
)
