"""Issue 17, point 2: --redact is not bypassed by reflection or a target's own toString(), on a real JVM.

Redaction masks by name; reflection reads a field by a computed name and toString() reads it inside the
target, so under --redact the evaluator refuses both (and says why). Without --redact they work.
"""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import EvaluationError

pytestmark = pytest.mark.timeout(90)

LEAKS = [
    'this.getClass().getDeclaredField("pass" + "word").get(this)',
    "getClass().getDeclaredFields()[2].get(this)",
    'java.lang.invoke.MethodHandles.lookup()',
    "account.toString()",
    '"account: " + account',
    "String.valueOf(account.toString())",
]


async def _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact: bool) -> Debugger:
    debugger = Debugger(redact=redact, sourcepath=[str(java_source_root)])
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    await debugger.attach(jvm.address, timeout=20)
    await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
    result = await debugger.resume(timeout=30)
    assert result.stopped, result
    return debugger


async def test_reflection_and_secret_printing_to_string_are_refused_under_redact(jvm_factory, default_jdk,
                                                                                  java_source_root, line_of):
    debugger = await _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact=True)
    try:
        for expression in LEAKS:
            with pytest.raises(EvaluationError) as caught:
                view = await debugger.evaluate(expression)
                pytest.fail(f"{expression} answered {view.text}")
            assert "hunter2" not in str(caught.value)
            assert "--redact" in str(caught.value), caught.value
        # By name it is masked, and ordinary calls still work.
        assert (await debugger.evaluate("this.password")).text == "<redacted>"
        assert (await debugger.evaluate("account.user.length()")).text == "5"
        assert "Findings@" in (await debugger.evaluate("this.toString()")).text  # Object's own: no fields
    finally:
        await debugger.close()


async def test_without_redact_reflection_still_works(jvm_factory, default_jdk, java_source_root, line_of):
    debugger = await _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact=False)
    try:
        shown = await debugger.evaluate('this.getClass().getDeclaredField("pass" + "word").get(this)')
        assert "hunter2-REFLECT" in shown.text
        assert "hunter2-TOSTRING" in (await debugger.evaluate("account.toString()")).text
    finally:
        await debugger.close()
