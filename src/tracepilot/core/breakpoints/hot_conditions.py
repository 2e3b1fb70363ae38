"""Governance of conditions on hot lines: measure how often a condition is evaluated, warn once when that
pace slows the target, and say how to sample it.

Each evaluation stops the hitting thread for at least a round trip, so a conditional breakpoint on a line
run millions of times a second makes the program run at the debugger's pace (10^6 times slower) without
anyone noticing. Logpoints are throttled automatically; a condition is not (sampling may skip the very hit
that makes it true), so it is measured and the throttle is offered instead: `sample=N` has the JVM report
1 hit in N, and only those are evaluated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

WINDOW = 1.0  # seconds over which the evaluation rate is measured


@dataclass
class ConditionRate:
    """Evaluations counted per window; `hot` once a window's rate passed the limit (warned once)."""

    started: float | None = None  # the window starts at the first evaluation, not when the breakpoint was set
    count: int = 0
    warned: bool = False
    rate: float = 0.0  # evaluations per second of the last full window

    def tick(self, limit: float, now: float | None = None) -> float | None:
        """Count one evaluation; the measured rate when this one makes the condition hot (once), else None."""
        now = time.monotonic() if now is None else now
        if self.started is None:
            self.started = now
        self.count += 1
        elapsed = now - self.started
        if elapsed < WINDOW:
            return None
        self.rate = self.count / elapsed
        self.started, self.count = now, 0
        if self.warned or limit <= 0 or self.rate <= limit:
            return None
        self.warned = True
        return self.rate


def warning(bp_id: str, rate: float, where: str) -> str:
    """What the history (and so the next answer) says when a condition is hot: short, remedy included."""
    return (f"{bp_id}'s condition is evaluated {rate:,.0f} times/s{where}, slowing the program to that pace: "
            f"breakpoint_update {bp_id} sample=100 evaluates 1 hit in 100 (hits between are missed)")


def message(rate: float) -> str:
    """The short form on the breakpoint (breakpoint_list)."""
    return f"hot: condition evaluated {rate:,.0f} times/s, slowing the target; sample=N evaluates 1 hit in N"
