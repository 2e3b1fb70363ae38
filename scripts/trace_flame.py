"""Regenerate the README's flame graphs (screenshots/trace-flame*.svg) from real traces, through the folded
stack output `trace` writes.

    .venv/bin/python scripts/trace_flame.py            # TraceShop (tests/java/fixtures), weighted by calls
    .venv/bin/python scripts/trace_flame.py --jetty    # also Debian's jetty9 under ab -c 4

TraceShop "gated" runs, tracepilot attaches to the running program (as an agent would), traces
fixtures.TraceShop in the JVM, lets the program's work go and ends at a breakpoint after it. The Jetty graph
comes from benchmarks/jetty_trace.py (needs `apt-get install -y jetty9 apache2-utils`). Needs java and javac.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots"
FIXTURE = ROOT / "tests" / "java" / "fixtures" / "TraceShop.java"
sys.path.insert(0, str(ROOT / "src"))

from tracepilot.core.debugger import Debugger  # noqa: E402
from tracepilot.core.trace import flame  # noqa: E402
from tracepilot.jdwp import ClassType  # noqa: E402
from tracepilot.jdwp.wire import Value  # noqa: E402


def line_of(marker: str) -> int:
    for number, text in enumerate(FIXTURE.read_text(encoding="utf-8").splitlines(), 1):
        if f"@bp:{marker}" in text:
            return number
    raise SystemExit(f"no @bp:{marker} in {FIXTURE}")


async def trace_shop(folded: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-g", "-d", tmp, str(FIXTURE)], check=True)
        proc = await asyncio.create_subprocess_exec(
            "java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0", "-cp", tmp,
            "fixtures.TraceShop", "gated", stdout=asyncio.subprocess.PIPE)
        assert proc.stdout is not None
        port = re.search(rb"(\d+)\s*$", await proc.stdout.readline()).group(1).decode()
        while b"gated" not in await proc.stdout.readline():
            pass
        d = Debugger(sourcepath=[str(ROOT / "tests" / "java")])
        try:
            await d.attach(f"127.0.0.1:{port}", timeout=10)
            await d.breakpoint_set(f"fixtures.TraceShop:{line_of('trace-end')}")
            opened = asyncio.get_running_loop().create_future()
            d.session.history.subscribe(lambda r: r.kind == "trace" and r.data.get("window") and not opened.done()
                                        and opened.set_result(True))
            trace = asyncio.ensure_future(d.trace("fixtures.TraceShop", duration=30, folded=str(folded),
                                                  folded_by="calls"))
            await asyncio.wait({opened, trace}, return_when=asyncio.FIRST_COMPLETED)
            vm = d.session.vm
            shop = (await vm.classes_by_name("fixtures.TraceShop"))[0].id
            go = next(f.id for f in await vm.fields(shop) if f.name == "go")
            await vm.send(ClassType.SetValues, shop, [(go, Value.boolean(True))])
            result = await trace
            print(f"TraceShop: {result.calls} calls, {result.mode}, stopped by {result.stopped_by}")
        finally:
            await d.close()
            proc.kill()
            await proc.wait()


def draw(folded: Path, svg: Path, title: str, unit: str) -> None:
    svg.write_text(flame.svg(folded.read_text(encoding="utf-8").splitlines(), title=title, unit=unit),
                   encoding="utf-8")
    print(f"wrote {svg.relative_to(ROOT)}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jetty", action="store_true", help="also trace jetty9 under load (benchmarks/jetty_trace.py)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folded = Path(tmp) / "shop.folded"
        await trace_shop(folded)
        draw(folded, OUT / "trace-flame.svg", "TraceShop traced in the JVM from a running start (calls)", "calls")
        if args.jetty:
            sys.path.insert(0, str(ROOT / "benchmarks"))
            import jetty_trace

            folded = Path(tmp) / "jetty.folded"
            got = await jetty_trace.measure(5.0, str(folded), "calls")  # (by time: the acceptor's wait)
            print(f"Jetty: {got['result'].calls:,} calls, {got['with'] / got['without']:.2f}x throughput")
            draw(folded, OUT / "trace-flame-jetty.svg",
                 "jetty9 under ab -c 4, org.eclipse.jetty.server.* traced in the JVM (calls)", "calls")


if __name__ == "__main__":
    asyncio.run(main())
