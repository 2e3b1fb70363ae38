"""`tracepilot dap --join`: an editor on an agent's live `tracepilot --mcp` session (both real clients).

On one JDK: joining is the share layer's, the same on any JDK (the core's tests run on JDK 17 and 25)."""

from __future__ import annotations

import pytest

from share.conftest import agent_session
from support.node_scenario import node_scenario
from tracepilot.share import registry

from .conftest import DAP_DIR, scenario_env


@pytest.mark.timeout(120)
async def test_agent_resume_reaches_the_editor_and_its_next_is_the_persons(
        dap_client_installed, share_dir, java_classes, jdks, default_jdk, jvm_factory, java_source_root, line_of) -> None:
    target = jvm_factory("Playground", "100000", jdk=default_jdk)
    async with agent_session() as agent:
        await agent.ok("attach", address=target.address, sourcepath=[str(java_source_root)])
        await agent.ok("breakpoint_set", location=f"fixtures.Playground:{line_of('loop-body')}")
        [info] = registry.list_sessions()
        env = scenario_env(java_classes, jdks, default_jdk, adapter_args=["--join", info.id])
        async with node_scenario(DAP_DIR / "joined.mjs", env) as editor:
            await editor.line("joined")
            reply = await agent.ok("resume", timeout=10)
            assert "STOPPED" in reply
            await editor.line("stepped")
            events = await agent.ok("events")
            assert "[person] step" in events, events
            await editor.leave()
            status = await agent.ok("status")  # the editor left; the agent's session goes on
            assert f":{line_of('loop-static')}" in status, status
