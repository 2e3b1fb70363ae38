"""A capture taken in the JVM reuses an earlier capture's rendering of an object (openings.py: the debugger's
CPU a live follower pays per capture) only while what it was made from is unchanged: the same state shows
the same values, a change nested below `this` shows up, and every capture equals the round trip's reading
of the same hit (--no-instrument: read over JDWP, nothing reused)."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger

from .views import frames, plain

MAIN = "fixtures.CaptureReuse"
NOT_HELD = "in-JVM (not held)"

pytestmark = pytest.mark.timeout(60)


async def four_captures(jvm_factory, line_of, in_jvm: bool) -> tuple[list, int]:  # noqa: ANN001
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line_of('reuse-line')}", capture=4,
                                       capture_limits={"rate": 100_000})
        await d.breakpoint_set(f"{MAIN}:{line_of('reuse-end')}")
        stop = await d.resume(timeout=30)
        assert stop.stopped and stop.stop.location.line == line_of("reuse-end"), stop
        found = await d.captures(point.id, wait=5)
        assert len(found) == 4, found
        openings = d.session.breakpoints.captures.capture_objects(d.session.require_vm()).openings
        return found, openings.reused
    finally:
        await d.close()


def this_of(capture):  # noqa: ANN001, ANN201
    return next(v for v in capture.frames[0].locals if v.name == "this")


def child(value, name: str):  # noqa: ANN001, ANN201
    return next(c for c in value.children if c.name == name)


async def test_reused_openings_show_every_change_and_equal_the_round_trip(jvm_factory, line_of) -> None:
    in_jvm, reused = await four_captures(jvm_factory, line_of, True)
    assert [c.via for c in in_jvm] == [NOT_HELD] * 4, [(c.via, c.note) for c in in_jvm]
    assert reused > 0, "no opening was reused: the test no longer covers the reuse"
    this = [this_of(c) for c in in_jvm]
    # The same state: the same values (with the same handles: the same objects).
    assert this[0] == this[1]
    # Only the list nested in the config grew: the config's summary of it says so, and its elements.
    tags = [child(child(t, "config"), "tags") for t in this]
    assert [t.text.split(" @")[0] for t in tags] == ["ArrayList(size=2)", "ArrayList(size=2)",
                                                     "ArrayList(size=3)", "ArrayList(size=3)"], [t.text for t in tags]
    assert this[2] != this[1]
    # Only a number in the config changed.
    assert [child(child(t, "config"), "limit").text for t in this] == ["5", "5", "5", "9"]
    assert this[3] != this[2]
    # Each capture as the round trip reads the same hit.
    round_trip, _ = await four_captures(jvm_factory, line_of, False)
    for mine, theirs in zip(in_jvm, round_trip, strict=True):
        assert frames(mine) == frames(theirs)
        assert [plain(v) for v in mine.expressions] == [plain(v) for v in theirs.expressions]
        assert mine.cuts == theirs.cuts
