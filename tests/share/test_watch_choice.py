"""`tracepilot watch` with several live sessions asks which one (a terminal) or lists them in its error (no
terminal), instead of silently following the newest (issue 29, point 6). No JVM needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracepilot.cli import build_parser
from tracepilot.core.debugger import Debugger
from tracepilot.share import registry
from tracepilot.share.host import SessionHost
from tracepilot.share.protocol import ShareError
from tracepilot.tui.watch import watch


async def test_several_sessions_are_listed_or_asked_for(share_dir: Path, capsys) -> None:
    hosts = [SessionHost(Debugger(), "mcp"), SessionHost(Debugger(), "tui")]
    infos = [await host.start() for host in hosts]
    try:
        code = await watch(build_parser().parse_args(["watch"]))  # (no terminal under pytest: nothing to ask)
        text = capsys.readouterr().err
        assert code == 2
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
