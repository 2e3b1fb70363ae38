"""Capture points (issue 31): how long a capture holds the hitting thread, in the JVM (below an in-JVM
condition's probe) and by round trip, and what a capture point with a false condition costs the target
against a plain breakpoint with the same false in-JVM condition (benchmarks/java/HotTarget.java).

    .venv/bin/python benchmarks/bench_capture.py [--captures 300] [--loop 50000000]

Prints one line per figure. The false-condition rows are the target's own loop time (iterations/s); the
capture rows are the mean time the thread was held per capture (Capture.took_ms) and captures/s overall.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import run as suite  # noqa: E402  (the suite's JVM targets and markers)

from tracepilot.core.debugger import Debugger  # noqa: E402


async def false_condition(classes: Path, line: int, n: int, capture: bool) -> float:
    """Iterations/s of HotTarget's hot loop with a false in-JVM condition on its line (a capture point's or
    a plain breakpoint's)."""
    with suite.target(classes, "HotTarget", "hot", str(n)) as t:
        d = Debugger()
        await d.attach(t.address, 10)
        options = {"capture": 1} if capture else {}
        bp = await d.breakpoint_set(f"HotTarget:{line}", condition="i < 0", **options)
        await d.resume(timeout=0)
        speed = n / (int(await asyncio.to_thread(t.wait_for, "hot_ns", 600)) / 1e9)
        info = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert info.mode == "in-JVM", info.describe()
        await d.detach(terminate=True)
        return speed


IN_JVM_US = re.compile(r"([\d,.]+) µs in the JVM")


async def per_capture(classes: Path, line: int, captures: int, in_jvm: bool) -> tuple[float, float, float]:
    """(mean ms per capture, median ms, captures/s) of `captures` captures on HotTarget's logged line: in the JVM
    the time the probe's take() spent (the thread is not held), by round trip the time the thread was held."""
    # In the JVM the loop runs on while the debugger drains the ring (captures still in it when the JVM exits
    # are lost): a loop long enough for that.
    with suite.target(classes, "HotTarget", "log", str(captures * (10_000_000 if in_jvm else 50))) as t:
        d = Debugger()
        d.session.breakpoints.in_jvm.enabled = in_jvm
        await d.attach(t.address, 10)
        # In the JVM: a condition that always holds is what puts the point in a probe.
        condition = "i >= 0" if in_jvm else None
        bp = await d.breakpoint_set(f"HotTarget:{line}", condition=condition, capture=captures,
                                    capture_limits={"rate": 1e9})
        started = time.perf_counter()
        await d.resume(timeout=0)
        found: list = []
        while len(found) < captures:
            more = await d.captures(bp.id, wait=30, limit=1000, since=found[-1].seq if found else 0)
            if not more:
                break
            found += more
        elapsed = time.perf_counter() - started
        assert found and all(c.via.startswith("in-JVM" if in_jvm else "round trip") for c in found), found[:1]
        # Taken in the JVM without holding the thread: the time take() spent in the target; else the time held.
        costs = [float(m.group(1).replace(",", "")) / 1000 if (m := IN_JVM_US.search(c.copy or "")) else c.took_ms
                 for c in found]
        await d.detach(terminate=True)
        return statistics.mean(costs), statistics.median(costs), len(found) / elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--captures", type=int, default=300)
    parser.add_argument("--loop", type=int, default=50_000_000)
    args = parser.parse_args()
    lines = suite.markers()
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(tmp)
        suite.compile_all(classes)
        for in_jvm in (True, False):
            mean, median, rate = await per_capture(classes, lines["logged"], args.captures, in_jvm)
            what = "in the JVM, thread not held: take()" if in_jvm else "round trip: thread held"
            print(f"capture ({what}) {mean * 1000:,.0f} µs mean, {median * 1000:,.0f} µs median; "
                  f"{rate:,.0f} captures/s")
        # Alternated, best of three each: a hot loop's speed varies with the JIT and the machine's load.
        plain, point = 0.0, 0.0
        for _ in range(3):
            plain = max(plain, await false_condition(classes, lines["hot"], args.loop, capture=False))
            point = max(point, await false_condition(classes, lines["hot"], args.loop, capture=True))
        print(f"false in-JVM condition: breakpoint {plain:,.0f} it/s, capture point {point:,.0f} it/s "
              f"({point / plain:.2f}x)")


if __name__ == "__main__":
    asyncio.run(main())
