"""Threads in words (issue 29, point 4) and frames of lambdas, hit counts of a new run (point 10), on real JVMs:
each thread says its state and its stop ("suspended at a breakpoint (bp-1, hit 1)"), a stop not answered yet
says so, a step that another thread's waiting stop answers says so, changed-value marks compare a thread with
itself, a lambda's frames name the method that wrote it, and a restart counts hits from 0."""

from __future__ import annotations

import asyncio
import re

import pytest

from tracepilot.core import render
from tracepilot.core.catalog.threads import render_threads
from tracepilot.core.debugger import Debugger
from tracepilot.core.frame_names import is_lambda_class
from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(90)


async def _stops(d: Debugger, count: int) -> None:
    """Until `count` breakpoint stops are in the history (answered or not)."""
    arrived = asyncio.Event()

    def seen(_record) -> None:
        if len([e for e in d.history.since(0) if e.kind == "stop"]) >= count:
            arrived.set()

    unsubscribe = d.history.subscribe(seen)
    try:
        seen(None)
        await asyncio.wait_for(arrived.wait(), 20)
    finally:
        unsubscribe()


async def test_threads_say_their_stop_and_which_waits(debugger, jvm_factory, line_of):
    d = debugger
    await d.attach(jvm_factory("Storm", "2", "2").address, timeout=10)
    await d.breakpoint_set(f"fixtures.Storm:{line_of('storm-work')}", suspend="thread")
    first = await d.resume(timeout=20)
    assert first.stopped and first.stop.kind is StopKind.BREAKPOINT, first.headline()
    await _stops(d, 2)  # the other worker's hit, not answered yet

    workers = {t.name: t for t in await d.threads() if t.name.startswith("worker-")}
    current = next(t for t in workers.values() if t.current)
    other = next(t for t in workers.values() if not t.current)
    # (which worker's hit is counted first varies)
    assert re.fullmatch(r"suspended at a breakpoint \(bp-1, hit [12]\)", current.description), current
    assert not current.waiting
    assert re.fullmatch(r"suspended at a breakpoint \(bp-1, hit [12]\), waiting to be answered", other.description)
    assert other.waiting and other.description[:40] != current.description[:40]
    main = next(t for t in await d.threads() if t.name == "main")
    assert main.description == "waiting", main  # in Thread.join, not held: a suspend-thread stop

    mcp = render.threads(list(workers.values()))
    assert current.description in mcp and "running (suspended" not in mcp, mcp
    repl = render_threads(list(workers.values()))
    assert other.description in repl, repl

    # The lambda's frames: its body and the class the JDK made for it both name Storm.main.
    frames = await d.stack(current.id, 0, 6, False)
    names = [f.location.function(short=True) for f in frames]
    assert names[:2] == ["Storm.work", "lambda in Storm.main"], names
    generated = [f for f in frames if is_lambda_class(f.location.class_name)]
    if generated:  # (JDKs that show the hidden class's frame)
        assert generated[0].location.function(short=True) == "lambda in Storm.main"
        assert "0x" not in str(generated[0].location)

    # A step of this thread is answered by the other's waiting stop first, and says so.
    step = await d.step("over", current.id, 1, 20)
    assert step.stopped and step.stop.thread_id == other.id, step.headline()
    assert step.note and f"{other.name}'s stop that was waiting (bp-1)" in step.note, step.note
    assert step.note in render.wait_result(step)

    # Round 2: each worker's `round` changed since its own previous hit; the other thread's values are never
    # compared with the current thread's.
    second = await d.resume(timeout=20)  # the step of the first worker, then both run into round 2's hits
    while second.stopped and (second.stop.hit_count or 0) < 3:
        second = await d.resume(timeout=20)
    assert second.stopped and second.stop.hit_count in (3, 4), second.headline()
    here = {v.name: v for v in await d.locals(0, second.stop.thread_id)}
    assert here["round"].changed and not here["id"].changed, here
    await _stops(d, 5)  # (the step's stop and four hits)
    elsewhere = next(t for t in await d.threads() if t.name.startswith("worker-") and not t.current)
    assert elsewhere.waiting, elsewhere
    theirs = {v.name: v for v in await d.locals(0, elsewhere.id)}
    assert not any(v.changed for v in theirs.values()), theirs


async def test_hit_counts_start_at_zero_after_a_restart(java_classes, line_of):
    d = Debugger()
    try:
        await d.launch(main="fixtures.Playground", classpath=str(java_classes), args=["3"])
        await d.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
        while True:
            result = await d.resume(timeout=20)
            if result.stop.kind is StopKind.BREAKPOINT and result.stop.hit_count == 2:
                break
        await d.restart()
        assert [b.hits for b in await d.breakpoint_list()] == [0]
        result = await d.resume(timeout=20)
        while result.stop.kind is not StopKind.BREAKPOINT:
            result = await d.resume(timeout=20)
        assert result.stop.hit_count == 1, result.headline()
    finally:
        await d.close()
