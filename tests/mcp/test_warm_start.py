"""No call pays a one-time import or warm-up (issue 32): after `tracepilot --mcp` answered `initialize` the core,
the evaluator and tree-sitter's parser are loaded in the background, so the first tool call and the first
`evaluate` load nothing. Asserted on what is loaded, never on times."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tracepilot.mcp.warm_start import warm_after_initialize

pytestmark = pytest.mark.timeout(120)

SRC = Path(__file__).resolve().parents[2] / "src"

# A fresh interpreter (this one has loaded everything already): warm up as the server does, then play a short
# agent session on a real JVM and report what it loaded and whether the parser was built again.
SESSION = textwrap.dedent("""
    import asyncio, json, sys
    from mcp.client import Client
    from tracepilot.mcp.server import build_server
    from tracepilot.mcp.warm_start import share_host_warm_up
    from tracepilot.core.warmup import warm_up_soon

    address, location = sys.argv[1], sys.argv[2]

    async def main():
        server, app = build_server()
        async with Client(server) as client:
            await client.list_tools()
            warm_up_soon(share_host_warm_up).join()
            from tracepilot.core.evaluator import parse
            parser = parse._parser
            before = set(sys.modules)
            calls = [("status", {}), ("attach", {"address": address}), ("breakpoint_set", {"location": location}),
                     ("wait_for_stop", {"timeout": 30}), ("evaluate", {"expression": "p.counter + i * 2"}),
                     ("evaluate", {"expression": "p.name.length() > 3 && p.compute(i) != 0"}),
                     ("stack", {}), ("locals", {}), ("snapshot", {}), ("inspect", {"target": "p"}),
                     ("resume", {"timeout": 30})]
            answers = []
            for name, args in calls:
                result = await client.call_tool(name, args)
                answers.append([name, result.is_error])
            loaded = sorted(m for m in set(sys.modules) - before
                            if m.split(".")[0] in ("tracepilot", "tree_sitter", "tree_sitter_java"))
            print(json.dumps({"loaded": loaded, "parser_kept": parse._parser is parser, "parser": parser is not None,
                              "errors": [a for a in answers if a[1]]}))
        await app.close()

    asyncio.run(main())
""")


def test_first_calls_load_nothing_after_the_warm_up(jvm_factory, line_of, tmp_path):
    target = jvm_factory("fixtures.Playground", suspend=False)
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SESSION, target.address, f"fixtures.Playground:{line_of('loop-call')}"],
                          capture_output=True, text=True, timeout=100, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["errors"] == [], report
    assert report["parser"] and report["parser_kept"], report
    assert report["loaded"] == [], f"loaded on the first calls, not by the warm-up: {report['loaded']}"


async def test_the_warm_up_starts_once_initialize_was_answered():
    """It starts when the second line arrives (the client has the `initialize` answer), once, not before."""
    started: list[int] = []
    seen: list[str] = []

    async def lines():
        for line in ("initialize\n", "notifications/initialized\n", "tools/list\n", "tools/call\n"):
            yield line

    async for line in warm_after_initialize(lines(), lambda: started.append(len(seen))):
        seen.append(line)
    assert started == [1]
    assert seen == ["initialize\n", "notifications/initialized\n", "tools/list\n", "tools/call\n"]


async def test_a_tool_call_waits_for_a_warm_up_still_running():
    """Two threads loading modules that import each other can meet one half loaded: a tool call lets the
    warm-up end first (an Event stands in for the imports)."""
    import asyncio
    import threading

    from tracepilot.mcp import warm_start

    release, order = threading.Event(), []
    thread = threading.Thread(target=lambda: (release.wait(10), order.append("warm-up done")), daemon=True)
    thread.start()
    warm_start._running.append(thread)  # noqa: SLF001  (as _start_warm_up does)
    waiting = asyncio.ensure_future(warm_start.settled())
    await asyncio.sleep(0.05)
    assert not waiting.done()
    release.set()
    await asyncio.wait_for(waiting, 10)
    order.append("tool call")
    assert order == ["warm-up done", "tool call"] and warm_start._running == []  # noqa: SLF001
    await warm_start.settled()  # nothing running: at once
