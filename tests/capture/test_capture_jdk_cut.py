"""A capture does not open the fields a class declares in, or inherits from, a JDK class (java.*/jdk.* modules)
that no logical view covers: java.base keeps them closed to reflection, so the in-JVM copy cannot read them,
while JDWP can. Both paths show them as one cut instead, so the capture taken in the JVM without a hold equals
the one read over JDWP (--no-instrument) of the same hit. `capture_limits jdk_internals` opens them again."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger

from .test_capture_in_probe import NOT_HELD, top_and_places

MAIN = "fixtures.CapturedJdk"

pytestmark = pytest.mark.timeout(60)


async def captures(jvm_factory, line: int, end: int, in_jvm: bool, limits: dict | None = None) -> list:  # noqa: ANN001
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line}", condition="i >= 1", capture=2, capture_limits=limits)
        await d.breakpoint_set(f"{MAIN}:{end}")
        stop = await d.resume(timeout=30)
        assert stop.stopped and stop.stop.location.line == end, stop
        return await d.captures(point.id, wait=5)
    finally:
        await d.close()


async def test_jdk_fields_are_one_cut_in_both_paths_and_the_in_jvm_capture_needs_no_hold(jvm_factory, line_of) -> None:
    line, end = line_of("jdk-line"), line_of("jdk-end")
    in_probe = await captures(jvm_factory, line, end, True)
    round_trip = await captures(jvm_factory, line, end, False)
    assert len(in_probe) == len(round_trip) == 2
    assert all(c.via == NOT_HELD for c in in_probe), [(c.via, c.note) for c in in_probe]
    for mine, theirs in zip(in_probe, round_trip, strict=True):
        assert top_and_places(mine) == top_and_places(theirs)
    top = {v.name: v for v in in_probe[0].frames[0].locals}
    loader, worker, lock = top["loader"], top["worker"], top["lock"]
    # The program's own fields are shown; the JDK's are one cut that names the class.
    assert [c.name for c in loader.children] == ["tag", "loaded"], loader
    assert loader.cut and "java.lang.ClassLoader" in loader.cut and "JDK internals" in loader.cut, loader.cut
    assert [c.name for c in worker.children] == ["jobs"] and "java.lang.Thread" in worker.cut, worker
    # A JDK object no logical view knows: summarized, not opened, the cut said.
    assert not lock.children and "ReentrantLock" in lock.cut and "JDK internals" in lock.cut, lock
    assert any(c.startswith("frame 0: loader") and "java.lang.ClassLoader" in c for c in in_probe[0].cuts)


async def test_jdk_internals_opens_them_again_and_such_captures_hold_the_thread(jvm_factory, line_of) -> None:
    found = await captures(jvm_factory, line_of("jdk-line"), line_of("jdk-end"), True, {"jdk_internals": True})
    assert found and all(c.via != NOT_HELD for c in found), [(c.via, c.note) for c in found]
    loader = next(v for v in found[0].frames[0].locals if v.name == "loader")
    assert "parent" in [c.name for c in loader.children] and "JDK internals" not in (loader.cut or ""), loader


def test_jdk_internals_is_a_capture_limit() -> None:
    from tracepilot.core.capture.points import capture_state, limits_arguments
    from tracepilot.core.errors import DebuggerError

    assert capture_state(1, **limits_arguments({"jdk_internals": True})).limits.jdk_internals is True
    assert capture_state(1, **limits_arguments({"depth": 1.0})).limits.jdk_internals is False
    with pytest.raises(DebuggerError, match="jdk_internals"):
        capture_state(1, jdk_internals="yes")
