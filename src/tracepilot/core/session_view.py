"""What the session's parts see of the session that builds them.

The breakpoint tracker, its binding and firing, and the inspector are built by the session and handed it;
they use it through this Protocol, so none of them imports the session (the session imports them: imports
point down only, tests/test_layering.py)."""

from __future__ import annotations

from typing import Any, Protocol

from .history import EventHistory


class SessionView(Protocol):
    conn: Any  # the JDWP connection, or None
    history: EventHistory
    sources: Any  # the source path (core/sources.py)
    threads: Any  # the thread book (core/threads.py)
    stop: Any  # the current stop, or None
    state: Any
    read_only: bool
    redact: bool
    breakpoints: Any
    inspector: Any
    secrets: Any

    def require_vm(self) -> Any: ...

    async def code_location(self, location: Any) -> Any: ...

    async def resolve_thread(self, thread: Any) -> Any: ...
