"""`tracepilot dap`: `next` and `stepIn` right after a pause in Thread.sleep stop in the program's frame."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(90)
def test_next_and_step_in_after_a_pause_stop_in_main(run_scenario, default_jdk) -> None:
    run_scenario("step_after_pause", default_jdk)
