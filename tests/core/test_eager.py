"""core/eager.py: a coroutine started in the caller's turn of the event loop (an event's handling, a stop's
views whose reads are answered already), going on as a task only if it waits. Plain asyncio: no JVM."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from tracepilot.core.eager import gather_eagerly, start_eagerly

WHERE = contextvars.ContextVar("WHERE", default="caller")


async def test_runs_at_once_up_to_its_first_wait_then_goes_on_as_a_task_in_its_context():
    loop = asyncio.get_running_loop()
    seen: list[object] = []

    async def handler(gate: asyncio.Future[int] | None) -> None:
        seen.append(("started", WHERE.get()))
        if gate is not None:
            seen.append(("got", await gate, WHERE.get()))

    context = contextvars.copy_context()
    context.run(WHERE.set, "handler")
    assert start_eagerly(loop, handler(None), context) is None  # finished in this call: no task
    gate: asyncio.Future[int] = loop.create_future()
    task = start_eagerly(loop, handler(gate), context.copy())
    assert task is not None and seen == [("started", "handler"), ("started", "handler")]
    gate.set_result(7)
    await task
    assert seen[-1] == ("got", 7, "handler") and WHERE.get() == "caller"


async def test_a_cancelled_task_cancels_the_coroutine_where_it_waits():
    loop = asyncio.get_running_loop()
    cleaned: list[str] = []

    async def waits(gate: asyncio.Future[None]) -> None:
        try:
            await gate
        finally:
            cleaned.append("finally")

    gate: asyncio.Future[None] = loop.create_future()
    task = start_eagerly(loop, waits(gate), contextvars.copy_context())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally"] and gate.cancelled()


async def test_gather_eagerly_is_gather():
    loop = asyncio.get_running_loop()

    async def value(x: int, gate: asyncio.Future[None] | None = None) -> int:
        if gate is not None:
            await gate
        return x

    async def fails(message: str) -> int:
        raise ValueError(message)

    assert await gather_eagerly(value(1), value(2)) == [1, 2]  # (all done at once: no task)
    gate: asyncio.Future[None] = loop.create_future()
    loop.call_soon(gate.set_result, None)
    assert await gather_eagerly(value(1, gate), value(2)) == [1, 2]
    with pytest.raises(ValueError, match="first"):
        await gather_eagerly(value(1), fails("first"), fails("second"))
    assert await gather_eagerly() == []
