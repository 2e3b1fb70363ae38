"""Capture points answer alike in the JVM and by round trip (--no-instrument), scripted (what the differential
test's random sequences found): a condition that fails is reported on the capture it takes, in the round
trip's words, as a plain breakpoint's stop reports it; captures are listed in the order of their hits, whether
the probe took them in the JVM or the thread was held; a done point lists the same (unbound) in both modes."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState

MAIN = "fixtures.Differential"
FAST = {"rate": 100_000}  # (every hit of the loop captured, none skipped by the rate limit)

pytestmark = pytest.mark.timeout(90)


def _note(note: str | None) -> str | None:
    """A capture's note without how the mode took it (the mode line may differ: `via`, `copy`)."""
    parts = [p for p in (note or "").split("; ") if p and not p.startswith(("taken with the thread held",
                                                                              "the in-JVM"))]
    return "; ".join(parts) or None


async def _transcript(jvm_factory: Any, line_of: Any, java_source_root: Path, in_jvm: bool) -> list:
    answers: list = []
    gates = Gates.started(jvm_factory, java_source_root, in_jvm)
    debugger, jvm = gates.debugger, gates.jvm

    async def stop_answer(result: Any) -> Any:
        return (result.stop.kind.value, result.stop.breakpoint_id)

    try:
        await debugger.attach(jvm.address, timeout=10)
        at = {name: f"{MAIN}:{line_of(name)}" for name in ("diff-weigh", "diff-return", "diff-late", "diff-gate",
                                                            "diff-total", "diff-end")}
        # `w` is declared below diff-weigh: a condition error at every hit (not compilable: held in both modes).
        await debugger.breakpoint_set(at["diff-weigh"], condition="w > 0", capture=2, expressions=["name"],
                                      capture_limits=FAST)
        # Taken in the JVM by the probe (its ring), between the held hits above.
        await debugger.breakpoint_set(at["diff-return"], capture=3, expressions=["w"], capture_limits=FAST)
        # Throws every fifth round: an error in the JVM's probe, the thread held, the round trip's words; the
        # hits between are taken in the JVM (its ring, read later): the held one's hit number counts them, and
        # the hit that throws after the ring's records made the point done is not counted (nor by round trip).
        await debugger.breakpoint_set(at["diff-late"], condition="10 / (i % 5) > 2", capture=4,
                                      expressions=["name"], capture_limits=FAST)
        # main's frame runs the code it started with (no probe): by round trip, after the ring's captures.
        await debugger.breakpoint_set(at["diff-gate"], capture=1, capture_limits=FAST)
        # A hit rule counts in the probe: a capture taken in the JVM carries its hit's number.
        await debugger.breakpoint_set(at["diff-total"], condition="i > 1", hit_count="%2", capture=2,
                                      capture_limits=FAST)
        # A pure hit count: by round trip the JVM's Count filter, counted at the hits it lets by (==3: 3 for good).
        await debugger.breakpoint_set(at["diff-end"], hit_count="==3", capture=2, capture_limits=FAST)
        for _ in range(8):
            if debugger.session.state is SessionState.STOPPED:
                await debugger.resume(timeout=0)
            elif gates.seen:
                gates.open()
            answers.append(await gates.settle(stop_answer))
            if answers[-1] == "gate 0":  # a new hit rule counts from now on, in the JVM as by round trip
                await debugger.breakpoint_update("bp-2", hit_count="")
            answers.append([(b.id, b.hits, b.verified, [(x.method, x.line) for x in b.locations],
                             b.capture.taken, b.capture.done) for b in await debugger.breakpoint_list()])
            if answers[-2] == "exited":
                break
        answers.append([(c.seq, c.breakpoint_id, c.number, c.hit, _note(c.note),
                         [(v.name, v.text) for v in c.frames[0].locals if v.name in ("i", "w", "late")],
                         [(v.name, v.text) for v in c.expressions]) for c in await debugger.captures(limit=100)])
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_capture_points_answer_alike_in_the_jvm_and_by_round_trip(jvm_factory, line_of, java_source_root):
    in_jvm = await _transcript(jvm_factory, line_of, java_source_root, in_jvm=True)
    round_trip = await _transcript(jvm_factory, line_of, java_source_root, in_jvm=False)
    for n, (mine, theirs) in enumerate(zip(in_jvm, round_trip, strict=True)):
        assert mine == theirs, f"answer {n}: in-JVM {mine!r}, round trip {theirs!r}"
    captures = round_trip[-1]
    # In hit order: round 0 weigh (held, condition error), its return (ring), late (error); round 1 ...
    assert [(c[1], c[2]) for c in captures[:4]] == [("bp-1", 1), ("bp-2", 1), ("bp-3", 1), ("bp-1", 2)], captures
    assert [c[3] for c in captures if c[1] == "bp-3"] == [1, 2, 3, 4], captures  # (hit numbers)
    assert [c[3] for c in captures if c[1] == "bp-5"] == [2, 4], captures
    errors = [c for c in captures if c[1] in ("bp-1", "bp-3") and c[4]]
    assert errors and all(c[4].startswith("condition error, captured: ") for c in errors), captures
    assert any("column 3" in c[4] for c in errors if c[1] == "bp-3"), errors  # (where it threw: the round trip's)
    assert not [b for b in round_trip[-2] if b[5] and (b[2] or b[3])], round_trip[-2]  # done: unbound


