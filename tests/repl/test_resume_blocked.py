"""Resuming one thread that waits for a lock whose owner the debugger holds suspended: the answer says so, and
what to do, instead of a plain "still running" (REPL here; tests/mcp/test_resume_blocked.py over MCP)."""

from __future__ import annotations

import pytest

from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(60)
BLOCKED = "waiter waits for a lock held by holder, which is suspended: resume holder too, or resume all"


async def test_resume_of_a_thread_blocked_by_a_suspended_owner_says_so(drive, line_of):
    await drive.attach("HeldLock")
    await drive(f"stop at fixtures.HeldLock:{line_of('held-inside')}")
    stopped = await drive("cont")
    assert stopped.stop.kind is StopKind.BREAKPOINT and stopped.stop.thread_name == "holder", stopped.text
    answer = await drive("resume waiter")  # (jdb's resume: it does not wait; the waiter is blocked already)
    assert answer.text == f"resumed thread waiter\n{BLOCKED}", answer.text
    # Doing as told lets it through: the holder leaves the lock, the waiter takes it.
    await drive(f"stop at fixtures.HeldLock:{line_of('held-waiter')}")
    through = await drive("cont")
    assert through.stop.thread_name == "waiter" and through.stop.location.line == line_of("held-waiter"), through.text
