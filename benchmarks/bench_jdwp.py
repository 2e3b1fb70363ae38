"""JDWP round-trip benchmark: the floor (a blocking raw-socket loop), the asyncio client sequentially,
and the client pipelined — all in one run against one JVM. Prints figures and ratios.

    .venv/bin/python benchmarks/bench_jdwp.py [--requests N]
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.jvm import compile_fixtures, start_jvm, system_java  # noqa: E402
from tracepilot.jdwp import JdwpConnection, VirtualMachine  # noqa: E402
from tracepilot.jdwp.constants import HANDSHAKE  # noqa: E402


def raw_floor(host: str, port: int, n: int) -> float:
    """Requests/s of the simplest possible blocking client: send IDSizes, read the reply, repeat."""
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(HANDSHAKE)
    assert sock.recv(14) == HANDSHAKE
    started = time.perf_counter()
    for i in range(1, n + 1):
        sock.sendall(struct.pack(">IIBBB", 11, i, 0, 1, 7))
        need, buf = 11, b""
        while len(buf) < need:
            buf += sock.recv(65536)
            if len(buf) >= 4:
                need = struct.unpack(">I", buf[:4])[0]
    elapsed = time.perf_counter() - started
    sock.close()
    return n / elapsed


async def client_rates(host: str, port: int, n: int) -> tuple[float, float]:
    conn = await JdwpConnection.connect(host, port)
    try:
        started = time.perf_counter()
        for _ in range(n):
            await conn.send(VirtualMachine.IDSizes)
        sequential = n / (time.perf_counter() - started)
        batch = n * 10
        started = time.perf_counter()
        await asyncio.gather(*(conn.send_nowait(VirtualMachine.IDSizes) for _ in range(batch)))
        pipelined = batch / (time.perf_counter() - started)
        return sequential, pipelined
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    classes = Path(tempfile.mkdtemp(prefix="tracepilot-bench-"))
    compile_fixtures(classes)
    java = system_java()
    # One JVM: JDWP allows one debugger at a time, so the floor runs first, then the client.
    jvm = start_jvm(classes, "Playground", java=java)
    try:
        floor = raw_floor(jvm.host, jvm.port, args.requests)
    finally:
        jvm.kill()
    jvm = start_jvm(classes, "Playground", java=java)
    try:
        sequential, pipelined = asyncio.run(client_rates(jvm.host, jvm.port, args.requests))
    finally:
        jvm.kill()
    rows = [
        ("raw socket floor (sequential)", f"{floor:,.0f} req/s", "reference", ""),
        ("tracepilot sequential", f"{sequential:,.0f} req/s", f"{floor / sequential:.2f}x slower than floor",
         "within 3x of floor: " + ("met" if floor / sequential <= 3 else "NOT met")),
        ("tracepilot pipelined", f"{pipelined:,.0f} req/s", f"{pipelined / floor:.2f}x the floor",
         ">= 40,000 req/s: " + ("met" if pipelined >= 40_000 else "NOT met")),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'workload':<{width}}  {'figure':>14}  {'ratio':<28}  aim")
    for name, figure, ratio, aim in rows:
        print(f"{name:<{width}}  {figure:>14}  {ratio:<28}  {aim}")


if __name__ == "__main__":
    main()
