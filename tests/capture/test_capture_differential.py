"""A capture and a stop on the same hit show the same values, with the same limits, in the JVM (an in-JVM
condition's probe) and by round trip (--no-instrument): a deterministic program, one run with a capture point,
one stopping at the same hit (where the stop's `locals` and a capture taken at the stop are compared)."""

from __future__ import annotations

import re

import pytest

from tracepilot.core.capture.model import CaptureLimits
from tracepilot.core.capture.prefetch import CopyIncomplete
from tracepilot.core.debugger import Debugger

from .views import frames, plain

MAIN = "fixtures.Captured"
CONDITION = "i == 3"
EXPRESSIONS = ["chain.next.label", "round + i"]

pytestmark = pytest.mark.timeout(120)




async def one_mode(jvm_factory, line: int, end_line: int, in_jvm: bool) -> tuple:  # noqa: ANN001
    location = f"{MAIN}:{line}"
    # The capture point's run.
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        # Two captures, at i == 2 and i == 3: a point's first capture is read over JDWP alone, and from the
        # second on (this program's values are many objects) they are copied in the JVM.
        point = await d.breakpoint_set(location, condition="i == 2 || " + CONDITION, capture=2,
                                       expressions=EXPRESSIONS)
        await d.breakpoint_set(f"{MAIN}:{end_line}")
        end = await d.resume(timeout=60)  # to the end: the point never stopped it on the way
        assert end.stopped and end.stop.location.line == end_line, end
        found = await d.captures(point.id)
        listed = next(b for b in await d.breakpoint_list() if b.id == point.id)
        assert listed.mode == ("in-JVM" if in_jvm else "round trip (in-JVM mode is off (--no-instrument))"), \
            listed.describe()
        stops = [r.data["stop"]["location"]["line"] for r in d.history.since(0) if r.kind == "stop"
                 and "VM start" not in r.text]
        assert stops == [end_line], stops
        assert len(found) == 2 and {c.via for c in found} == {"in-JVM" if in_jvm else "round trip"}, found
        first, captured = found
        assert first.copy.startswith("values read over JDWP (the point's first" if in_jvm
                                     else "in-JVM mode is off"), first.copy
        # In-JVM mode: the values were copied in the JVM by one call (prefetch.py), the rest read over JDWP as
        # at a stop; --no-instrument: read over JDWP alone.
        assert captured.copy.startswith("values copied in the JVM" if in_jvm else "in-JVM mode is off"), captured.copy
        if in_jvm:  # (this, its maps, deque, atomic, boxes, the chain, the arrays, the strings...)
            assert int(re.search(r"\((\d+) objects", captured.copy).group(1)) >= 40, captured.copy
    finally:
        await d.close()
    # The stopping run: the same hit.
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        await d.breakpoint_set(location, condition=CONDITION)
        stop = await d.resume(timeout=60)
        assert stop.stopped and stop.stop.location.line == line, stop
        captures = d.session.breakpoints.captures
        at_stop = await captures.read(stop.stop.thread_id, CaptureLimits(), EXPRESSIONS)
        if in_jvm:  # The same hit copied in the JVM with its roots in an array (as for more than 8 roots).
            captures.copier.one_by_one = 0
            in_array = await captures.read(stop.stop.thread_id, CaptureLimits(), EXPRESSIONS, copy=True)
            assert in_array.copy.startswith("values copied in the JVM"), in_array.copy
            assert frames(in_array) == frames(at_stop)
            # Bag's ArrayList fields are JDK internals, one cut in every path (capture/jdk_fields.py): the copy
            # alone covers this hit, and reads as the stop's capture does.
            covered = await captures.read(stop.stop.thread_id, CaptureLimits(frames=1), [], copy_only=True)
            assert frames(covered)[0] == frames(at_stop)[0]
            # Asked to show them (jdk_internals), the copier says what it lacks before anything is rendered.
            with pytest.raises(CopyIncomplete, match="lacks the fields fixtures.Captured\\$Bag inherits from"):
                await captures.read(stop.stop.thread_id, CaptureLimits(frames=1, jdk_internals=True), [],
                                    copy_only=True)
        shown = {v.name: re.sub(r"@\d+", "@", v.value.text) for v in await d.locals(0)}
    finally:
        await d.close()
    return captured, at_stop, shown


async def test_a_capture_shows_what_a_stop_at_the_same_hit_shows_in_both_modes(jvm_factory, line_of) -> None:
    line = line_of("captured-line")
    seen = {}
    for in_jvm in (True, False):
        captured, at_stop, shown = await one_mode(jvm_factory, line, line_of("captured-end"), in_jvm)
        assert frames(captured) == frames(at_stop), in_jvm
        assert [plain(v) for v in captured.expressions] == [plain(v) for v in at_stop.expressions]
        assert sorted(captured.cuts) == sorted(at_stop.cuts)
        # The top frame's variables read as the stop's `locals` shows them.
        got = {v.name: re.sub(r"@\d+", "@", v.text) for v in captured.frames[0].locals}
        # (a stop shows what a capture leaves as one cut: Bag's ArrayList internals, see the cut below)
        assert "bag=Captured$Bag{modCount=4, elementData=java.lang.Object[10], size=4, tag=" in shown["this"]
        shown["this"] = shown["this"].replace("Bag{modCount=4, elementData=java.lang.Object[10], size=4, ", "Bag{")
        assert got == shown
        seen[in_jvm] = (frames(captured), [plain(v) for v in captured.expressions], sorted(captured.cuts))
    assert seen[True] == seen[False]
    # The limits cut, and say what and how much.
    top = {v.name: v for v in captured.frames[0].locals}
    this = {c.name: c for c in top["this"].children}
    assert this["names"].cut == "20 of 25 elements" and len(this["names"].children) == 20
    assert top["longText"].cut == "string cut at 200 of 300 chars"
    chain = {c.name: c for c in top["chain"].children}
    nested = {c.name: c for c in chain["next"].children}
    assert nested["next"].cut.startswith("not opened: depth limit 2"), nested["next"]
    assert [c.name for c in this["bag"].children] == ["tag"], this["bag"]
    assert this["bag"].cut.startswith("3 fields of java.util.AbstractList, java.util.ArrayList not captured: JDK"), \
        this["bag"].cut
    assert [plain(v)[1] for v in captured.expressions] == ['"b3"', "6"]
