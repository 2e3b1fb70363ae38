"""Throttles for logpoints: a token bucket per breakpoint, so a logpoint in a hot loop cannot slow the target
without bound."""

from __future__ import annotations

import os

from ..rate import TokenBucket, bucket_at

__all__ = ["DEFAULT_LOGPOINT_RATE", "MAX_SAMPLING", "TokenBucket", "bucket_at"]

# Logpoint lines per second per breakpoint before the logpoint is throttled (TRACEPILOT_LOGPOINT_RATE or
# Debugger(logpoint_rate=...)). Every logpoint hit suspends its thread for a round trip or more, so an
# unthrottled logpoint in a hot loop would slow the target without bound.
DEFAULT_LOGPOINT_RATE = float(os.environ.get("TRACEPILOT_LOGPOINT_RATE", "200"))
MAX_SAMPLING = 1 << 24
