"""Tracing a real server (issue 32's Jetty figure): Debian's jetty9 under `ab -c 4`, traced on
`org.eclipse.jetty.server.*` for 5 s from a running start (attach, then trace, as agents do), against the same
load untraced, in one run: throughput ratio, failed requests, how long the program was held to instrument,
and whether the handler chain shows in the call tree.

    .venv/bin/python benchmarks/jetty_trace.py [--seconds 5] [--folded out.folded]

Needs `apt-get install -y jetty9 apache2-utils` (Jetty is started as benchmarks/jetty_capture.py starts it).
benchmarks/run.py runs it as the `jettytrace` workload.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from jetty_capture import free_port, start_jetty

from tracepilot.core.debugger import Debugger
from tracepilot.core.render import trace as render_trace
from tracepilot.core.render.inspection import window

PATTERN = "org.eclipse.jetty.server.*"
CHAIN = ("HttpChannel.handle", "Server.handle", "HandlerWrapper.handle", "ContextHandlerCollection.handle")


async def ab_for(url: str, seconds: float) -> tuple[int, int, float]:
    """`ab -c 4` for `seconds`: (requests done, failed or non-2xx, requests/s)."""
    proc = await asyncio.create_subprocess_exec("ab", "-q", "-c", "4", "-t", f"{seconds:g}", "-n", "10000000", url,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out = (await proc.communicate())[0].decode()
    if "Complete requests" not in out:
        raise RuntimeError(f"ab failed: {out.strip()[-500:]}")
    done = int(re.search(r"Complete requests:\s+(\d+)", out).group(1))
    failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
    non_2xx = re.search(r"Non-2xx responses:\s+(\d+)", out)
    rate = float(m.group(1)) if (m := re.search(r"Requests per second:\s+([\d.]+)", out)) else 0.0
    return done, failed + (int(non_2xx.group(1)) if non_2xx else 0), rate


def chain_in(nodes: list[Any], found: set[str] | None = None) -> set[str]:
    """Which of CHAIN's methods appear in the tree, each under the one before it."""
    found = set() if found is None else found
    for node in nodes:
        for i, name in enumerate(CHAIN):
            if f".{name}(" in node.method and (i == 0 or CHAIN[i - 1] in found):
                found.add(name)
        chain_in(node.children, found)
    return found


def asked(seconds: float) -> float:
    """The trace's duration (its counting window): 1 s of load while it starts, `seconds` measured, margin."""
    return seconds + 1.5


async def measure(seconds: float = 5.0, folded: str | None = None, folded_by: str | None = None) -> dict[str, Any]:
    http, jdwp = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        jetty = await start_jetty(Path(tmp), http, jdwp)
        d = Debugger()
        try:
            url = f"http://127.0.0.1:{http}/index.html?order=17"
            await ab_for(url, 3)  # warm-up: JIT, the first requests' class loading
            await d.attach(f"127.0.0.1:{jdwp}", timeout=30)
            _, failed_without, without = await ab_for(url, seconds)
            # Traced: a second of load while the trace starts (a thread must enter a traced method, and the
            # requests in flight are what instrumenting must not break), then `seconds` of load measured
            # inside the trace's window (it opens when the probes are in).
            opened: asyncio.Future = asyncio.get_running_loop().create_future()
            d.session.history.subscribe(lambda r: r.kind == "trace" and r.data.get("window") and not opened.done()
                                        and opened.set_result(time.monotonic()))
            began = time.monotonic()
            starting = asyncio.ensure_future(ab_for(url, 1))
            trace = asyncio.ensure_future(d.trace(PATTERN, duration=asked(seconds), max_calls=1000, folded=folded,
                                                  folded_by=folded_by))
            await asyncio.wait({opened, trace}, return_when=asyncio.FIRST_COMPLETED)
            done_starting, failed_starting, _ = await starting
            _, failed_with, traced_rate = await ab_for(url, seconds)
            result = await trace
            window_open = opened.result() - began if opened.done() else None
            return {"without": without, "failed_without": failed_without, "with": traced_rate,
                    "failed_with": failed_with + failed_starting, "result": result, "setup_s": window_open,
                    "done_starting": done_starting,
                    "chain": chain_in(result.call_tree), "text": render_trace(result)}
        finally:
            await d.close()
            jetty.kill()
            await jetty.wait()


async def rows(row: Any, quick: bool) -> list[Any]:
    """benchmarks/run.py's rows (its Row class passed in: this module never imports run.py)."""
    seconds = 3.0 if quick else 5.0
    got = await measure(seconds)
    result = got["result"]
    ratio = got["with"] / got["without"] if got["without"] else None
    how = result.mode + (f" ({result.mode_reason})" if result.mode_reason else "")
    chain = " -> ".join(n for n in CHAIN if n in got["chain"]) or "not visible"
    return [row("7d Jetty traced (ab -c 4)", f"{got['with']:,.0f} req/s traced", f"{got['without']:,.0f} req/s",
                1 / ratio if ratio else None, ">= 0.5x throughput", 2.0,
                note=f"{how}; {result.calls:,} calls of {PATTERN}, {window(result)}, duration asked "
                     f"{asked(seconds):g}s ({seconds:g}s of load measured inside it); held "
                     f"{result.held_ms or 0:.0f} ms in all to instrument; failed requests {got['failed_with']} traced, "
                     f"{got['failed_without']} untraced; handler chain in the tree: {chain}")]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--folded", help="also write the trace's folded stacks here")
    args = parser.parse_args()
    got = await measure(args.seconds, args.folded)
    result = got["result"]
    print(got["text"])
    print(f"untraced: {got['without']:,.0f} requests/s, {got['failed_without']} failed")
    print(f"traced ({result.mode}): {got['with']:,.0f} requests/s ({got['with'] / got['without']:.2f}x), "
          f"{got['failed_with']} failed; trace started {got['setup_s'] or 0:.2f}s after it was asked, held the "
          f"program {result.held_ms or 0:.0f} ms; {got['done_starting']} requests done in the second it started")
    print("handler chain in the tree: " + (" -> ".join(n for n in CHAIN if n in got["chain"]) or "not visible"))


if __name__ == "__main__":
    asyncio.run(main())
