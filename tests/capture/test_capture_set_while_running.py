"""A capture point set on a running program whose method has run already (its class loaded): the hit that
starts its move into the JVM is captured by round trip, and the hits after the move in the JVM. A method an
agent's one request reaches once must not go by uncaptured (found with jshell's JShell.eval)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger

MAIN = "fixtures.OnDemand"

pytestmark = pytest.mark.timeout(60)


async def on_demand(jvm_factory, tmp_path, **options):  # noqa: ANN001, ANN201
    """OnDemand started and serving: (the JVM, the directory whose new files are its requests)."""
    requests = tmp_path / "requests"
    requests.mkdir()
    target = jvm_factory(MAIN, str(requests), suspend=False, **options)
    await asyncio.to_thread(target.wait_for_output, "ready")
    return target, requests


async def test_the_first_hit_of_a_point_set_while_running_is_captured(jvm_factory, line_of, tmp_path) -> None:
    target, requests = await on_demand(jvm_factory, tmp_path)
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line_of('on-demand')}", capture=2, expressions=["name"])
        (requests / "first").touch()
        found = await d.captures(point.id, wait=10)
        assert [c.expressions[0].text for c in found] == ['"first"'], [(c.via, c.note) for c in found]
        assert found[0].via == "round trip" and found[0].hit == 1, (found[0].via, found[0].hit)
        await asyncio.to_thread(target.wait_for_output, "handled first")  # (the loop goes on meanwhile)
        (requests / "second").touch()  # in the JVM now (moved where the first hit's call returned)
        more = await d.captures(point.id, wait=10, since=found[0].seq)
        assert [c.expressions[0].text for c in more] == ['"second"'], [(c.via, c.note) for c in more]
        assert more[0].via == "in-JVM (not held)" and more[0].hit == 2, (more[0].via, more[0].hit)
        assert not [r for r in d.history.since(0) if r.kind == "stop"]
        await d.session.breakpoints.captures.settled()
        listed = next(b for b in await d.breakpoint_list() if b.id == point.id).describe()
        # Done: its requests and probe are gone, so neither "pending" (a class not loaded yet) nor a mode.
        assert "capture 2/2 done" in listed and "pending" not in listed and "in-JVM" not in listed, listed
    finally:
        await d.close()


async def test_a_point_in_a_named_modules_class_says_its_captures_are_held(jvm_factory, tmp_path) -> None:
    """jdk.jshell's or jdk.jartool's classes (the system class loader's, in a named module) cannot reach the
    take class (its unnamed module): their captures are taken with the thread held, and the point says why,
    instead of a probe whose every hit throws IllegalAccessError."""
    target, requests = await on_demand(jvm_factory, tmp_path)
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.method_break("sun.tools.jar.JarToolProvider.run", capture=2, expressions=["args"])
        for n in (1, 2):
            (requests / "jar").touch()
            await asyncio.to_thread(target.wait_for_output, f"handled jar #{n + 1}")
        found = await d.captures(point.id, wait=10)
        assert len(found) == 2, [(c.via, c.note) for c in found]
        for capture in found:
            assert not capture.note or "Error" not in capture.note, capture.note
            assert "\"--version\"" in capture.expressions[0].text, capture.expressions[0].text
        listed = next(b for b in await d.breakpoint_list() if b.id == point.id)
        assert "module jdk.jartool" in listed.describe(), listed.describe()
        assert "without holding the thread" not in listed.describe(), listed.describe()
    finally:
        await d.close()


async def test_captures_answers_with_every_capture_the_jvm_took_before_the_call(jvm_factory, line_of, tmp_path) -> None:
    """captures reads the probe's ring first, as events does: captures taken in the JVM before the call are
    in its answer, not left for the next poll (Jetty: five requests done, `captures` answered two)."""
    target, requests = await on_demand(jvm_factory, tmp_path)
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line_of('on-demand')}", capture=10, expressions=["name"])
        (requests / "first").touch()  # (its round trip moves the point into the JVM)
        await asyncio.to_thread(target.wait_for_output, "handled first")
        assert len(await d.captures(point.id, wait=10)) == 1
        for name in ("r1", "r2", "r3", "r4"):
            (requests / name).touch()
        await asyncio.to_thread(target.wait_for_output, "#6")  # (all four handled: 3 before, in file order)
        found = await d.captures(point.id)
        assert sorted(c.expressions[0].text for c in found[1:]) == ['"r1"', '"r2"', '"r3"', '"r4"'], \
            [(c.via, c.expressions[0].text) for c in found]
        assert {c.via for c in found[1:]} == {"in-JVM (not held)"}, [(c.via, c.note) for c in found]
    finally:
        await d.close()


async def test_records_an_earlier_session_left_in_the_ring_are_not_this_sessions(jvm_factory, line_of, tmp_path,
                                                                                   free_port) -> None:
    """The take class stays defined after a detach, with the records taken after that session's last read
    (hits in flight at the detach, or a tracepilot killed). A new session's point reuses id 0: it must not
    book them as its own (Jetty: a new session's captures showed the old session's requests)."""
    target, requests = await on_demand(jvm_factory, tmp_path, port=free_port())  # (the same port after a detach)
    line = f"{MAIN}:{line_of('on-demand')}"
    first = Debugger()
    await first.attach(target.address, timeout=10)
    point = await first.breakpoint_set(line, capture=10, expressions=["name"])
    (requests / "move").touch()  # (its round trip moves the point into the JVM)
    assert len(await first.captures(point.id, wait=10)) == 1
    await asyncio.to_thread(target.wait_for_output, "handled move")
    in_probe = first.session.breakpoints.captures.in_probe

    async def unread() -> None:  # (this session reads its ring no more, as one killed would)
        return None

    in_probe.drain = unread
    in_probe._poller.cancel()
    for name in ("old1", "old2"):
        (requests / name).touch()
    await asyncio.to_thread(target.wait_for_output, "handled old2")
    await first.close()
    second = Debugger()
    try:
        await second.attach(target.address, timeout=10)
        point = await second.breakpoint_set(line, capture=3, expressions=["name"])
        for name in ("new1", "new2", "new3"):
            (requests / name).touch()
            await asyncio.to_thread(target.wait_for_output, f"handled {name}")
        names = [c.expressions[0].text for c in await second.captures(point.id, wait=10)]
        assert names == ['"new1"', '"new2"', '"new3"'], names
    finally:
        await second.close()


async def test_a_point_in_a_boot_class_says_so_when_set_and_never_tries_to_move(jvm_factory) -> None:
    """A class of the boot class loader (java.util's) is never instrumented: set while the program runs, the
    point says so at once, instead of promising a move "once the method returns" that holds every thread
    once and then fails."""
    target = jvm_factory("TimerTicks", suspend=False)
    await asyncio.to_thread(target.wait_for_output, "ticking")
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.method_break("java.util.TaskQueue.rescheduleMin", capture=2)
        assert "boot class loader" in point.describe(), point.describe()
        found = await d.captures(point.id, wait=10)
        while len(found) < 2:
            found += await d.captures(point.id, wait=10, since=found[-1].seq)
        assert [c.via for c in found] == ["round trip", "round trip"], [(c.via, c.note) for c in found]
        assert not [r for r in d.history.since(0) if r.kind in ("stop", "breakpoint_changed")], \
            [r.text for r in d.history.since(0)]
        assert not d.session.breakpoints.in_jvm._upgrades, d.session.breakpoints.in_jvm._upgrades
    finally:
        await d.close()


async def test_a_point_whose_captures_were_held_does_not_list_as_taken_without_holding(jvm_factory, line_of) -> None:
    """Its probe is in the JVM, but the copy of its one hit fell short (an unmodifiable wrapper): that capture
    was taken with the thread held, and the listing says so (Ant's Echo, Jetty at depth 2: every capture held
    while breakpoint_list said "taken in the JVM without holding the thread")."""
    main = "fixtures.CapturedPlain"
    d = Debugger()
    try:
        await d.attach(jvm_factory(main).address, timeout=10)
        point = await d.breakpoint_set(f"{main}:{line_of('plain-line')}", condition="i == 3", capture=1)
        await d.breakpoint_set(f"{main}:{line_of('plain-end')}")
        assert (await d.resume(timeout=30)).stopped
        found = await d.captures(point.id)
        assert len(found) == 1 and found[0].via == "in-JVM", [(c.via, c.note) for c in found]
        listed = next(b for b in await d.breakpoint_list() if b.id == point.id).describe()
        assert "taken in the JVM without holding" not in listed and "taken with the thread held" in listed, listed
    finally:
        await d.close()
