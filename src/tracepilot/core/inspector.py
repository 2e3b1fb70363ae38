"""Inspector: seeing and changing state at a stop — threads, stacks, locals, values, sources, classes,
locks, heap, watchers, marks, tracing and code changes (issue 4). Owned by one engineer; the session
calls into it for value summaries at stops.

THIS FILE IS A STUB being replaced: every method below must be implemented with typed results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..jdwp import Value
from .model import Actor, ValueView

if TYPE_CHECKING:
    from .session import Session


class Inspector:
    def __init__(self, session: Session) -> None:
        self.session = session

    def reset(self) -> None:
        """Clear watchers and object handles (reset / detach); marks survive reset."""

    def forget_vm(self) -> None:
        """The VM is gone (death or detach): drop handles, frame caches, marks' object ids."""

    async def view(self, value: Value, static_type: str | None = None) -> ValueView:
        """Summarise a JDWP value for display; objects get a stable handle."""
        raise NotImplementedError

    async def on_stop(self) -> None:
        """Called after every stop, before waiters are told: evaluate watchers, note changed locals."""

    async def snapshot(self, thread: Any) -> Any: raise NotImplementedError
    async def threads(self, include_system: bool) -> Any: raise NotImplementedError
    async def stack(self, thread: Any, start: int, count: int, with_locals: bool) -> Any: raise NotImplementedError
    async def locals(self, frame: int, thread: Any) -> Any: raise NotImplementedError
    async def inspect(self, target: str, frame: int, thread: Any, start: int, count: int) -> Any: raise NotImplementedError
    async def evaluate(self, expression: str, frame: int, thread: Any, actor: Actor) -> ValueView: raise NotImplementedError
    async def set_value(self, target: str, value: str, frame: int, thread: Any, actor: Actor) -> ValueView: raise NotImplementedError
    async def source(self, location: str | None, context: int) -> Any: raise NotImplementedError
    async def classes(self, pattern: str, members: bool) -> Any: raise NotImplementedError
    async def locks(self) -> Any: raise NotImplementedError
    async def heap(self, pattern: str) -> Any: raise NotImplementedError
    async def referrers(self, target: str, limit: int) -> Any: raise NotImplementedError
    async def watch_add(self, expression: str, breakpoint: str | None, actor: Actor) -> Any: raise NotImplementedError
    async def watch_remove(self, id: str, actor: Actor) -> Any: raise NotImplementedError  # noqa: A002
    async def watches(self) -> Any: raise NotImplementedError
    async def mark(self, target: str, label: str, actor: Actor) -> Any: raise NotImplementedError
    async def unmark(self, label: str, actor: Actor) -> Any: raise NotImplementedError
    async def marks(self) -> Any: raise NotImplementedError
    async def trace(self, pattern: str, duration: float, max_calls: int, actor: Actor) -> Any: raise NotImplementedError
    async def hotswap(self, path: str, since: float | None, actor: Actor) -> Any: raise NotImplementedError
    async def pop_frames(self, frame: int, thread: Any, actor: Actor) -> Any: raise NotImplementedError
    async def force_return(self, value: str, thread: Any, actor: Actor) -> Any: raise NotImplementedError

    async def evaluate_condition(self, expression: str, thread_id: int, extra: dict[str, Value] | None = None) -> bool:
        """Evaluate a breakpoint condition in the top frame of a suspended thread (raises EvaluationError)."""
        raise NotImplementedError

    async def format_log(self, template: str, thread_id: int, extra: dict[str, Value] | None = None) -> str:
        """Expand a logpoint template: text with {expression} parts evaluated in the top frame."""
        raise NotImplementedError
