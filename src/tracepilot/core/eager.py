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
    if not started.done():
        return started  # type: ignore[return-value]  (a task: it waits)
    if not started.cancelled():
        started.exception()  # (retrieved: dropped without a "never retrieved" warning)
    return None


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
    return loop.create_task(_Resumed(coro, waiting_on), context=context)  # type: ignore[arg-type]


async def gather_eagerly(*coros: Coroutine[Any, Any, Any]) -> list[Any]:
    """asyncio.gather(*coros) (the first failure raised, the others run on), each started at once."""
    loop = asyncio.get_running_loop()
    if sys.version_info >= (3, 12):
        started = [run_eagerly(loop, coro, contextvars.copy_context()) for coro in coros]
    else:
        # (a coroutine that finished at once costs no future: the stop path's views mostly do)
        outcomes: list[Any] = []
        failure: BaseException | None = None
        waiting = False
        for coro in coros:
            context = contextvars.copy_context()
            try:
                waiting_on = context.run(coro.send, None)
            except StopIteration as finished:
                outcomes.append(finished.value)
                continue
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - raised below, as gather would
                outcomes.append(_Failed(exc))
                failure = failure or exc
                continue
            outcomes.append(loop.create_task(_Resumed(coro, waiting_on), context=context))  # type: ignore[arg-type]
            waiting = True
        if not waiting:
            if failure is not None:
                raise failure
            return outcomes
        started = [_as_future(loop, item) for item in outcomes]
    if all(f.done() for f in started):
        failures = [f.exception() for f in started]  # (each outcome retrieved: no "never retrieved" warning)
        first = next((exc for exc in failures if exc is not None), None)
        if first is not None:
            raise first
        return [f.result() for f in started]
    return list(await asyncio.gather(*started))


class _Failed:
    """A coroutine's failure at its first step (gather_eagerly), until it is raised or put in a future."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _as_future(loop: asyncio.AbstractEventLoop, item: Any) -> asyncio.Future[Any]:
    if isinstance(item, asyncio.Future):
        return item
    done: asyncio.Future[Any] = loop.create_future()
    if isinstance(item, _Failed):
        done.set_exception(item.exc)
    else:
        done.set_result(item)
    return done


class _Resumed(Coroutine[Any, Any, Any]):
    """What a task runs to go on with a coroutine whose first step already ran and yielded `waiting_on` (the
    future it waits for, or None for a bare yield): the task's first step waits on that, the next ones go to
    the coroutine. Cancelled before its first step, it cancels what the coroutine waits on and throws the
    cancellation in where it waits, as a task that had run that first step would."""

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self._coro = coro
        self._waiting_on = waiting_on
        self._first = True

    def send(self, value: Any) -> Any:
        if self._first:
            self._first = False
            return self._waiting_on
        return self._coro.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:  # type: ignore[override]
        if self._first:
            self._first = False
            waiting_on = self._waiting_on
            if isinstance(waiting_on, asyncio.Future) and not waiting_on.done():
                waiting_on.cancel()
        if val is None and tb is None:
            return self._coro.throw(typ)
        return self._coro.throw(typ, val, tb)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Generator[Any, Any, Any]:
        raise TypeError("a resumed coroutine is run by its task, not awaited")
