"""The move instrument/counted_apart.py asks for: a line breakpoint with a hit count that runs in the JVM in one
class goes to the round trip in every class once it binds in a second one (its hits so far read first)."""

from __future__ import annotations

from typing import Any


async def bound_at(tracker: Any, bp: Any) -> None:
    """`bp` bound by round trip in a further class: where it still runs in the JVM, it joins the round trip."""
    if not getattr(bp, "counted_apart", False) or tracker.in_jvm.rebinding:
        return
    if any(tracker.in_jvm.runs_in_jvm(bp, type_id) for type_id in bp.bound_types):
        await tracker.flush_logs()  # what it logged in the JVM, and its hits there, read first
        await tracker.in_jvm.refresh_hits()
        await tracker._uninstall(bp)
        await tracker._install(bp)
