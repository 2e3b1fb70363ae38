"""Capture points (issue 31): a breakpoint with `capture` takes the stack and values at a passing hit and lets
the thread go on: no stop, nothing in the stop queue or the history's stops; values are those at the hit."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.dap.adapter import Adapter

SERVICE = "fixtures.CaptureService"

# Seconds of each throughput window: long enough for thousands of requests (and the point's three captures in the
# second); what is held is that the service ran in both, not how fast (a ratio failed on loaded CI machines).
WINDOW = 0.5

pytestmark = pytest.mark.timeout(90)


async def handled(d: Debugger) -> int:
    """The service's own count of handled requests (a static read: nothing is suspended for it)."""
    view = await d.evaluate("fixtures.CaptureService.handled")
    return int(re.findall(r"\d+", view.text)[-1])


async def throughput(d: Debugger, seconds: float) -> float:
    start, t0 = await handled(d), time.monotonic()
    await asyncio.sleep(seconds)
    return (await handled(d) - start) / (time.monotonic() - t0)


def child(value, name: str):  # noqa: ANN001
    return next(c for c in value.children if c.name == name)


async def test_capture_three_on_a_running_service_without_stopping_it(jvm_factory, line_of) -> None:
    jvm = jvm_factory(SERVICE, "4", suspend=False)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        sent: list[dict] = []
        editor = Adapter(d, sent.append)  # a DAP client's view of the same session
        await editor.handle({"seq": 1, "type": "request", "command": "initialize", "arguments": {"adapterID": "java"}})
        before = await throughput(d, WINDOW)
        line = line_of("capture-line")
        seq0 = d.history.last_seq
        bp = await d.breakpoint_set(f"{SERVICE}:{line}", condition="request.id % 10 == 7", capture=3)
        assert bp.capture.limit == 3 and bp.suspend == "thread", bp
        during = await throughput(d, WINDOW)
        found = await d.captures(bp.id, wait=10)
        while len(found) < 3:
            more = await d.captures(bp.id, wait=10, since=found[-1].seq)
            assert more, found
            found += more
        assert len(found) == 3
        for capture in found:
            assert capture.thread_name.startswith("worker-"), capture
            top = capture.frames[0]
            assert (top.location.method, top.location.line) == ("handle", line), top
            assert [f.location.method for f in capture.frames[1:2]] == ["lambda$main$0"], capture.frames
            variables = {v.name: v for v in top.locals}
            request, size = variables["request"], int(variables["size"].text)
            assert int(child(request, "id").text) % 10 == 7
            items = child(request, "items")
            # The list as it was at the hit: the line after it clears it.
            assert [c.text for c in items.children] == [
                f'"item-{int(child(request, "id").text) % 1_000_000}-{k}"' for k in range(size)], items
            assert size >= 3 and items.cut is None
        # Never a stop: none in the history, none queued, the session still running.
        records = d.history.since(seq0)
        assert not [r for r in records if r.kind == "stop"]
        assert len([r for r in records if r.kind == "capture"]) == 3
        status = await d.status()
        assert status.state.value == "RUNNING" and not status.suspended, status
        listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert listed.capture.done and listed.capture.taken == 3 and "capture 3/3 done" in listed.describe()
        # The program ran on while the point took its captures (how fast is a benchmark's figure, not a test's:
        # benchmarks/bench_capture.py and jetty_capture.py; a ratio held here failed on loaded CI machines).
        assert during > 0 and before > 0, (before, during)
        # Over DAP: an output event per capture, whose variablesReference opens its frames and their values.
        outputs = [m["body"] for m in sent if m.get("event") == "output" and "capture bp-" in m["body"]["output"]]
        assert len(outputs) == 3 and all(o.get("variablesReference") for o in outputs), outputs
        await editor.handle({"seq": 2, "type": "request", "command": "variables",
                             "arguments": {"variablesReference": outputs[0]["variablesReference"]}})
        frames_shown = next(m for m in sent if m.get("command") == "variables")["body"]["variables"]
        assert frames_shown[0]["value"] == f"{SERVICE}.handle:{line}" and frames_shown[0]["variablesReference"]
        # A point faster than its rate: the hits beyond it are skipped, counted and said.
        limited = await d.breakpoint_set(f"{SERVICE}:{line}", condition="request.id % 10 == 3", capture=100,
                                         capture_limits={"rate": 2})
        await d.captures(limited.id, wait=10)
        await asyncio.sleep(1.0)
        await d.breakpoint_remove(limited.id)
        state = limited.capture
        assert state.skipped > 0 and 0 < state.taken <= 4, state
        assert "skipped by the rate limit (2/s)" in limited.describe()
        assert [r for r in d.history.since(seq0) if r.kind == "breakpoint_throttled" and limited.id in r.text]
    finally:
        await d.close()
