"""The moves instrument/shared_line.py asks for: an in-JVM breakpoint goes to the round trip when another
breakpoint binds at its line, and the one left alone on a line goes back into the JVM when the other goes."""

from __future__ import annotations

from typing import Any

from ..instrument.shared_line import SHARED, on_line, one_event, sharing


async def bound_at(tracker: Any, bp: Any, type_id: int, class_name: str, line: int) -> None:
    """`bp` bound at the line by round trip: the line's in-JVM breakpoints join it there."""
    if tracker.in_jvm.rebinding or not tracker.in_jvm.one_event_a_line:
        return  # (a redefinition binds the class's round-trip breakpoints again: nothing moves meanwhile)
    others = sharing(tracker.by_id, bp, class_name, line)
    if not one_event([bp, *others]):
        return
    for other in others:
        if tracker.in_jvm.runs_in_jvm(other, type_id):
            await _reinstall(tracker, other)


async def left(tracker: Any, locations: list[Any]) -> None:
    """A breakpoint left these locations (removed, disabled): a line's last breakpoint,
    on the round trip only because it shared the line, goes back into the JVM."""
    for class_name, line in dict.fromkeys((loc.class_name, loc.line) for loc in locations):
        left = [bp for bp in tracker.by_id.values() if on_line(bp, class_name, line)]
        if one_event(left):
            continue
        for bp in left:
            if (bp.info.mode or "").startswith(f"round trip ({SHARED}"):
                await _reinstall(tracker, bp)


async def _reinstall(tracker: Any, bp: Any) -> None:
    await tracker.flush_logs()  # what it logged or captured in the JVM, and its hits there, read first
    await tracker.in_jvm.refresh_hits()
    await tracker._uninstall(bp)
    await tracker._install(bp)
