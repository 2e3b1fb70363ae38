"""Fixtures for the reliability and security tests (issue 11): a Debugger per test, the MCP harness,
this process's memory. Everything stays on loopback and is bounded in time."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mcp"))  # mcp_harness

from mcp_harness import open_session  # noqa: E402

from tracepilot.core.debugger import Debugger  # noqa: E402


@pytest.fixture
async def debugger() -> AsyncIterator[Debugger]:
    d = Debugger()
    try:
        yield d
    finally:
        await d.close()


@pytest.fixture
def mcp_session(tmp_path: Path) -> Callable[..., Any]:
    """``async with mcp_session("memory", read_only=False) as s: ...``"""

    def opener(kind: str = "memory", **kw: Any) -> Any:
        return open_session(kind, tmp_path, **kw)

    return opener
