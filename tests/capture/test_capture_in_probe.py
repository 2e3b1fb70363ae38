"""Captures taken inside the JVM by the probe, without holding the thread (issue 31, "In the JVM"): the probe
copies the values and hands the capture over through a ring the debugger drains while everything runs. A hit
whose copy is not complete falls back to the round trip (the thread held while it is read) and says so.
Differential: the same hits captured with --no-instrument (round trip) show the same values."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger

from .views import plain

MAIN = "fixtures.CapturedPlain"
NOT_HELD = "in-JVM (not held)"

pytestmark = pytest.mark.timeout(60)



def top_and_places(capture) -> tuple:  # noqa: ANN001
    """Every frame's variables (the callers': not captured, by default) and place, the expressions and the
    cuts: the whole capture but its timing and how it was taken."""
    return ([None if f.locals is None else [plain(v) for v in f.locals] for f in capture.frames],
            [(f.location.class_name, f.location.method, f.location.line) for f in capture.frames],
            [plain(v) for v in capture.expressions],
            capture.cuts)


async def two_captures(jvm_factory, line: int, end: int, in_jvm: bool) -> list:  # noqa: ANN001
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line}", condition="i == 2 || i == 3", capture=2,
                                       expressions=["note", "items"])
        await d.breakpoint_set(f"{MAIN}:{end}")
        stop = await d.resume(timeout=30)
        assert stop.stopped and stop.stop.location.line == end, stop
        found = await d.captures(point.id, wait=5)
        assert len(found) == 2, found
        assert [r for r in d.history.since(0) if r.kind == "stop" and "VM start" not in r.text] and \
            len([r for r in d.history.since(0) if r.kind == "stop" and "VM start" not in r.text]) == 1
        listed = next(b for b in await d.breakpoint_list() if b.id == point.id)
        assert listed.capture.done and listed.capture.taken == 2, listed.describe()
        if in_jvm:
            taken, fallen = found
            # i == 2: copied whole in the JVM, the thread never held.
            assert taken.via == NOT_HELD and taken.took_ms == 0, (taken.note, taken.via, listed.describe())
            assert "taken in the JVM by the probe" in taken.copy, taken.copy
            assert all(f.locals is None for f in taken.frames[1:]), taken.frames
            assert any("arguments and locals not captured (capture_limits frames=1" in c for c in taken.cuts), \
                taken.cuts
            # i == 3: an unmodifiable wrapper the copy leaves to JDWP: that hit is taken by round trip, said.
            assert fallen.via == "in-JVM" and "Collections$UnmodifiableRandomAccessList" in (fallen.note or ""), \
                fallen
            assert "in the JVM" in listed.describe(), listed.describe()
        return found
    finally:
        await d.close()


async def test_in_probe_captures_equal_round_trip_captures_of_the_same_hits(jvm_factory, line_of) -> None:
    line, end = line_of("plain-line"), line_of("plain-end")
    in_probe = await two_captures(jvm_factory, line, end, True)
    round_trip = await two_captures(jvm_factory, line, end, False)
    for mine, theirs in zip(in_probe, round_trip, strict=True):
        assert top_and_places(mine) == top_and_places(theirs)
    top = {v.name: v for v in in_probe[0].frames[0].locals}
    # The list as it was at the hit (the line after it clears it).
    assert [c.children[0].text for c in top["items"].children] == ['"item-2-0"', '"item-2-1"', '"item-2-2"']
    assert [v.text for v in in_probe[0].expressions][0] == '"round 2"'


async def six_captures_the_last_in_the_jvm(d: Debugger, bp_id: str) -> list:
    """The point's six captures, as they come; by then it is in the JVM, where the last was taken."""
    found = await d.captures(bp_id, wait=10)
    while len(found) < 6:
        more = await d.captures(bp_id, wait=10, since=found[-1].seq)
        assert more, found
        found += more
    listed = next(b for b in await d.breakpoint_list() if b.id == bp_id)
    assert listed.mode == "in-JVM", listed.describe()
    assert found[-1].via == NOT_HELD, [(c.via, c.note) for c in found]
    return found


async def test_a_point_set_on_a_running_service_moves_into_the_jvm_and_takes_captures_there(jvm_factory, line_of) -> None:
    service = "fixtures.CaptureService"
    d = Debugger()
    try:
        await d.attach(jvm_factory(service, "4", suspend=False).address, timeout=10)
        line = line_of("capture-line")
        bp = await d.breakpoint_set(f"{service}:{line}", condition="request.id % 100 == 7", capture=6)
        # The first hit came by round trip (the class was loaded: it moves into the JVM at that hit's return).
        found = await six_captures_the_last_in_the_jvm(d, bp.id)
        top = {v.name: v for v in found[-1].frames[0].locals}
        items = next(c for c in top["request"].children if c.name == "items")
        assert len(items.children) == int(top["size"].text) >= 3, items  # (as it was: the next line clears it)
        assert [f.location.method for f in found[-1].frames[:2]] == ["handle", "lambda$main$0"], found[-1].frames
        assert not [r for r in d.history.since(0) if r.kind == "stop"]
        # Every frame as a stop there shows it (mapped from StackWalker's class, method and bytecode index
        # through the debugger's line tables: the lambda's hidden class, Thread.run).
        await d.breakpoint_remove(bp.id)
        await d.breakpoint_set(f"{service}:{line}")
        stop = await d.wait_for_stop(timeout=10)
        assert stop.stopped, stop
        at_stop = await d.stack(count=50)
        assert [(f.location.class_name, f.location.method, f.location.line) for f in found[-1].frames] == \
            [(f.location.class_name, f.location.method, f.location.line) for f in at_stop], at_stop
    finally:
        await d.close()


