"""`tracepilot dap --join`: an editor on an agent's live `tracepilot --mcp` session (both real clients)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from share.conftest import agent_session
from tracepilot.share import registry

from .conftest import DAP_DIR, scenario_env


async def _line(stream: asyncio.StreamReader, wanted: str, node: asyncio.subprocess.Process) -> None:
    while True:
        raw = await asyncio.wait_for(stream.readline(), 30)
        if not raw:
            err = (await node.stderr.read()).decode(errors="replace")
            raise AssertionError(f"the DAP scenario ended before '{wanted}':\n{err}")
        if raw.decode().strip() == wanted:
            return


@pytest.mark.timeout(120)
async def test_agent_resume_reaches_the_editor_and_its_next_is_the_persons(
        dap_client_installed, share_dir, java_classes, jdks, jdk, jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000", jdk=jdk)
    async with agent_session() as agent:
        await agent.ok("attach", address=target.address, sourcepath=[str(java_source_root)])
        await agent.ok("breakpoint_set", location=f"fixtures.Playground:{line_of('loop-body')}")
        [info] = registry.list_sessions()
        env = scenario_env(java_classes, jdks, jdk, adapter_args=["--join", info.id])
        node = await asyncio.create_subprocess_exec(
            "node", str(DAP_DIR / "joined.mjs"), cwd=DAP_DIR, env=env, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            await _line(node.stdout, "joined", node)
            reply = await agent.ok("resume", timeout=10)
            assert "STOPPED" in reply
            await _line(node.stdout, "stepped", node)
            events = await agent.ok("events")
            assert "[person] step" in events, events
            node.stdin.write(b"leave\n")
            await node.stdin.drain()
            rc = await asyncio.wait_for(node.wait(), 30)
            assert rc == 0, (await node.stderr.read()).decode(errors="replace")
            status = await agent.ok("status")  # the editor left; the agent's session goes on
            assert f":{line_of('loop-static')}" in status, status
        finally:
            if node.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    node.kill()
                await node.wait()
