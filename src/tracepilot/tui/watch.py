"""`tracepilot watch [SESSION] [--follow-only]`: the same TUI on a live session another front end hosts.

The app gets a `share.client.RemoteDebugger` instead of a `Debugger`; it cannot tell the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ..core.errors import DebuggerError
from ..core.model import Actor
from .app import TracepilotApp
from .view import CoreEvent


class WatchApp(TracepilotApp):
    """The TUI following a remote session; says so in the title and when the host goes away."""

    def __init__(self, remote: Any, *, clock: bool = True) -> None:
        info = remote.info
        label = f"{info.id} · {info.target or 'no target yet'}" if info else "live session"
        if remote.follow_only:
            label += " · follow-only"
        super().__init__(remote, None, sourcepath=list(remote.sourcepath), clock=clock,
                         target_label=label)
        self.remote = remote
        self.follows_output = True  # the Console shows the output of the program the host launched
        self.title = "tracepilot watch"
        self.sub_title = label

    # Textual runs the handler of every class in the MRO: these add to TracepilotApp's, never call super().

    def on_mount(self) -> None:
        who = "follow-only: you see every step, actions are refused" if self.remote.follow_only else (
            "your actions are shared and attributed to you")
        self.notify(f"Watching {self.sub_title} — {who}", title="tracepilot watch", timeout=8)

    def on_core_event(self, message: CoreEvent) -> None:
        if message.record.kind == "session_ended":
            self.note(message.record.text, error=True)


async def watch(ns: argparse.Namespace) -> int:
    from ..share import registry  # noqa: PLC0415
    from ..share.client import RemoteDebugger  # noqa: PLC0415

    session = ns.session
    try:
        if not (session or "").startswith("tcp://"):
            session = registry.choose(session, _ask if sys.stdin.isatty() else None).id
        remote = await RemoteDebugger.join(session, actor=Actor.PERSON, follow_only=ns.follow_only,
                                           client="watch", token=getattr(ns, "token", None))
    except DebuggerError as e:
        print(f"tracepilot watch: {e}", file=sys.stderr)
        return 2
    try:
        return await WatchApp(remote).run_async() or 0
    finally:
        await remote.close()


def _ask(sessions: list[Any]) -> str:
    """Several live sessions and no name given: which one (a terminal is there to ask)."""
    print("Live tracepilot sessions:")
    for number, info in enumerate(sessions, 1):
        print(f"  {number}. {info.label()}")
    try:
        return input(f"Watch which one? [1-{len(sessions)} or a session id] ")
    except EOFError:
        return ""


def run_watch(ns: argparse.Namespace) -> int:
    return asyncio.run(watch(ns))
