"""Fixtures for the share tests: a private registry directory per test, an MCP server subprocess."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from mcp import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def share_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Sessions of this test only (a short path: Unix socket paths are limited to ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="tp-share-"))
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(path))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def mcp_server(*extra: str) -> StdioServerParameters:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return StdioServerParameters(command=sys.executable, args=["-m", "tracepilot.cli", "--mcp", *extra],
                                 env=env, cwd=str(REPO))


class Agent:
    """An MCP client driving `tracepilot --mcp` over stdio, the way an agent's host does."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **arguments: Any) -> tuple[str, dict[str, Any] | None, bool]:
        result = await self.client.call_tool(tool, arguments)
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        return text, result.structured_content, bool(result.is_error)

    async def ok(self, tool: str, **arguments: Any) -> str:
        text, _, error = await self.call(tool, **arguments)
        assert not error, f"{tool}({arguments}) failed: {text}"
        return text


@asynccontextmanager
async def agent_session(*extra: str) -> AsyncIterator[Agent]:
    try:
        async with Client(mcp_server(*extra)) as client:
            yield Agent(client)
    except BaseExceptionGroup as group:  # task-group wrapping hides the real failure
        while isinstance(group, BaseExceptionGroup) and len(group.exceptions) == 1:
            group = group.exceptions[0]
        raise group from None
