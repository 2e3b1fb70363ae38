"""Shared helpers of the inspection tests (core part 2)."""

from __future__ import annotations

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind


async def stop_at(debugger: Debugger, jvm_factory, main: str, marker_line: int, *args: str, jdk: str = "17"):
    jvm = jvm_factory(main, *args, jdk=jdk)
    await debugger.attach(jvm.address, timeout=10)
    await debugger.breakpoint_set(f"fixtures.{main}:{marker_line}")
    result = await debugger.resume(timeout=20)
    if result.stopped and result.stop.kind is StopKind.VM_START:
        # Session race (reported): a VM_START stop can still be queued behind attach's answer.
        result = await debugger.resume(timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()
    return jvm, result.stop
