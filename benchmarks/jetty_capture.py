"""Capture points on a real server (issue 31's Jetty point): Debian's jetty9 under `ab -c 4`, a capture point
with `capture: N` on the request path (ContextHandler.doHandle's entry, the request's `target` as an
expression), against the same load without it, in one run.

    .venv/bin/python benchmarks/jetty_capture.py [--requests 4000] [--captures 100] [--frames 1] [--depth 1] [--copy-check]
        [--follow]

Needs `apt-get install -y jetty9 apache2-utils`. Prints failed requests and requests/s of both runs, the
captures taken, how many show the request's URI, and the time each held its thread. `--frames N` reads the
arguments and locals of the top N frames (capture_limits frames; 1 by default). `--copy-check` stops once at the
same place afterwards and says whether the in-JVM copy alone covers the capture at depth 1 and 2 (copy_only: the
rule a capture taken without holding the thread must keep) and equals the reading over JDWP alone, or the first
value it lacks and where the capture shows it.

At the default depth 2 every capture is taken in the JVM without holding the thread: the context's
`WebAppClassLoader` shows its own fields and its ClassLoader fields as one cut ("N fields of
java.lang.ClassLoader, ... not captured: JDK internals", core/capture/jdk_fields.py), the rule the reading
over JDWP applies too. `capture_limits jdk_internals=true` would open them, and those captures would hold the
thread (the copier cannot read them: java.base is not open to reflection). The throughput figure moves with
the machine's load. Without `--follow` nobody follows the history, so the captures wait in the JVM's ring while `ab` runs
and are rendered when the benchmark asks for them (core/capture/in_probe.py): the debugger's CPU is printed
both while `ab` ran and until every capture was booked (per capture: the rendering's cost with the point's
one-offs, its move into the JVM and its first capture by round trip). `--follow` subscribes a follower, as a
TUI, `watch`, DAP or REPL does: the ring is then read every 50 ms while `ab` runs and every capture rendered as
it comes (the cost a person watching live puts on the server; benchmarks/capture_render_cost.py measures the
rendering alone).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from tracepilot.core.capture.model import CaptureLimits
from tracepilot.core.capture.prefetch import CopyIncomplete
from tracepilot.core.debugger import Debugger

JETTY_HOME = Path("/usr/share/jetty9")
WEBAPP = Path("/var/lib/jetty9/webapps/root")
METHOD = "org.eclipse.jetty.server.handler.ContextHandler.doHandle"
IN_JVM_US = re.compile(r"([\d,.]+) µs in the JVM")
RING_MS = re.compile(r"read from the ring in ([\d.]+) ms")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def start_jetty(base: Path, http: int, jdwp: int) -> asyncio.subprocess.Process:
    subprocess.run(["java", "-jar", str(JETTY_HOME / "start.jar"), f"jetty.home={JETTY_HOME}", f"jetty.base={base}",
                    "--add-to-start=http,deploy"], cwd=base, check=True, capture_output=True)
    shutil.copytree(WEBAPP, base / "webapps" / "root", dirs_exist_ok=True)
    with (base / "start.ini").open("a") as ini:
        ini.write(f"\njetty.http.port={http}\n")
    proc = await asyncio.create_subprocess_exec(
        "java", f"-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:{jdwp}", "-jar",
        str(JETTY_HOME / "start.jar"), f"jetty.home={JETTY_HOME}", f"jetty.base={base}", cwd=base,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    assert proc.stdout is not None
    while b"Started @" not in (line := await asyncio.wait_for(proc.stdout.readline(), 60)):
        if not line:
            raise SystemExit("jetty did not start")
    asyncio.get_running_loop().create_task(proc.stdout.read())  # keep draining its log
    return proc


async def ab(url: str, requests: int) -> tuple[int, float]:
    proc = await asyncio.create_subprocess_exec("ab", "-q", "-c", "4", "-n", str(requests), url,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out = (await proc.communicate())[0].decode()
    failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))
    rate = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
    return failed, rate


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--captures", type=int, default=100)
    parser.add_argument("--frames", type=int, default=None, help="frames whose variables a capture reads")
    parser.add_argument("--depth", type=int, default=None, help="levels a capture opens below a variable (2)")
    parser.add_argument("--copy-check", action="store_true", help="does the in-JVM copy alone cover a capture?")
    parser.add_argument("--follow", action="store_true",
                        help="a person follows the history live (as the TUI does): every capture is rendered as it comes")
    args = parser.parse_args()
    http, jdwp = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        jetty = await start_jetty(Path(tmp), http, jdwp)
        d = Debugger()
        try:
            await d.attach(f"127.0.0.1:{jdwp}", timeout=30)
            if args.follow:  # (a history subscriber that follows: the ring is read every 50 ms, see in_probe.py)
                d.history.subscribe(lambda record: None, follows=True)
            url = f"http://127.0.0.1:{http}/index.html?order=17"
            await ab(url, 500)  # warm-up: JIT, the first requests' class loading
            failed_without, without = await ab(url, args.requests)
            limits = {k: v for k, v in (("frames", args.frames), ("depth", args.depth)) if v is not None} or None
            bp = await d.method_break(METHOD, capture=args.captures, expressions=["target"], capture_limits=limits)
            cpu = time.process_time()
            failed_with, with_point = await ab(url, args.requests)
            cpu_ab = time.process_time() - cpu  # (the debugger's own CPU while ab ran: it shares the cores)
            found = await d.captures(bp.id, limit=args.captures)
            while len(found) < args.captures:  # (captures taken in the JVM may still be on their way from its ring)
                more = await d.captures(bp.id, wait=10, limit=args.captures, since=found[-1].seq if found else 0)
                if not more:
                    break
                found += more
            cpu = time.process_time() - cpu  # (... and until every capture was booked: the point's whole cost)
            uris = sum(1 for c in found if any(v.text == '"/index.html"' for v in c.expressions))
            lacking = [c for c in found if not any(v.text == '"/index.html"' for v in c.expressions)]
            held = [c.took_ms for c in found]
            print(f"without the point: {without:,.0f} requests/s, {failed_without} failed")
            print(f"the debugger's CPU while ab ran with the point: {cpu_ab:.2f} s; until every capture was booked: "
                  f"{cpu:.2f} s, {cpu / max(len(found), 1) * 1000:.1f} ms per capture")
            print(f"with capture={args.captures}{f', {limits}' if limits else ''}: {with_point:,.0f} requests/s ({with_point / without:.2f}x), "
                  f"{failed_with} failed")
            if held:
                print(f"captures: {len(found)}, {uris} show the request's URI; thread held "
                      f"{statistics.mean(held) * 1000:,.0f} µs mean, {statistics.median(held) * 1000:,.0f} µs median")
                if lacking:
                    c = lacking[0]
                    print(f"  e.g. capture #{c.number} ({c.via}) shows {[v.text for v in c.expressions]}; note: {c.note}")
                in_probe = [float(m.group(1)) for c in found if (m := IN_JVM_US.search(c.copy or ""))]
                held_ones = [c.took_ms for c in found if not IN_JVM_US.search(c.copy or "")]
                print(f"taken in the JVM without holding the thread: {len(in_probe)} of {len(found)}"
                      + (f", {statistics.mean(in_probe):,.0f} µs mean, {statistics.median(in_probe):,.0f} µs median "
                         "each in the JVM" if in_probe else "")
                      + (f"; by round trip (thread held): {len(held_ones)}, {statistics.mean(held_ones) * 1000:,.0f}"
                         " µs each" if held_ones else "")
                      + (f"; why: {sorted({c.note for c in found if c.note})[:2]}" if held_ones else ""))
                copied = sum(1 for c in found if c.copy and c.copy.startswith("values copied in the JVM"))
                others = sorted({re.sub(r"[\d.]+", "N", c.copy or "") for c in found
                                 if not (c.copy or "").startswith("values copied in the JVM")})
                print(f"values copied in the JVM by one call: {copied} of {len(found)} captures "
                      f"(TRACEPILOT_CAPTURE_COPY=0: over JDWP alone); e.g. {found[-1].copy}; the others: {others}")
                rendered = [float(m.group(1)) for c in found if (m := RING_MS.search(c.copy or ""))]
                if rendered:
                    print(f"rendered from the ring: {statistics.mean(rendered):.1f} ms mean, "
                          f"{statistics.median(rendered):.1f} ms median per capture (wall time in the debugger; the JVM runs on)")
                notes = sorted({c.note for c in found if c.note})
                print(f"captures with a note: {sum(1 for c in found if c.note)}" + (f", e.g. {notes[0]}" if notes else ""))
                jdk = [cut for cut in found[-1].cuts if "JDK internals" in cut]
                print(f"cut as JDK internals in the last capture: {len(jdk)}" + (f", e.g. {jdk[0]}" if jdk else ""))
            listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
            print(listed.describe())
            if args.copy_check:
                await copy_check(d, url, args.frames)
        finally:
            await d.close()
            jetty.kill()
            await jetty.wait()


def plain(values: list) -> list:
    """Captured values without what differs between readings (object handles)."""
    return [(v.name, re.sub(r"@\d+", "@", v.text), v.kind, v.cut, plain(v.children)) for v in values]


def where(capture, type_name: str) -> list[str]:  # noqa: ANN001
    """The paths of a capture's values of class `type_name`."""
    found: list[str] = []

    def walk(value, path: str) -> None:  # noqa: ANN001
        if value.type == type_name or type_name.rpartition(".")[2] in value.text:
            found.append(path)
        for child in value.children:
            walk(child, f"{path}.{child.name}")

    for frame in capture.frames:
        for value in frame.locals or []:
            walk(value, f"frame {frame.index}: {value.name}")
    return found


