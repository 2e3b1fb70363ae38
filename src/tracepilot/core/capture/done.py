"""A capture point that took its last capture: done, and listed so at once in either mode."""

from __future__ import annotations

from typing import Any


def mark_done(bp: Any) -> None:
    """Done, and listed unbound at once, in the JVM as by round trip: its requests or probe go later, once its
    thread runs on, at a moment that differs by mode (a probe's class is restored when no thread is inside)."""
    bp.info.capture.done = True
    bp.info.verified = False
    bp.info.locations = []
