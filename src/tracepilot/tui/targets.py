"""Switching the current target of a session with several JVMs (issue 28): the key `T` picks the next one."""

from __future__ import annotations

from typing import Any


async def switch_to_next_target(app: Any) -> str:
    """Make the target after the current one current; answers what the status line says."""
    infos = await app.debugger.targets_list()
    if len(infos) < 2:
        return "one target: launch or attach another to debug it beside this one"
    at = next((i for i, info in enumerate(infos) if info.current), -1)
    chosen = infos[(at + 1) % len(infos)].name
    await app.debugger.select_target(chosen)
    app.thread, app.frame = None, 0  # the selection belonged to the other JVM
    app.refresher.schedule(reset_selection=True)
    return f"current target: {chosen}"
