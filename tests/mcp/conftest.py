"""Fixtures for the MCP tests (the harness is in mcp_harness.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import open_session


@pytest.fixture
def mcp_session(tmp_path: Path) -> Callable[..., Any]:
    """``async with mcp_session("memory" | "stdio", read_only=False) as s: ...``"""

    def opener(kind: str = "memory", **kw: Any) -> Any:
        return open_session(kind, tmp_path, **kw)

    return opener


@pytest.fixture(params=["memory", "stdio"])
def transport(request: pytest.FixtureRequest) -> str:
    """Run a test through the in-memory client and through a real `tracepilot --mcp` subprocess."""
    return request.param
