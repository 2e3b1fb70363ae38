"""Attach to a JVM started with suspend=n before its program runs: attach must not wait for a VMStart that holds
it. It waited 15 s (VM_START_WAIT) in two windows, wide on a loaded machine: during an agent's premain or the
launcher's start (no program frame on main yet, and no VMStart coming), and the moment the agent listens (a
VMStart does come then, suspending nothing)."""

from __future__ import annotations

import asyncio
import time
import zipfile
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState

pytestmark = pytest.mark.timeout(60)


def premain_jar(java_classes: Path, tmp_path: Path) -> Path:
    jar = tmp_path / "slow-premain.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nPremain-Class: fixtures.SlowPremain\n")
        z.write(java_classes / "fixtures" / "SlowPremain.class", "fixtures/SlowPremain.class")
    return jar


async def test_attach_during_premain_of_a_suspend_n_jvm_answers_running_without_waiting(jvm_factory, java_classes,
                                                                                         tmp_path) -> None:
    jar = premain_jar(java_classes, tmp_path)
    jvm = jvm_factory("fixtures.Napper", "600", suspend=False, jvm_args=[f"-javaagent:{jar}=4000"])
    d = Debugger()
    try:
        began = time.monotonic()
        await d.attach(jvm.address, timeout=10)  # (inside the 4 s premain: the JVM listens before it)
        took = time.monotonic() - began
        assert d.session.state is SessionState.RUNNING, d.session.state
        # Nothing held it: the premain ends and the program runs (its first line comes).
        await asyncio.to_thread(jvm.wait_for_output, "nap 0", 20)
        # (main runs the premain's Java: seen at once; it was VM_START_WAIT's 15 s)
        assert took < 3.5, f"attach took {took:.1f}s"
    finally:
        await d.close()


async def test_attach_to_a_just_started_suspend_n_jvm_does_not_wait_for_its_start(jvm_factory) -> None:
    """Attached the moment its agent listens (as the test fixtures and scripts do), a suspend=n JVM may send
    VMStart to the new debugger, suspending nothing: it was taken for a suspend=y start, and attach waited
    15 s for the stop (7 of 12 attaches on a loaded machine). Five attaches, each answered at once."""
    for _ in range(5):
        jvm = jvm_factory("fixtures.CaptureService", "4", suspend=False)
        d = Debugger()
        try:
            began = time.monotonic()
            await d.attach(jvm.address, timeout=10)
            took = time.monotonic() - began
            assert d.session.state is SessionState.RUNNING and took < 5, (d.session.state, took)
        finally:
            await d.close()
        jvm.close()


def test_a_vm_start_that_suspends_nothing_is_not_a_held_start() -> None:
    from tracepilot.core.session.base import is_vm_start
    from tracepilot.jdwp import SuspendPolicy
    from tracepilot.jdwp.events import Composite, Ev

    assert is_vm_start(Composite(SuspendPolicy.ALL, [Ev.VMStart(0, 1)]))
    assert not is_vm_start(Composite(SuspendPolicy.NONE, [Ev.VMStart(0, 1)]))
