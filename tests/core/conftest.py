"""Fixtures of the core tests."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger


@pytest.fixture
async def debugger():
    """A fresh Debugger, closed (detaching or terminating its target) after the test."""
    d = Debugger()
    try:
        yield d
    finally:
        await d.close()
