"""Many conditions in one class: each new one costs about the same, not more with every one set before
(issue 26 point 6): the class's code is decoded and laid out once per instrumentation, not once per probe."""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.instrument import insert

MAIN = "fixtures.ManyLines"


@pytest.mark.timeout(120)
async def test_forty_conditions_in_one_method_each_instrument_in_one_pass_and_all_stop(
        jvm_factory, line_of, monkeypatch) -> None:
    jvm = jvm_factory(MAIN, "1000", "2")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.breakpoint_set(f"{MAIN}:{line_of('ml-round')}")
        await d.resume(timeout=30)  # in main, run() has returned: conditions set now go in-JVM at once
        decodes = 0
        real_decode = insert.bc.decode

        def counting(code: bytes) -> list:
            nonlocal decodes
            decodes += 1
            return real_decode(code)

        monkeypatch.setattr(insert.bc, "decode", counting)
        bps = []
        for k in range(40):
            decodes = 0
            # (One a line: a line's breakpoints are one event, and take the round trip together.)
            bps.append(await d.breakpoint_set(f"{MAIN}:{line_of(f'ml-{k}')}", condition=f"i == {100 + 3 * k}"))
            assert bps[-1].mode == "in-JVM", bps[-1].mode
        # A few decodes per breakpoint (run()'s code, its payloads, the check of which methods the new bytes
        # change), not 40 of each.
        assert decodes <= 6, decodes
        for k in range(40):
            stop = await d.resume(timeout=30)
            assert stop.stop.breakpoint_id == bps[k].id, (k, stop.stop)
            assert {v.name: v.value.text for v in await d.locals()}["i"] == str(100 + 3 * k)
    finally:
        await d.close()
