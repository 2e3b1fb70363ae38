"""The entry points of `tracepilot attach|launch|demo|watch`: build the App for the command line's options
(the debugger, the start-up coroutine, the source path) and run it, published for watchers. They sit above
the App (tui/app.py) and the watching App (tui/watch.py), which know nothing of them."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from ..core.debugger import Debugger
from ..core.launcher import launch_options as java_launch_options
from ..core.launcher import split_launch_args
from .app import TracepilotApp
from .startup import launch_and_run, stop_on_uncaught
from .watch import run_watch

__all__ = ["DEMO_HINT", "build", "demo_line", "hosted", "java_launch_options", "run", "run_hosted"]


def _demo_source() -> Path:
    return Path(__file__).resolve().parent.parent / "demo" / "ShopDemo.java"


def demo_line(marker: str) -> int:
    """The line of the demo marked `// @demo:MARKER`."""
    for number, line in enumerate(_demo_source().read_text().splitlines(), 1):
        if f"// @demo:{marker}" in line:
            return number
    raise LookupError(f"no line marked @demo:{marker} in ShopDemo.java")


DEMO_HINT = "try: F10 step · F11 into total() · 2 ↓ → a variable · F5 next order (#4 fails)"  # fits 80



def build(ns: argparse.Namespace) -> TracepilotApp:
    sourcepath = list(ns.sourcepath or [])
    command = ns.command
    uncaught = not getattr(ns, "no_stop_on_uncaught", False)
    debugger = Debugger(read_only=ns.read_only, redact=ns.redact, sourcepath=sourcepath)
    if command == "attach":
        async def attach(app: TracepilotApp) -> None:
            app.progress(f"waiting up to {ns.wait:g}s for {ns.address} to listen…")
            await app.debugger.attach(ns.address, ns.wait)
            if uncaught:
                await stop_on_uncaught(app)
            app.progress("")

        return TracepilotApp(debugger, attach, sourcepath=sourcepath, target_label=ns.address)
    if command == "demo":
        demo = _demo_source()
        debugger = Debugger(read_only=ns.read_only, redact=ns.redact, sourcepath=[*sourcepath, str(demo.parent)])
        options = {"source": str(demo), "sourcepath": [str(demo.parent)]}
        breaks = list(ns.breaks) or [f"ShopDemo:{demo_line('process')}"]  # early in the flow; the NPE is ahead
        return TracepilotApp(debugger, lambda app: launch_and_run(app, options, breaks, uncaught), launched=True,
                             sourcepath=[*sourcepath, str(demo.parent)], target_label="ShopDemo",
                             hint=DEMO_HINT if not ns.breaks else "")
    java_args = split_launch_args(ns.java_args)
    if not java_args:
        raise SystemExit("tracepilot launch: give the program: -- -cp DIR Main args…, -- -jar app.jar, or Foo.java")
    options = java_launch_options(java_args)
    if options.get("source"):
        sourcepath.append(str(Path(options["source"]).resolve().parent))
    options["sourcepath"] = sourcepath
    breaks = list(ns.breaks)
    at_main = not breaks and not ns.no_stop_at_main  # (jdb and pudb start a program stopped at its beginning)
    return TracepilotApp(debugger, lambda app: launch_and_run(app, options, breaks, uncaught, at_main), launched=True,
                         sourcepath=sourcepath, target_label=" ".join(java_args))


def run(ns: argparse.Namespace) -> int:
    """Entry point of `tracepilot attach|launch|demo|watch`."""
    if ns.command == "watch":
        return run_watch(ns)
    return run_hosted(build(ns))  # published for `tracepilot watch` while it runs


async def hosted(app: TracepilotApp) -> int:
    """Run a TUI that owns its JDWP connection, with its session published for watchers."""
    from ..share.host import published  # noqa: PLC0415 - the share layer loads only when a TUI runs

    async with published(app.debugger, "tui"):
        return await app.run_async() or 0


def run_hosted(app: TracepilotApp) -> int:
    return asyncio.run(hosted(app))
