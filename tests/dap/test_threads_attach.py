"""`tracepilot dap` with several threads, attach/detach, stopOnEntry and terminate.

On one JDK: the adapter is the same on any; what a JDK changes is below it (the core's tests run on JDK 17 and
25) and the launch (test_launch.py runs it on both)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest


def _processes_with(token: str) -> list[int]:
    """Pids whose command line contains `token` (the launched JVM carries it as a program argument)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if token.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


@pytest.mark.timeout(120)
def test_threads_stop_together_and_disconnect_terminates(run_scenario, default_jdk) -> None:
    token = f"dap-{uuid.uuid4().hex}"
    run_scenario("launch_threads", default_jdk, token=token)
    assert _processes_with(token) == [], "disconnect with terminateDebuggee left the JVM running"


@pytest.mark.timeout(120)
def test_attach_function_breakpoint_pause_and_detach_keeps_jvm(run_scenario, start_jvm, default_jdk) -> None:
    target = start_jvm("DapShowcase", "spin", jdk=default_jdk, suspend=False)
    run_scenario("attach_detach", default_jdk, port=target.port)
    assert target.proc.poll() is None, "disconnect without terminateDebuggee ended the JVM"


@pytest.mark.timeout(120)
def test_stop_on_entry_and_terminate(run_scenario, default_jdk) -> None:
    run_scenario("launch_entry_terminate", default_jdk)


@pytest.mark.timeout(120)
def test_uncaught_exception_filter_and_exit_code(run_scenario, default_jdk) -> None:
    run_scenario("launch_uncaught", default_jdk)
