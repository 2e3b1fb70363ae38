"""The debugger's CPU per capture taken in the JVM (the rendering a live follower pays for each one), on
Debian's jetty9: a capture point with `capture: N` on ContextHandler.doHandle (as jetty_capture.py), `ab -c 4`
while nobody follows (the records wait in the JVM's ring), then the ring drained and every record rendered,
that alone timed in process CPU; `--profile` prints where that CPU went (cProfile).

    .venv/bin/python benchmarks/capture_render_cost.py [--captures 100] [--profile 25]

Needs `apt-get install -y jetty9 apache2-utils`. The first run of a point pays its one-offs (classes, line
tables): `--warm` captures are drained first and not counted."""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from jetty_capture import METHOD, ab, free_port, start_jetty  # noqa: E402

from tracepilot.core.capture import in_probe  # noqa: E402
from tracepilot.core.debugger import Debugger  # noqa: E402

in_probe.DEFER_SECONDS = 600.0  # (the records wait in the ring until the timed drain, however slow `ab` is)


async def drained(d: Debugger, bp_id: str, want: int, since: int) -> list:
    found = await d.captures(bp_id, limit=want, since=since)
    while len(found) < want:
        more = await d.captures(bp_id, wait=10, limit=want, since=found[-1].seq if found else since)
        if not more:
            break
        found += more
    return found


def count_requests(d: Debugger) -> Counter:
    """The JDWP commands sent from now on, by name."""
    asked: Counter = Counter()
    codec = d.session.require_vm().conn.codec
    encode = codec.encode_request

    def counted(command, args, kwargs):  # noqa: ANN001, ANN202
        asked[f"{command.__class__.__name__}.{command.name}" if hasattr(command, "name") else str(command)] += 1
        return encode(command, args, kwargs)

    codec.encode_request = counted
    return asked


def alternate() -> dict[bool, list[float]]:
    """Every other capture rendered without reusing openings (capture/openings.py), each capture's rendering
    timed in process CPU: both halves under the same load, interleaved capture by capture."""
    from tracepilot.core.capture.reader import CaptureRead

    spent: dict[bool, list[float]] = {True: [], False: []}
    turn = {"n": 0, "reuse": True}
    render, reuse_openings = in_probe.InProbe._render, CaptureRead.reuse_openings  # noqa: SLF001

    async def timed(self, *args):  # noqa: ANN001, ANN002, ANN202
        turn["n"] += 1
        reuse = turn["reuse"] = turn["n"] % 2 == 0
        started = time.process_time()
        try:
            return await render(self, *args)
        finally:
            spent[reuse].append(time.process_time() - started)

    def maybe(self, openings):  # noqa: ANN001, ANN202
        if turn["reuse"]:
            reuse_openings(self, openings)

    in_probe.InProbe._render = timed  # noqa: SLF001
    CaptureRead.reuse_openings = maybe
    return spent


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--captures", type=int, default=100, help="captures rendered and timed")
    parser.add_argument("--warm", type=int, default=20, help="captures drained first, not counted")
    parser.add_argument("--profile", type=int, default=0, help="print the top N functions by own time")
    parser.add_argument("--alternate", action="store_true",
                        help="every other capture rendered without reusing openings: both timed")
    args = parser.parse_args()
    http, jdwp = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        jetty = await start_jetty(Path(tmp), http, jdwp)
        d = Debugger()
        try:
            await d.attach(f"127.0.0.1:{jdwp}", timeout=30)
            url = f"http://127.0.0.1:{http}/index.html?order=17"
            await ab(url, 500)
            if args.warm:  # (a first point pays the one-offs: classes, line tables, the take class)
                warm = await d.method_break(METHOD, capture=args.warm, expressions=["target"])
                await ab(url, 200)
                await drained(d, warm.id, args.warm, 0)
                await d.breakpoint_remove(warm.id)
            bp = await d.method_break(METHOD, capture=args.captures, expressions=["target"],
                                      capture_limits={"rate": 10_000})
            since = d.session.breakpoints.captures.book.last_seq
            await ab(url, 2000)  # (the captures wait in the ring: nobody follows)
            spent = alternate() if args.alternate else None
            asked = count_requests(d)
            profiler = cProfile.Profile() if args.profile else None
            cpu = time.process_time()
            if profiler:
                profiler.enable()
            found = await drained(d, bp.id, args.captures, since)
            if profiler:
                profiler.disable()
            cpu = time.process_time() - cpu
            in_jvm = sum(1 for c in found if c.via == "in-JVM (not held)")
            print(f"rendered {len(found)} captures ({in_jvm} taken in the JVM): {cpu * 1000:.0f} ms CPU, "
                  f"{cpu / max(len(found), 1) * 1000:.2f} ms per capture")
            if found:
                last = found[-1]
                print(f"the last capture's cuts: {last.cuts}")
                print(f"its top frame: {[(v.name, v.text[:60], len(v.children)) for v in last.frames[0].locals or []]}")
            if spent:
                for reuse, times in sorted(spent.items()):
                    timed = sorted(times)[:max(1, len(times) * 9 // 10)]  # (the slowest tenth left out: GC, ...)
                    print(f"{'reusing' if reuse else 'not reusing'} openings: {len(times)} captures, "
                          f"{sum(timed) / len(timed) * 1000:.2f} ms CPU each (the fastest 90%), "
                          f"{sum(times) / max(len(times), 1) * 1000:.2f} ms (all)")
            openings = getattr(d.session.breakpoints.captures.capture_objects(d.session.require_vm()), "openings", None)
            if openings is not None:
                print(f"openings reused: {openings.reused}; kept: {len(openings._kept)}")  # noqa: SLF001
            print(f"JDWP requests while rendering: {sum(asked.values())} "
                  f"({sum(asked.values()) / max(len(found), 1):.1f} per capture): {asked.most_common(8)}")
            if profiler:
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
                print(out.getvalue())
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out).sort_stats("cumtime")
                stats.print_stats(args.profile)
                stats.print_callees("_fill")
                print(out.getvalue())
        finally:
            await d.close()
            jetty.kill()
            await jetty.wait()


if __name__ == "__main__":
    asyncio.run(main())
