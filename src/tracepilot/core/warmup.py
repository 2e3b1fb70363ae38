"""Pay the first call's one-time costs ahead of it: the core's modules, the evaluator, and tree-sitter's Java
parser are loaded, and the parser has parsed once, so neither the first tool call nor the first `evaluate`
waits for an import (issue 32: the first MCP call took ~400 ms, the first evaluate ~50 ms).

A front end that starts fast on purpose (`tracepilot --mcp` answers `initialize` as soon as the SDK is loaded)
calls `warm_up_soon()` once it has answered: the work runs in a daemon thread while the agent's model chooses
its first tool. Python's per-module import locks make a call that arrives meanwhile wait for the module it
needs, never see it half-loaded. Nothing here talks to a JVM or changes what any call answers.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from collections.abc import Callable

log = logging.getLogger("tracepilot.warmup")

# What the first calls load lazily, entry points first (each imports the modules it needs).
MODULES = (
    "tracepilot.core.debugger",
    "tracepilot.core.evaluator.interpreter",
    "tracepilot.core.render.session",
    "tracepilot.core.render.inspection",
)
# Parsed once so tree-sitter's parser exists and has run: expressions of the common kinds.
EXPRESSIONS = ("a.b(c, 1) + d[2] * -3 > 0 && s != null ? \"x\" : y", "new int[] {1}", "(String) o instanceof T t")

_started = threading.Event()


def warm_up(more: Callable[[], object] | None = None) -> None:
    """Load the modules and warm the parser, here and now (tests and `warm_up_soon` call it); then `more()`,
    a front end's own first-call costs (a layer above the core: not imported from here)."""
    for name in MODULES:
        importlib.import_module(name)
    from .evaluator.parse import parse_expression  # noqa: PLC0415  (loaded just above)

    for text in EXPRESSIONS:
        with contextlib.suppress(Exception):  # only the parser's first run matters, not the answer
            parse_expression(text)
    if more is not None:
        more()


def warm_up_soon(more: Callable[[], object] | None = None) -> threading.Thread | None:
    """`warm_up(more)` in a daemon thread, once per process; None when it was started already."""
    if _started.is_set():
        return None
    _started.set()

    def run() -> None:
        try:
            warm_up(more)
        except Exception:  # a warm-up is an optimisation: the first call then loads what it needs itself
            log.exception("warming up failed")

    thread = threading.Thread(target=run, name="tracepilot-warm-up", daemon=True)
    thread.start()
    return thread