def test_the_book_lists_captures_in_the_order_of_their_hits_not_of_their_reading() -> None:
    from tracepilot.core.capture.book import CaptureBook
    from tracepilot.core.capture.model import Capture

    def capture(name: str) -> Capture:
        return Capture(0, name, 1, 0.0, 1, "main", 1, "round trip")

    book, heard = CaptureBook(), []
    book.on_listed = lambda c: heard.append(c.breakpoint_id)
    first, second, third = book.reserve(), book.reserve(), book.reserve()
    book.add(capture("second"), second)  # read first, hit second: waits for the first hit's
    assert book.select() == [] and heard == []
    book.give_up(first)  # (that hit took none: rate-limited, done meanwhile)
    book.give_up(second)  # (no-op: its capture was added)
    assert [(c.seq, c.breakpoint_id) for c in book.select()] == [(1, "second")]
    book.add(capture("fourth"))  # a place of its own, after the third's
    book.add(capture("third"), third)
    assert [c.breakpoint_id for c in book.select(since=1)] == ["third", "fourth"] and heard[-1] == "fourth"
    late = book.reserve()
    book.clear()  # (detach: a place taken before is not listed after)
    book.add(capture("stale"), late)
    assert book.select() == []


async def _set_at_a_stop(jvm_factory: Any, line_of: Any, java_source_root: Path, in_jvm: bool) -> list:
    """A capture point set at a stop inside the method it instruments, then a step: the stopped frames stay
    readable (the point is taken by round trip until its move, as with no probe)."""
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-capstop-"))
    jvm = jvm_factory("Differential", "24", "8", str(gate_dir))
    debugger = Debugger(sourcepath=[str(java_source_root)])
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    at = {name: f"{MAIN}:{line_of(name)}" for name in ("diff-name", "diff-third", "diff-call")}
    answers: list = []
    try:
        await debugger.attach(jvm.address, timeout=10)
        await debugger.resume(timeout=0)
        await asyncio.to_thread(jvm.wait_for_output, "gate 0", 20)
        await debugger.breakpoint_set(at["diff-name"], condition="i % 3 == 0 && total > 50", capture=2)
        await debugger.breakpoint_set(at["diff-third"], condition="i / (i % 5) > 1", log="i={i}", hit_count="3",
                                      temporary=True)
        (gate_dir / "go-0").touch()
        stop = (await debugger.wait_for_stop(timeout=20)).stop
        answers.append((stop.location.method, stop.location.line, stop.breakpoint_id))
        await debugger.breakpoint_set(at["diff-call"], capture=2)
        step = (await debugger.step("into", timeout=20)).stop
        answers.append([(f.location.method, f.location.line) for f in await debugger.stack()])
        answers.append([(v.name, v.value.text) for v in await debugger.locals()] if step else None)
        return answers
    finally:
        await debugger.close()
        jvm.close()


async def test_a_capture_point_set_at_a_stop_leaves_the_stopped_frames_readable(jvm_factory, line_of,
                                                                               java_source_root) -> None:
    in_jvm = await _set_at_a_stop(jvm_factory, line_of, java_source_root, in_jvm=True)
    round_trip = await _set_at_a_stop(jvm_factory, line_of, java_source_root, in_jvm=False)
    assert in_jvm == round_trip
    assert "<obsolete>" not in str(round_trip)
