"""Start a coroutine at once, in the caller's turn of the event loop, and go on as a task only if it waits.

An event's handling starts as its packet is read (issue 32, resume -> stop): a task would first wait for the
next turn of the event loop (one more epoll call and a scheduling step per stop). Python 3.12's eager tasks
do exactly this; on 3.11 the first step is run by hand and the rest is handed to an ordinary task.
`gather_eagerly` is asyncio.gather over such starts: coroutines that finish at once (their reads answered
already, e.g. from a stop's burst) cost no task and no turn; the others still run side by side.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Coroutine, Generator
from typing import Any


def start_eagerly(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any],
                  context: contextvars.Context) -> asyncio.Task[Any] | None:
    """Run `coro` in `context` up to its first wait; the task that runs the rest, or None if it finished
    (its outcome is dropped: for handlers that deal with their own errors)."""
    started = run_eagerly(loop, coro, context)
    return started if isinstance(started, asyncio.Task) else None


def run_eagerly(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any],
                context: contextvars.Context) -> asyncio.Future[Any]:
    """Run `coro` in `context` up to its first wait: a done future with its outcome when it finished, else
    the task that runs the rest."""
    if sys.version_info >= (3, 12):
        return asyncio.Task(coro, loop=loop, context=context, eager_start=True)  # type: ignore[call-arg]
    done: asyncio.Future[Any] = loop.create_future()
    try:
        waiting_on = context.run(coro.send, None)
    except StopIteration as finished:
        done.set_result(finished.value)
        return done
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - kept in the future, as a task would keep it
        done.set_exception(exc)
        return done
    return loop.create_task(_rest(coro, waiting_on), context=context)


async def gather_eagerly(*coros: Coroutine[Any, Any, Any]) -> list[Any]:
    """asyncio.gather(*coros) (the first failure raised, the others run on), each started at once."""
    loop = asyncio.get_running_loop()
    started = [run_eagerly(loop, coro, contextvars.copy_context()) for coro in coros]
    if all(f.done() for f in started):
        failures = [f.exception() for f in started]  # (each outcome retrieved: no "never retrieved" warning)
        first = next((exc for exc in failures if exc is not None), None)
        if first is not None:
            raise first
        return [f.result() for f in started]
    return list(await asyncio.gather(*started))


async def _rest(coro: Coroutine[Any, Any, Any], waiting_on: Any) -> Any:
    return await _Resumed(coro, waiting_on)


class _Resumed:
    """Awaiting this goes on with a coroutine whose first step already ran and yielded `waiting_on` (the future
    it waits for, or None for a bare yield): what `await coro` would do from there."""

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self._coro = coro
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, waiting_on = self._coro, self._waiting_on
        while True:
            try:
                sent = yield waiting_on
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # (a cancellation, thrown in by the task: the coroutine handles it)
                try:
                    waiting_on = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    waiting_on = coro.send(sent)
                except StopIteration as done:
                    return done.value
