"""Errors the debugger raises itself are not worded as the JVM's (issue 29 item 12): "the JVM refused" is said
only of an error code the JVM sent back. On a real JVM: a method lookup of the debugger's own that finds
nothing (here: its method table emptied, as a stale cache would be), and a real refusal of the JVM's."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError

pytestmark = pytest.mark.timeout(60)


async def test_only_the_jvms_own_errors_say_the_jvm_refused(jvm_factory, line_of, monkeypatch):
    jvm = jvm_factory("Playground", "50")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.breakpoint_set(f"fixtures.Playground:{line_of('compute-body')}")
        stop = await d.resume(timeout=20)
        assert stop.stopped, stop

        with pytest.raises(DebuggerError) as refused:  # the JVM's own answer: a String is no int to return
            await d.force_return('"x"')
        assert "the JVM refused the early return" in str(refused.value) and "TYPE_MISMATCH" in str(refused.value)

        vm = d.session.vm
        real_methods = vm.methods

        async def no_methods(type_id):  # the debugger's own table knows no method: a lookup of its own fails
            await real_methods(type_id)
            return []

        monkeypatch.setattr(vm, "methods", no_methods)
        with pytest.raises(DebuggerError) as own:
            await d.stack(None, 0, 5)
        text = str(own.value)
        assert "JVM refused" not in text, text
        assert "debugger" in text, text
    finally:
        await d.close()
