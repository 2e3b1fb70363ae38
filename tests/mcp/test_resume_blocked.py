"""Over MCP: `resume {"thread": T}` for a thread that waits for a lock whose owner the debugger holds suspended
answers with that, and what to do, instead of a plain timeout (the REPL: tests/repl/test_resume_blocked.py)."""

from __future__ import annotations

import pytest
from mcp_harness import open_session

pytestmark = pytest.mark.timeout(60)


async def test_resume_of_a_thread_blocked_by_a_suspended_owner_says_so(tmp_path, jvm_factory, default_jdk, line_of):
    jvm = jvm_factory("HeldLock", jdk=default_jdk)
    async with open_session("memory", tmp_path) as s:
        await s.ok("attach", address=jvm.address)
        await s.ok("breakpoint_set", location=f"fixtures.HeldLock:{line_of('held-inside')}")
        stopped = (await s.ok("resume", timeout=30)).text
        assert "thread holder" in stopped, stopped
        answer = (await s.ok("resume", thread="waiter", timeout=2)).text
        assert answer.startswith("waiter waits for a lock held by holder, which is suspended: resume holder too, "
                                 "or resume all (still blocked after 2s)"), answer
        await s.ok("breakpoint_set", location=f"fixtures.HeldLock:{line_of('held-waiter')}")
        through = (await s.ok("resume", thread="holder", timeout=30)).text  # as told: the waiter gets the lock
        assert "thread waiter" in through, through
