"""EventHistory.add_soon: a record made a moment later (a stop's, after the waiting call is woken) is never
missing nor out of order for anyone who adds, reads or follows."""

from __future__ import annotations

import asyncio

from tracepilot.core.history import EventHistory


async def test_a_deferred_record_comes_before_anything_added_or_read_after_it() -> None:
    history = EventHistory()
    heard: list[str] = []
    history.subscribe(lambda r: heard.append(r.kind))
    made: list[str] = []

    def make() -> tuple[str, dict]:
        made.append("stop")
        return "STOPPED here", {"n": 1}

    history.add("resume", "resumed")
    history.add_soon("stop", make)
    assert made == []  # (not made yet: the call waiting for the stop goes first)
    history.add("log", "a line")  # an add flushes first: the stop keeps its place
    assert [r.kind for r in history.since(0)] == ["resume", "stop", "log"] == heard
    history.add_soon("stop", lambda: ("STOPPED again", {}))
    assert history.last_seq == 4 and history.since(3)[0].text == "STOPPED again"
    history.add_soon("stop", lambda: ("third", {}))
    await asyncio.sleep(0)  # ...or the event loop's next turn
    assert heard[-1] == "stop" and history.since(4)[0].text == "third"


async def test_a_record_that_cannot_be_made_is_said_not_lost() -> None:
    history = EventHistory()
    history.add_soon("stop", lambda: 1 / 0)
    history.add_soon("stop", lambda: ("next", {}))
    kinds = [(r.kind, r.text) for r in history.since(0)]
    assert kinds[0][0] == "error" and "ZeroDivisionError" in kinds[0][1] and kinds[1] == ("stop", "next")
