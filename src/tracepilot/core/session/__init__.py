"""The session: one JDWP connection, its state machine, its stops, execution control and lifecycle.

States: DISCONNECTED -> RUNNING <-> STOPPED -> EXITED, moved only through states.py. Events are handled as
composite units; stop events stay suspended, monitoring events resume at once (seed 001). Every suspended
thread carries its own stop (threads.py keeps them and counts every suspension the debugger holds); the
current stop is a selection among them, and each stop is delivered once, to the waiting call that takes
it. Lifecycle follows seed 000's matrix: detach = clean slate; VM death keeps the target address,
breakpoints and history and reconnects on next use (the answer says so); reset keeps the connection and
the marks.
"""

from .base import (
    DEFAULT_STEP_FILTERS,
    STOP_EVENT_KINDS,
    InvocationCall,
    SessionBase,
    StepState,
    no_side_effects,
    parse_address,
)
from .events import Events
from .execution import Execution
from .lifecycle import Lifecycle

__all__ = ["DEFAULT_STEP_FILTERS", "STOP_EVENT_KINDS", "InvocationCall", "Session", "StepState", "no_side_effects",
           "parse_address"]


class Session(Lifecycle, Execution, Events, SessionBase):
    """One JDWP connection: its lifecycle, execution control and event dispatch over the shared state."""
