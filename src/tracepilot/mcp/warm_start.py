"""Warm the core up right after `initialize` was answered, not before and not on the first tool call.

`tracepilot --mcp` answers `initialize` as soon as the SDK is loaded (server.py); the core, the evaluator and
tree-sitter would then load on the first tool call (~400 ms) and the first `evaluate` (~50 ms). A client sends
its next line (`notifications/initialized`, or any request) only after it has the `initialize` answer, so the
second line read is the moment: the warm-up (core/warmup.py) starts in a thread while the agent's model picks
its first tool, and the start itself is not slowed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any

_running: list[threading.Thread] = []  # the warm-up thread this process started, if any


def _start_warm_up() -> Any:
    from ..core.warmup import warm_up_soon  # noqa: PLC0415  (core/warmup.py imports nothing heavy at its top)

    thread = warm_up_soon(share_host_warm_up)
    if thread is not None:
        _running.append(thread)
    return thread


async def settled() -> None:
    """Let a warm-up still running end before a tool call goes on (every tool waits here). Two threads loading
    modules that import each other could otherwise meet a module half loaded: Python breaks that deadlock by
    handing one of them the partial module. An agent's model usually takes longer than the warm-up, so this
    returns at once."""
    for thread in list(_running):
        if thread.is_alive():
            await asyncio.to_thread(thread.join)
    _running[:] = [t for t in _running if t.is_alive()]


def share_host_warm_up() -> None:
    """The first tool call creates the debugger and publishes its session (server.py): the share host's code."""
    from ..core.debugger import Debugger  # noqa: PLC0415
    from ..share.hooks import WARM_UPS  # noqa: PLC0415
    from ..share.host import facade_methods  # noqa: PLC0415

    facade_methods(Debugger)
    for warm_up in list(WARM_UPS):  # what publish hooks (the JDWP front end) load on the first publish
        warm_up()
    _sdk_answer_models()


def _sdk_answer_models() -> None:
    """The SDK builds the pydantic validators of a tool's answer on its first use (a few ms): build them now,
    for every protocol version a client may have chosen. An SDK that moved them only loses the head start."""
    with contextlib.suppress(Exception):
        from mcp_types.methods import serialize_server_result  # noqa: PLC0415
        from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS  # noqa: PLC0415

        from .app import answer  # noqa: PLC0415

        data = answer("warm", {"warm": True}).model_dump(by_alias=True, exclude_none=True)
        for version in SUPPORTED_PROTOCOL_VERSIONS:
            with contextlib.suppress(Exception):
                serialize_server_result("tools/call", version, data)


async def warm_after_initialize(lines: AsyncIterable[str],
                                start: Callable[[], Any] = _start_warm_up) -> AsyncIterator[str]:
    """The same lines; `start()` is called once, when the second line arrives (before it is handed on)."""
    count = 0
    async for line in lines:
        count += 1
        if count == 2:
            start()
        yield line
