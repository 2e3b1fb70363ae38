"""Issue 25, point 6: strings an evaluation creates in the target are released, and capped.

A string literal (or a string the evaluator computed) is created in the target with CreateString. The
evaluation keeps it from being collected while it runs and lets it go after; the value shown gets no
handle that would pin it until reset. A string too long to create is refused with the limit. Real JVM
with a small heap: pinned strings would run it out of memory.
"""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import EvaluationError

pytestmark = pytest.mark.timeout(120)

HEAP_MB = 16
LITERAL_CHARS = 60_000  # under the limit; 300 of them are more than the heap holds


async def test_evaluated_string_literals_are_released_and_capped(jvm_factory, line_of):
    target = jvm_factory("Findings", "300", jvm_args=[f"-Xmx{HEAP_MB}m"])
    debugger = Debugger(read_only=True)
    try:
        await debugger.attach(target.address)
        await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
        assert (await debugger.resume(timeout=30)).stopped
        for i in range(300):
            literal = f"{i:05d}" + "y" * (LITERAL_CHARS - 5)
            view = await debugger.evaluate(f'"{literal}"')
            assert view.size == LITERAL_CHARS and view.handle is None, (i, view.handle)
        with pytest.raises(EvaluationError, match="too long to create in the target") as refused:
            await debugger.evaluate('"' + "x" * (1024 * 1024) + '"')
        assert "65536" in str(refused.value) and len(str(refused.value)) < 300  # (the literal is not echoed)
        view = await debugger.evaluate('"still" + " fine"')
        assert view.text == '"still fine"'
        assert target.returncode is None
    finally:
        await debugger.close()
