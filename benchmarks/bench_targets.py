"""Several JVMs in one session (issue 28): what each target costs. The same calls on a session holding
1 target and on one holding 8 (tests/java/fixtures/Playground.java, each stopped at `loop-body`): the
debugger process's memory per target, and the per-call latency of calls routed to one target (evaluate,
stack, status) and of a wait over all targets (wait_for_stop with nothing pending). Ratios are
8 targets / 1 target, so 1.00 means a call costs the same however many JVMs the session holds.

    .venv/bin/python benchmarks/bench_targets.py [--targets 8] [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from support.jvm import compile_fixtures, line_of  # noqa: E402
from tracepilot.core.debugger import Debugger  # noqa: E402


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def median_ms(call: Callable[[], Awaitable[Any]], calls: int) -> float:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def measure(classes: Path, targets: int, calls: int) -> dict[str, float]:
    debugger = Debugger()
    before = rss_kib()
    try:
        for n in range(targets):
            await debugger.launch(main="fixtures.Playground", classpath=[str(classes)], args=["1000000", "nosleep"],
                                  name=f"t{n}")
        await debugger.breakpoint_set(f"fixtures.Playground:{line_of('loop-body')}")
        for n in range(targets):
            with debugger.on_target(f"t{n}"):
                await debugger.resume(timeout=0)
        for _ in range(targets):  # every target stops at loop-body: each stop answered once
            result = await debugger.wait_for_stop(timeout=30)
            assert result.stopped, result.message
        after = rss_kib()
        last = f"t{targets - 1}"

        async def on_last(call: Callable[[], Awaitable[Any]]) -> Any:
            with debugger.on_target(last):
                return await call()

        return {
            "memory per target (MiB)": (after - before) / 1024 / targets,
            "evaluate i + 1 (ms)": await median_ms(lambda: on_last(lambda: debugger.evaluate("i + 1")), calls),
            "stack (ms)": await median_ms(lambda: on_last(lambda: debugger.stack()), calls),
            "status (ms)": await median_ms(lambda: on_last(debugger.status), calls),
            "wait_for_stop, nothing pending (ms)": await median_ms(lambda: debugger.wait_for_stop(timeout=0), calls),
        }
    finally:
        await debugger.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        classes = compile_fixtures(Path(tmp))
        one = await measure(classes, 1, options.calls)
        many = await measure(classes, options.targets, options.calls)
    print(f"{'':40} {'1 target':>10} {f'{options.targets} targets':>11} {'ratio':>7}")
    for key, base in one.items():
        ratio = many[key] / base if base else float("nan")
        print(f"{key:40} {base:10.2f} {many[key]:11.2f} {ratio:7.2f}")


if __name__ == "__main__":
    asyncio.run(main())
