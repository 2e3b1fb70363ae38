"""Captures taken in the JVM wait in its ring while nobody follows the history or waits for one (issue 31's
Jetty point: rendering them is the debugger's CPU, on the cores the program runs on): the next answer that
shows them -- captures, events, breakpoint_list, a stop -- reads them first, in hit order, numbered as taken.
A front end that follows the history (TUI, REPL, DAP, share) gets them as they come, as before."""

from __future__ import annotations

import asyncio
import time

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.jdwp import ArrayReference

SERVICE = "fixtures.CaptureService"
NOT_HELD = "in-JVM (not held)"

pytestmark = pytest.mark.timeout(60)


async def taken_in_the_jvm(d: Debugger, bp_id: str, count: int) -> None:
    """Until the JVM counted `count` captures of the point (its own counter, read without draining the ring;
    the ones taken by round trip before the point moved there count from its start)."""
    probe = d.session.breakpoints.captures.in_probe
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if d.session.breakpoints.get(bp_id).info.capture.taken >= count:
            return  # (all by round trip: none waits in the ring)
        point = probe.ids.get(bp_id)
        if point is not None:
            got = (await probe.vm.send(ArrayReference.GetValues, probe.arrays["TAKEN"], point, 1)).values[0].value
            if got >= count:
                return
        await asyncio.sleep(0.05)  # (no event says so: that is the point of taking them in the JVM)
    raise AssertionError(f"the JVM did not take {count} captures of {bp_id}")


async def test_captures_wait_in_the_ring_until_asked_and_come_at_once_to_a_follower(jvm_factory, line_of) -> None:
    d = Debugger()
    try:
        await d.attach(jvm_factory(SERVICE, "4", suspend=False).address, timeout=10)
        line = line_of("capture-line")
        # (One worker's hits, one every ~0.2 s: the point moves into the JVM at the first one's return, long
        # before its fourth capture even on a loaded machine. The four workers' ids hit "% 10 == 7" together:
        # all four captures came by round trip once.)
        bp = await d.breakpoint_set(f"{SERVICE}:{line}", condition="request.id % 50 == 7 && worker == 0",
                                    capture=4)
        await taken_in_the_jvm(d, bp.id, 4)
        await asyncio.sleep(0.3)  # (several poll periods: nothing is read while nobody asks)
        book = d.session.breakpoints.captures.book
        waiting = [c for c in book.select(bp.id) if c.via == NOT_HELD]
        assert not waiting, [(c.number, c.via) for c in book.select(bp.id)]
        # Asked: every capture, in hit order, numbered as taken, the history's capture events with them.
        found = await d.captures(bp.id)
        assert [c.number for c in found] == [1, 2, 3, 4], [(c.number, c.via, c.note) for c in found]
        assert [c.hit for c in found] == sorted(c.hit for c in found)
        assert found[-1].via == NOT_HELD and "request" in {v.name for v in found[-1].frames[0].locals}
        assert len([r for r in d.history.since(0) if r.kind == "capture"]) == 4
        listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert listed.capture.done and "capture 4/4 done" in listed.describe(), listed.describe()
        # A follower of the history gets a point's captures without asking.
        arrived: list[str] = []
        both = asyncio.Event()

        def follow(record) -> None:  # noqa: ANN001
            if record.kind == "capture":
                arrived.append(record.text)
                if len(arrived) == 2:
                    both.set()

        unsubscribe = d.history.subscribe(follow)
        followed = await d.breakpoint_set(f"{SERVICE}:{line}", condition="request.id % 10 == 3", capture=2)
        await asyncio.wait_for(both.wait(), 20)
        unsubscribe()
        assert all(f"capture {followed.id} #" in text for text in arrived), arrived
        # A point removed while its captures wait in the ring keeps them.
        removed = await d.breakpoint_set(f"{SERVICE}:{line}", condition="request.id % 10 == 5", capture=3)
        await taken_in_the_jvm(d, removed.id, 3)
        state = d.session.breakpoints.get(removed.id).info
        await d.breakpoint_remove(removed.id)
        kept = [c for c in await d.captures() if c.breakpoint_id == removed.id]
        assert [c.number for c in kept] == [1, 2, 3], ([(c.number, c.via) for c in kept], state.mode, state.capture,
                                                       [r.text for r in d.history.since(0) if removed.id in r.text
                                                        or r.kind == "error"])
    finally:
        await d.close()
