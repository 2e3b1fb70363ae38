"""Several breakpoints on one line: by round trip they are one JDWP event (one stop, the others in `also`, a
logpoint's line logged before the stop, a capture taken at it); in the JVM each probe would act on its own
(two stops, or a stop before the line is logged). So a line with more than one breakpoint keeps all of them on
the round trip, each saying why (capture points too: one whose hit is held -- a condition that threw, a copy that
fell short -- would be listed before or after the others' captures of the same hit by when its reading ended,
where the round trip lists a hit's captures in the breakpoints' order), and the one left alone
there goes back into the JVM (as it would when set then: at once where it may be, else at a later safe
moment). breakpoints/shared_lines.py makes the moves."""

from __future__ import annotations

from typing import Any

SHARED = "another breakpoint is on this line"


def on_line(bp: Any, class_name: str, line: int) -> bool:
    """Is `bp` a live line breakpoint bound at `line` of `class_name` (a done capture point is not)?"""
    capture = bp.info.capture
    return bp.info.kind == "line" and bp.info.enabled and not (capture is not None and capture.done) \
        and any(loc.class_name == class_name and loc.line == line for loc in bp.info.locations)


def sharing(by_id: dict[str, Any], bp: Any, class_name: str, line: int) -> list[Any]:
    """The other breakpoints on the line."""
    return [other for other in by_id.values() if other is not bp and on_line(other, class_name, line)]


def one_event(bps: list[Any]) -> bool:
    """Must these breakpoints of one line take the round trip together? When there are several."""
    return len(bps) > 1


def shared_reason(others: list[Any]) -> str:
    names = ", ".join("run_to's" if other.internal else other.info.id for other in others)
    return f"{SHARED} ({names}): by round trip the line's breakpoints fire as one event"
