"""What the core's answers carry for the next question (issue 21, issue 17 part B), on real JVMs."""

from __future__ import annotations

import pytest

from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState, StopKind

pytestmark = pytest.mark.timeout(90)


async def _to_breakpoint(d: Debugger, location: str) -> None:
    await d.breakpoint_set(location)
    result = await d.resume(timeout=20)
    if result.stopped and result.stop.kind is StopKind.VM_START:
        result = await d.resume(timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()


async def test_detach_terminate_waits_for_an_attached_jvm_and_handles_restart(jvm_factory, line_of):
    first = jvm_factory("Invoice")
    second = jvm_factory("Invoice")
    d = Debugger()
    try:
        await d.attach(first.address, timeout=10)
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        sku = next(v for v in await d.locals() if v.name == "sku")
        assert sku.value.handle is not None
        status = await d.detach(terminate=True)
        assert status.state is SessionState.DISCONNECTED
        assert status.note == "the JVM has exited", status.note
        assert "the JVM has exited" in render.status(status)
        first.proc.wait(timeout=1)  # gone when the answer came (it used to live ~2 s longer): only reaping is left
        await d.attach(second.address, timeout=10)
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        handles = sorted(int(v.value.handle[1:]) for v in await d.locals() if v.value.handle)
        assert handles[0] == 1, handles  # a new session's handles start again at @1
    finally:
        await d.close()
