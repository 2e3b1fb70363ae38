"""`tracepilot dap` launching a program, driven by DebugClient on JDK 17 and 25.

The adapter is the same on any JDK; what a JDK changes is below it (the core's tests run on both) and the
launch itself: the basics run on both JDKs, the rest on one."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(120)
def test_launch_breakpoint_stack_variables_continue(run_scenario, jdk) -> None:
    run_scenario("launch_basics", jdk)


@pytest.mark.timeout(120)
def test_conditions_logpoint_exceptions_deferred_stepping_values(run_scenario, default_jdk) -> None:
    run_scenario("launch_features", default_jdk)


@pytest.mark.timeout(120)
def test_data_breakpoint_on_one_object_and_source_by_reference(run_scenario, default_jdk) -> None:
    run_scenario("launch_data_source", default_jdk)
