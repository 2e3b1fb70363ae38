"""Ending a front end on SIGTERM or SIGHUP the way closed input ends it: through its own clean-up.

Without a handler these signals kill the process on the spot, so a JVM it launched keeps running (frozen
for good when it was stopped at a suspend-all breakpoint) and a published session stays listed. The front
ends (`tracepilot --mcp`, `tracepilot dap`) cancel their main work instead, and their `finally` blocks end
the launched JVM and unlist the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator

ENDING_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


@contextlib.contextmanager
def on_signals(handler: Callable[[int], object]) -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP call `handler(signum)` in the running event loop."""
    loop = asyncio.get_running_loop()
    installed = []
    for signum in ENDING_SIGNALS:
        try:
            loop.add_signal_handler(signum, handler, signum)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no Unix signals
            continue
        installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