async def copy_check(d: Debugger, url: str, frames: int | None) -> None:
    """One request stopped at the point's place: its capture from the in-JVM copy alone, at depth 1 and 2."""
    stopper = await d.method_break(METHOD)
    loop = asyncio.get_running_loop()
    request = loop.run_in_executor(None, lambda: urllib.request.urlopen(url, timeout=60).read())
    stop = await d.resume(timeout=30)
    captures = d.session.breakpoints.captures
    for depth in (1, 2):
        limits = CaptureLimits(depth=depth) if frames is None else CaptureLimits(depth=depth, frames=frames)
        try:
            copied = await captures.read(stop.stop.thread_id, limits, [], copy_only=True)
            alone = await captures.read(stop.stop.thread_id, limits, [])  # (over JDWP alone, as --no-instrument)
            same = plain(copied.frames[0].locals) == plain(alone.frames[0].locals)
            print(f"depth {depth}: the in-JVM copy alone covers the capture; the top frame's values "
                  f"{'equal' if same else 'DIFFER from'} those read over JDWP alone")
        except CopyIncomplete as exc:
            print(f"depth {depth}: {exc} (such a capture needs the thread held)")
            lacked = str(exc).rpartition(" a ")[2]
            held = await captures.read(stop.stop.thread_id, limits, [])
            print("  where: " + ", ".join(where(held, lacked)[:4]))
    await d.breakpoint_remove(stopper.id)
    await d.resume()
    await request


if __name__ == "__main__":
    asyncio.run(main())
