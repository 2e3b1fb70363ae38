"""`tracepilot watch` with several live sessions asks which one (a terminal) or lists them in its error (no
terminal), instead of silently following the newest (issue 29, point 6). No JVM needed."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.share import registry
from tracepilot.share.host import SessionHost
from tracepilot.share.protocol import ShareError

REPO = Path(__file__).resolve().parents[2]


async def test_several_sessions_are_listed_or_asked_for(share_dir: Path) -> None:
    hosts = [SessionHost(Debugger(), "mcp"), SessionHost(Debugger(), "tui")]
    infos = [await host.start() for host in hosts]
    try:
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
        watch = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tracepilot.cli", "watch", stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
            stdout=subprocess.PIPE, env=env)
        _out, err = await asyncio.wait_for(watch.communicate(), 30)
        assert watch.returncode == 2
        text = err.decode()
        assert "2 live sessions" in text and all(info.id in text for info in infos), text

        asked: list[int] = []
        chosen = registry.choose(None, lambda sessions: asked.append(len(sessions)) or "1")
        assert asked == [2] and chosen.id == infos[0].id
        assert registry.choose(None, lambda _s: infos[1].id).id == infos[1].id
        assert registry.choose(infos[1].id, None).id == infos[1].id  # a name given: nothing to ask
        with pytest.raises(ShareError, match="say which one"):
            registry.choose(None, None)
    finally:
        for host in hosts:
            await host.close()
