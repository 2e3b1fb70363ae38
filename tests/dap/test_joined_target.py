"""`tracepilot dap --join SESSION --target NAME` (issue 28): an editor joined to one target of a session holding
two JVMs (a price server and its client) sees that target's stop, stack and variables, and not the other's."""

from __future__ import annotations

import pytest

from support.node_scenario import node_scenario
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor
from tracepilot.share.host import SessionHost

from .conftest import DAP_DIR, scenario_env


@pytest.mark.timeout(60)
async def test_an_editor_joined_to_one_target_sees_only_its_stops(
        dap_client_installed, share_dir, java_classes, jdks, default_jdk, java_source_root, line_of, free_port) -> None:
    port = str(free_port())
    debugger = Debugger(sourcepath=[str(java_source_root)], default_actor=Actor.AGENT)
    host = SessionHost(debugger, "mcp")
    await host.start()
    try:
        for main, name in (("fixtures.PriceServer", "server"), ("fixtures.PriceClient", "client")):
            await debugger.launch(main=main, classpath=[str(java_classes)], args=[port], name=name,
                                  java=jdks[default_jdk])
        await debugger.breakpoint_set(f"PriceServer:{line_of('server-answer')}", condition="qty == 3")
        await debugger.breakpoint_set(f"PriceClient:{line_of('client-total')}", condition="total > 100")
        env = scenario_env(java_classes, jdks, default_jdk, adapter_args=["--join", host.info.id, "--target", "client"])
        async with node_scenario(DAP_DIR / "joined_target.mjs", env) as editor:
            await editor.line("joined")
            for name in ("server", "client"):
                with debugger.on_target(name):
                    await debugger.resume(timeout=0)
            first = await debugger.wait_for_stop(timeout=20)
            assert first.stop.target == "server", first  # the agent's; the client waits for its answer
            second = await debugger.resume(timeout=20)
            assert second.stopped and second.stop.target == "client", second
            await editor.line("checked")  # the editor saw the client's stop, and no server stop
            await editor.leave()
        assert (await debugger.evaluate("total")).text == "135"  # the editor left; the client's stop stays
    finally:
        await host.close()
        await debugger.close()
