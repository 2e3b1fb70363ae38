"""What the in-JVM path sees of the breakpoints it serves and of itself, as Protocols.

`InJvm` (jvm.py) is built by the breakpoint tracker and handed it; the pieces beside it (the log rings, the
hot-swap steps) are handed the `InJvm`. Naming these through Protocols keeps the imports pointing down: the
tracker imports the in-JVM path, never the reverse (tests/test_layering.py)."""

from __future__ import annotations

from typing import Any, Protocol


class Breakpoint(Protocol):
    """A breakpoint as the in-JVM path sees it (core.breakpoints.Breakpoint is one)."""

    info: Any  # its BreakpointInfo: id, kind, condition, log, hits, mode, locations, ...
    hit_rule: Any
    thread_id: int | None
    internal: bool
    fired: bool
    bucket: Any  # the logpoint throttle's TokenBucket, or None
    requests: dict[int, Any]  # JDWP request id -> event kind
    request_mods: dict[int, list[Any]]
    bound: set[Any]
    bound_types: set[int]
    method_ids: set[Any]
    counted_apart: bool  # a hit count on a line in several classes: by round trip (counted_apart.py)


class BreakpointTracker(Protocol):
    """The breakpoint tracker as the in-JVM path sees it (core.breakpoints.BreakpointTracker is one)."""

    session: Any
    by_id: dict[str, Any]
    by_request: dict[int, Any]
    logpoint_rate: float

    async def bind_line(self, bp: Any, info: Any) -> Any: ...

    async def bind_method(self, bp: Any, info: Any) -> Any: ...

    async def stop_reason(self, bp: Any, event: Any, extra: dict[str, Any]) -> Any: ...

    async def arm_dependants(self, bp: Any) -> None: ...

    async def remove(self, bp_id: str, **options: Any) -> Any: ...


class InJvmHost(Protocol):
    """The in-JVM path as the pieces beside it (logring.py, swap.py) see it (jvm.InJvm is one)."""

    session: Any
    tracker: BreakpointTracker
    classes: dict[int, Any]
    requests: dict[int, Any]
    pending_swaps: dict[int, Any]

    def mark_probe(self, *args: Any, **kwargs: Any) -> Any: ...

    async def request_probe_events(self, bp: Any, record: Any, spec: Any, only: set[int] | None = None) -> None: ...
