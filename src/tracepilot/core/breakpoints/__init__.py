"""BreakpointTracker: line, method, exception and field breakpoints in one id space (bp-1, bp-2, ...).

A breakpoint is a wish plus its bindings. Line breakpoints wait for their classes (a ClassPrepare request
that suspends the loading thread, so the breakpoint is in before the class runs) and bind to every code
location of the line in the class and its inner, local, anonymous classes and lambdas, in every class
loader. "The n-th hit" without a condition is counted by the JVM (Count modifier); other hit counts,
conditions, logpoints and chains are decided here.
"""


from .binding import Binding
from .codelines import method_line
from .firing import Firing
from .throttle import DEFAULT_LOGPOINT_RATE, MAX_SAMPLING, TokenBucket
from .tracker import Breakpoint, HitRule, TrackerBase

__all__ = ["DEFAULT_LOGPOINT_RATE", "MAX_SAMPLING", "Breakpoint", "BreakpointTracker", "HitRule", "TokenBucket",
           "method_line"]


class BreakpointTracker(Binding, Firing, TrackerBase):
    """Every breakpoint of a session: its tracker state, its binding to code and its firing rules."""
