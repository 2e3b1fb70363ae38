"""Conditional breakpoint benchmark: hits per second of a breakpoint whose condition on a local
(``i == N``) is false on N hits and then true, evaluated by tracepilot's Evaluator, against the same
done with JDI (benchmarks/jdi/ConditionBench.java, compiled with javac and run on the same JDK).

    .venv/bin/python benchmarks/bench_condition.py [--hits 20000]

Each side gets its own target JVM (ConditionTarget, in the same Java file). tracepilot's loop is what
the session does per hit: Evaluator.condition() (frame 0 + one GetValues, cached plan), then resume
the thread without awaiting the reply.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.jvm import system_java, system_javac  # noqa: E402
from tracepilot.core.evaluator.interpreter import Evaluator  # noqa: E402
from tracepilot.core.vm import Vm  # noqa: E402
from tracepilot.jdwp import (  # noqa: E402
    EventKind,
    EventRequest,
    JdwpConnection,
    Mod,
    SuspendPolicy,
    ThreadReference,
    VirtualMachine,
)
from tracepilot.jdwp.wire import Location  # noqa: E402

SOURCE = ROOT / "benchmarks" / "jdi" / "ConditionBench.java"
LISTENING = re.compile(rb"Listening for transport dt_socket at address: (\d+)")


def hit_line() -> int:
    for no, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        if "@bench:hit" in line:
            return no
    raise SystemExit("no @bench:hit marker in ConditionBench.java")


def start_target(java: str, classes: Path, n: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [java, "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0", "-cp", str(classes),
         "ConditionTarget", str(n)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    line = proc.stdout.readline()  # type: ignore[union-attr]
    m = LISTENING.search(line)
    if not m:
        proc.kill()
        raise SystemExit(f"target did not start: {line!r}")
    return proc, int(m.group(1))


class _Session:
    """The little of a Session the evaluator needs for a condition."""

    read_only = False
    sources = None
    inspector = None

    def __init__(self, vm: Vm) -> None:
        self.vm = vm


async def tracepilot_rate(port: int, line: int, n: int) -> tuple[int, float]:
    conn = await JdwpConnection.connect("127.0.0.1", port)
    vm = Vm(conn)
    evaluator = Evaluator(_Session(vm))
    await conn.send(EventRequest.Set, EventKind.CLASS_PREPARE, SuspendPolicy.ALL, [Mod.ClassMatch("ConditionTarget")])
    await conn.send(VirtualMachine.Resume)
    hits, started = 0, 0.0
    try:
        async for composite in conn.events():
            for event in composite.events:
                kind = type(event).__name__
                if kind == "ClassPrepare":
                    methods = await vm.line_tables(event.type_id)
                    for m in methods:
                        for index, ln in m.lines or ():
                            if ln == line:
                                loc = Location(event.ref_type_tag, event.type_id, m.id, index)
                                await conn.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD,
                                                [Mod.LocationOnly(loc)])
                                break
                    await conn.send(VirtualMachine.Resume)
                elif kind == "Breakpoint":
                    if hits == 0:
                        started = time.perf_counter()
                    hits += 1
                    if await evaluator.condition("i == " + str(n), event.thread):
                        return hits, time.perf_counter() - started
                    conn.send_nowait(ThreadReference.Resume, event.thread)  # not awaited
                elif kind in ("VMDeath",):
                    raise SystemExit("tracepilot: the target ended before the condition was true")
    finally:
        await conn.close()
    raise SystemExit("tracepilot: the connection closed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hits", type=int, default=20000, help="false hits before the condition is true")
    args = parser.parse_args()
    java, javac = system_java(), system_javac()
    if not java or not javac:
        raise SystemExit("needs a JDK (java and javac)")
    n, line = args.hits, hit_line()
    with tempfile.TemporaryDirectory() as tmp:
        classes = Path(tmp)
        subprocess.run([javac, "-g", "-d", str(classes), str(SOURCE)], check=True)

        proc, port = start_target(java, classes, n)
        try:
            hits, elapsed = asyncio.run(tracepilot_rate(port, line, n))
        finally:
            proc.kill()
            proc.wait()
        ours = hits / elapsed
        print(f"tracepilot: {hits} hits in {elapsed:.3f} s = {ours:.0f} hits/s")

        proc, port = start_target(java, classes, n)
        try:
            out = subprocess.run([java, "-cp", str(classes), "ConditionBench", "127.0.0.1", str(port), str(line),
                                  str(n)], capture_output=True, text=True, timeout=600)
        finally:
            proc.kill()
            proc.wait()
        print(out.stdout.strip() or out.stderr.strip())
        if "hits/s" not in out.stdout:
            print(out.stderr.strip()[-2000:], proc.stdout.read().decode(errors="replace")[-2000:])  # type: ignore[union-attr]
        m = re.search(r"= (\d+) hits/s", out.stdout)
        if m:
            jdi = float(m.group(1))
            print(f"ratio tracepilot/JDI: {ours / jdi:.2f}x")
    shutil.rmtree(classes, ignore_errors=True)


if __name__ == "__main__":
    main()
