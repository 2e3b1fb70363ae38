"""The deadlines of calls waiting for a stop, kept by one timer (session/deadlines.py): each wait ends at its own
deadline, a wait answered first leaves no timer behind, and a session used from a second event loop (tests, a
front end restarted) still ends its waits. Pure asyncio: the JVM side is covered by the resume/wait tests."""

from __future__ import annotations

import asyncio

from tracepilot.core.session.deadlines import EXPIRED, Deadlines


def test_each_wait_ends_at_its_own_deadline_and_an_answered_one_is_left_alone():
    async def main() -> None:
        loop = asyncio.get_running_loop()
        deadlines = Deadlines()
        late, soon, answered = loop.create_future(), loop.create_future(), loop.create_future()
        deadlines.add(late, 0.2)
        deadlines.add(soon, 0.05)  # (earlier than the timer armed: the timer moves)
        deadlines.add(answered, 0.05)
        answered.set_result("a stop")
        deadlines.discard(answered)
        started = loop.time()
        assert await soon is EXPIRED
        assert not late.done() and answered.result() == "a stop"
        assert await late is EXPIRED
        assert loop.time() - started >= 0.2 - 0.06  # (not before its time: it waited for its own deadline)

    asyncio.run(main())


def test_a_session_waiting_from_a_second_event_loop_still_ends_its_waits():
    deadlines = Deadlines()

    async def wait(seconds: float) -> object:
        waiter = asyncio.get_running_loop().create_future()
        deadlines.add(waiter, seconds)
        try:
            return await asyncio.wait_for(waiter, 5)
        finally:
            deadlines.discard(waiter)

    async def abandoned() -> None:  # a wait whose loop ends first (its timer is that loop's)
        deadlines.add(asyncio.get_running_loop().create_future(), 30)

    asyncio.run(abandoned())
    assert asyncio.run(wait(0.05)) is EXPIRED
