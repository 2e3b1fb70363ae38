"""Throttles for logpoints: a token bucket per breakpoint, so a logpoint in a hot loop cannot slow the target
without bound."""

from __future__ import annotations

import os
import time

# Logpoint lines per second per breakpoint before the logpoint is throttled (TRACEPILOT_LOGPOINT_RATE or
# Debugger(logpoint_rate=...)). Every logpoint hit suspends its thread for a round trip or more, so an
# unthrottled logpoint in a hot loop would slow the target without bound.
DEFAULT_LOGPOINT_RATE = float(os.environ.get("TRACEPILOT_LOGPOINT_RATE", "200"))
MAX_SAMPLING = 1 << 24


class TokenBucket:
    """`rate` tokens a second, at most `rate` (and at least one) saved up: a one-second burst."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.capacity = max(rate, 1.0)
        self.tokens = self.capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        return self.take_up_to(1) == 1

    def take_up_to(self, n: int) -> int:
        """As n take() calls at this instant: how many got a token (a batch of log lines, one clock read)."""
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        taken = min(n, int(self.tokens))
        self.tokens -= taken
        return taken