async def test_a_point_bound_before_its_conditions_type_loads_moves_into_the_jvm_once_it_has(jvm_factory,
                                                                                          line_of) -> None:
    """Set at the VM's start: the class binds when it loads, before the condition's type (Request) is loaded,
    so the condition cannot be compiled then. It must not stay on the round trip: once a hit shows the type
    loaded, the point moves into the JVM (as one set on a running program does). Failed once in CI when the
    attach came before the service class loaded."""
    service = "fixtures.CaptureService"
    d = Debugger()
    try:
        await d.attach(jvm_factory(service, "4").address, timeout=10)
        bp = await d.breakpoint_set(f"{service}:{line_of('capture-line')}", condition="request.id % 100 == 7",
                                    capture=6)
        await d.resume(timeout=0)
        found = await six_captures_the_last_in_the_jvm(d, bp.id)
        assert all(int({v.name: v for v in c.frames[0].locals}["request"].children[0].text) % 10 == 7
                   for c in found if c.frames[0].locals), found
        assert not [r for r in d.history.since(0) if r.kind == "stop" and "VM start" not in r.text]
    finally:
        await d.close()


async def test_a_capture_taken_just_before_the_program_exits_is_kept(jvm_factory, line_of) -> None:
    d = Debugger()
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line_of('plain-line')}", condition="i == 4", capture=1)
        # Asking for the callers' variables (or an expression other than a name) takes the capture held. (One
        # point a line: a line's points fire as one event, on the round trip.)
        callers = await d.breakpoint_set(f"{MAIN}:{line_of('plain-note')}", condition="i == 1", capture=1,
                                         capture_limits={"frames": 2})
        called = await d.breakpoint_set(f"{MAIN}:{line_of('plain-clear')}", condition="i == 0", capture=1,
                                        expressions=["items.size()"])
        end = await d.resume(timeout=30)  # to the program's end: the capture is still in the ring as it exits
        assert not end.stopped or end.stop.kind.value != "breakpoint", end
        found = await d.captures(point.id, wait=5)
        assert len(found) == 1 and found[0].via == NOT_HELD, found
        assert {v.name: v.text for v in found[0].frames[0].locals}["i"] == "4"
        held = (await d.captures(callers.id))[0]
        assert held.via == "in-JVM" and held.frames[1].locals is not None, held
        assert "frames=2 asks for the callers' variables" in callers.describe(), callers.describe()
        held = (await d.captures(called.id))[0]
        assert held.via == "in-JVM" and held.expressions[0].text == "1", held
        assert "'items.size()' is evaluated with the thread held" in called.describe(), called.describe()
    finally:
        await d.close()


async def test_a_point_in_a_loop_that_never_returns_captures_every_hit_it_is_asked_for(jvm_factory, line_of) -> None:
    """Set while the program runs, on a line in a thread's endless loop: the point cannot move into the JVM
    where that call returns (it never does). Its hits are still captured, by round trip, exactly as
    --no-instrument takes them: consecutive hits, none let by while a move waits."""
    d = Debugger()
    try:
        jvm = jvm_factory("fixtures.Ticker", suspend=False)
        await d.attach(jvm.address, timeout=10)
        bp = await d.breakpoint_set(f"fixtures.Ticker:{line_of('ticker-helper')}", capture=3,
                                    capture_limits={"rate": 10_000})  # (the loop runs ~200 times a second)
        found = await d.captures(bp.id, wait=10)
        while len(found) < 3:
            more = await d.captures(bp.id, wait=10, since=found[-1].seq if found else 0)
            assert more, (found, bp.describe())
            found += more
        assert [cap.hit for cap in found] == [1, 2, 3], [(cap.hit, cap.via, cap.note) for cap in found]
        assert not [r for r in d.history.since(0) if r.kind == "stop"]
    finally:
        await d.close()


async def test_a_point_in_a_method_without_locals_set_before_its_class_loads_captures_in_the_jvm(jvm_factory,
                                                                                                 line_of) -> None:
    """A thread's lambda has no live local (nor `this`): its probe's record names none. Every such record was
    dropped unread (a split of no names gave one), so the point captured nothing, ever, where the round trip
    took every hit; the CI run that found it had attached before the class loaded."""
    d = Debugger()
    try:
        await d.attach(jvm_factory("fixtures.Ticker").address, timeout=10)
        bp = await d.breakpoint_set(f"fixtures.Ticker:{line_of('ticker-helper')}", capture=3,
                                    capture_limits={"rate": 10_000})
        await d.resume()
        found = await d.captures(bp.id, wait=10)
        while len(found) < 3:
            more = await d.captures(bp.id, wait=10, since=found[-1].seq if found else 0)
            assert more, (found, bp.describe(), [r.text for r in d.history.since(0) if r.kind == "error"])
            found += more
        assert [(cap.hit, cap.via) for cap in found] == [(1, NOT_HELD), (2, NOT_HELD), (3, NOT_HELD)], found
        assert found[0].frames[0].locals == [] and found[0].frames[0].location.method.startswith("lambda$main")
        assert [r.text for r in d.history.since(0) if r.kind in ("stop", "error")] == [
            "STOPPED — VM start (nothing has run yet), thread main"]  # (none after it)
    finally:
        await d.close()
