"""Every state the execution model can be in, and every transition between them, declared in one place.

h11's rule: nothing changes a state except through here. The session's state and each thread's state
move only by `SESSION.move(...)` / `THREAD.move(...)`; a transition not in the table is a bug. Under
tests (or with TRACEPILOT_STRICT_STATES=1) it raises `IllegalTransition`; in a user's session it is
logged and allowed, because a debugger that refuses to follow the target is worse than one that
records its own confusion.

Session (what a front end shows in its status line):

    DISCONNECTED --attach/launch--> RUNNING <--stop / last stop released--> STOPPED
    RUNNING, STOPPED --VM death--> EXITED --reconnect--> RUNNING;  any --detach--> DISCONNECTED

Thread (one per live thread the debugger has heard of; see threads.py for the suspend counts):

    RUNNING   runs (the debugger holds no suspension of it)
    STOPPED   suspended by an event; carries its own StopReason
    PAUSED    suspended by the user (pause)
    HELD      suspended only because another thread's suspend-all stop suspended everything
    INVOKING  running a method call the debugger asked for (evaluate, a condition, a watcher)
    FINISHED  ended (thread death, or the VM went away)
"""

from __future__ import annotations

import logging
import os
import sys
from enum import StrEnum

from .model import SessionState

log = logging.getLogger(__name__)


class ThreadState(StrEnum):
    RUNNING = "running"
    STOPPED = "stopped"
    PAUSED = "paused"
    HELD = "held"
    INVOKING = "inside a call"
    FINISHED = "finished"


class IllegalTransition(RuntimeError):
    """A state change the model does not declare: a bug in the debugger, not in the target."""


def _strict() -> bool:
    return os.environ.get("TRACEPILOT_STRICT_STATES") == "1" or "pytest" in sys.modules


class Machine:
    """A declared transition table; `move(current, new, why)` returns `new` or raises on an undeclared move."""

    def __init__(self, name: str, table: dict[StrEnum, frozenset[StrEnum]]) -> None:
        self.name = name
        self.table = table

    def allowed(self, current: StrEnum, new: StrEnum) -> bool:
        return current == new or new in self.table.get(current, frozenset())

    def move(self, current: StrEnum, new: StrEnum, why: str) -> StrEnum:
        if not self.allowed(current, new):
            message = f"{self.name}: {current.value} -> {new.value} is not a declared transition ({why})"
            if _strict():
                raise IllegalTransition(message)
            log.error(message)
        return new


_S = SessionState
SESSION = Machine("session", {
    _S.DISCONNECTED: frozenset({_S.RUNNING}),  # attach / launch (a VM-start stop follows through RUNNING)
    _S.RUNNING: frozenset({_S.STOPPED, _S.EXITED, _S.DISCONNECTED}),
    _S.STOPPED: frozenset({_S.RUNNING, _S.EXITED, _S.DISCONNECTED}),
    _S.EXITED: frozenset({_S.RUNNING, _S.DISCONNECTED}),  # reconnect to the remembered target; detach
})

_T = ThreadState
_ALIVE = frozenset({_T.RUNNING, _T.STOPPED, _T.PAUSED, _T.HELD, _T.INVOKING})
THREAD = Machine("thread", {
    _T.RUNNING: frozenset({_T.STOPPED, _T.PAUSED, _T.HELD, _T.INVOKING, _T.FINISHED}),
    _T.STOPPED: frozenset({_T.RUNNING, _T.HELD, _T.PAUSED, _T.INVOKING, _T.FINISHED}),
    _T.PAUSED: frozenset({_T.RUNNING, _T.HELD, _T.STOPPED, _T.INVOKING, _T.FINISHED}),
    _T.HELD: frozenset({_T.RUNNING, _T.PAUSED, _T.STOPPED, _T.INVOKING, _T.FINISHED}),
    # A call returns to the stop it was made from; one that does not return can be paused (PAUSED) or
    # released with the rest (its late return is then resumed at once). Conditions call on a thread
    # that an event suspended before it became a stop (RUNNING -> INVOKING -> RUNNING).
    _T.INVOKING: _ALIVE | {_T.FINISHED},
    _T.FINISHED: frozenset(),
})


def session_move(current: SessionState, new: SessionState, why: str) -> SessionState:
    return SESSION.move(current, new, why)  # type: ignore[return-value]


def thread_move(current: ThreadState, new: ThreadState, why: str) -> ThreadState:
    return THREAD.move(current, new, why)  # type: ignore[return-value]
