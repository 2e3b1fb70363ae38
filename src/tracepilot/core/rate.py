"""A token bucket: how the logpoint throttle limits lines a second. Below the breakpoints and the in-JVM path,
which both throttle the lines they record."""

from __future__ import annotations

import time


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


def bucket_at(current: TokenBucket | None, rate: float) -> TokenBucket:
    """The logpoint's bucket at `rate`: the one it has, or a new one when the rate changed."""
    return current if current is not None and current.rate == rate else TokenBucket(rate)
