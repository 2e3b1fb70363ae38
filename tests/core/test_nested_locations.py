"""Issue 29, point 3: nested classes written as people write them, on a real JVM.

`Causes.Ledger:N` (and `fixtures.Causes.Ledger:N`) is the JVM's `fixtures.Causes$Ledger`; `Ledger:N` is the
program's one nested class Ledger. Each binds before its class loads (and stops there) and at once after;
a bare nested name that several classes declare is refused at once with the spellings that can be told apart.
"""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import InvalidArgument

pytestmark = pytest.mark.timeout(60)

FORMS = ("Causes.Ledger", "fixtures.Causes.Ledger", "Ledger")


async def _stop_ids(debugger: Debugger) -> set[str]:
    result = await debugger.resume(timeout=30)
    assert result.stopped, result
    stop = result.stop
    assert stop.location.class_name == "fixtures.Causes$Ledger", stop
    return {stop.breakpoint_id, *stop.also}


async def test_nested_class_locations_bind_before_and_after_the_class_loads(
        jvm_factory, java_source_root, default_jdk, line_of):
    line = line_of("ledger-add")
    debugger = Debugger(sourcepath=[str(java_source_root)])
    jvm = jvm_factory("Causes", jdk=default_jdk)
    try:
        await debugger.attach(jvm.address, timeout=20)
        before = [await debugger.breakpoint_set(f"{form}:{line}") for form in FORMS]
        assert not any(bp.verified for bp in before), before  # Ledger is not loaded at VM start
        assert before[0].spec == f"Causes$Ledger:{line}"  # what the dotted form means, said at once
        assert await _stop_ids(debugger) == {bp.id for bp in before}

        for bp in before:
            await debugger.breakpoint_remove(bp.id)
        after = [await debugger.breakpoint_set(f"{form}:{line}") for form in FORMS]
        assert all(bp.verified for bp in after), after
        assert await _stop_ids(debugger) == {bp.id for bp in after}

        # A nested method by its dotted name, too.
        method = await debugger.method_break("Causes.Ledger.add")
        assert method.verified, method

        # `Inner` is nested in three fixtures (Evaluator, Findings, LambdasAndInner): which one is not guessed.
        with pytest.raises(InvalidArgument) as refused:
            await debugger.breakpoint_set("Inner:30")
        text = str(refused.value) + " " + (refused.value.hint or "")
        assert "ambiguous" in text and "fixtures.Findings$Inner" in text and "Findings.Inner:30" in text, text
    finally:
        await debugger.close()
