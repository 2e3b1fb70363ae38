"""Issue 29 points 14, 15 and 17 over DAP, driven by DebugClient on a real JVM (tests/dap/launch_exceptions.mjs)."""

from __future__ import annotations

import pytest

from support.jvm import free_port


@pytest.mark.timeout(90)
def test_exception_info_logpoint_output_and_protocol_details(run_scenario, default_jdk) -> None:
    run_scenario("launch_exceptions", default_jdk, freePort=free_port())
