"""Share protocol benchmark: how long a history record takes from the session host to its watchers, and
the round trip of a forwarded facade call, over the real Unix socket (no JVM: the path under test is the
share layer itself — a stop is one history record like any other).

    .venv/bin/python benchmarks/bench_share.py [--events 2000] [--watchers 2]

Host and watchers run in one process and one loop here, so the figures include the loop's own switching;
across processes the socket adds a few microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from tracepilot.core.debugger import Debugger  # noqa: E402
from tracepilot.core.model import Actor  # noqa: E402
from tracepilot.share.client import RemoteDebugger  # noqa: E402
from tracepilot.share.host import SessionHost  # noqa: E402


def ms(values: list[float]) -> str:
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"median {1000 * statistics.median(values):.3f} ms, p99 {1000 * p99:.3f} ms, max {1000 * values[-1]:.3f} ms"


async def main(events: int, watchers: int) -> None:
    debugger = Debugger(default_actor=Actor.AGENT)
    host = SessionHost(debugger, "bench")
    await host.start()
    remotes = [await RemoteDebugger.join(host.info.id) for _ in range(watchers)]
    try:
        latencies: list[float] = []
        for n in range(events):
            arrived = [asyncio.get_running_loop().create_future() for _ in remotes]
            unsubscribes = [r.history.subscribe(lambda rec, f=f: f.done() or f.set_result(time.perf_counter()))
                            for r, f in zip(remotes, arrived, strict=True)]
            start = time.perf_counter()
            debugger.history.add("stop", f"STOPPED #{n}", Actor.TARGET, stop={"kind": "BREAKPOINT"})
            for t in await asyncio.gather(*arrived):
                latencies.append(t - start)
            for unsubscribe in unsubscribes:
                unsubscribe()
        print(f"record host -> {watchers} watcher(s), {events} events: {ms(latencies)}")

        calls: list[float] = []
        for _ in range(events):
            start = time.perf_counter()
            await remotes[0].status()
            calls.append(time.perf_counter() - start)
        print(f"forwarded status() round trip, {events} calls: {ms(calls)}")
    finally:
        for r in remotes:
            await r.close()
        await host.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--watchers", type=int, default=2)
    ns = parser.parse_args()
    private = tempfile.mkdtemp(prefix="tp-bench-")  # a registry of its own: never lists real sessions
    os.environ["TRACEPILOT_SHARE_DIR"] = private
    try:
        asyncio.run(main(ns.events, ns.watchers))
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(private)
