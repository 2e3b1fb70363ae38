"""`capture at` and `captures` at the prompt (issue 31): the catalog binds them to breakpoint_set's capture and
to the captures tool."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(90)


async def test_capture_at_then_captures(drive, line_of):
    await drive.attach("Captured")
    line = line_of("captured-line")
    set_result = await drive(f'capture at fixtures.Captured:{line} times 2 if i >= 2 show "chain.label; round"')
    assert set_result.text.startswith("Set bp-1 line fixtures.Captured:") and "capture 0/2" in set_result.text
    await drive(f"stop at fixtures.Captured:{line_of('captured-end')}")
    stopped = await drive("cont")
    assert stopped.stop.location.line == line_of("captured-end"), stopped.text
    shown = await drive("captures")
    assert [c.number for c in shown.data] == [1, 2]
    assert f"capture bp-1 #1 at Captured.step:{line}" in shown.text and 'chain.label = "a2"' in shown.text
    assert 'chain.label = "a3"' in shown.text and "round = 3" in shown.text, shown.text
    assert "names = ArrayList" in shown.text and "[20 of 25 elements]" in shown.text
    one = await drive("captures bp-1 limit 1")
    assert len(one.data) == 1
    listed = await drive("info breakpoints")
    assert "capture 2/2 done" in listed.text, listed.text
    bad = await drive.fails(f"capture at fixtures.Captured:{line} times zero")
    assert "`times` needs a number" in bad.text


async def test_exception_capture_records_the_exception_and_never_stops(drive, line_of):
    await drive.attach("Exceptions")
    point = await drive.debugger.exception_break("fixtures.Exceptions$ExceptionB", capture=2,
                                                 expressions=["$exception.getMessage()", "i"])
    await drive(f"stop at fixtures.Exceptions:{line_of('exceptions-summary')}")
    stopped = await drive("cont")
    assert stopped.stop.location.line == line_of("exceptions-summary"), stopped.text
    shown = await drive(f"captures {point.id}")
    assert [c.frames[0].location.method for c in shown.data] == ["throwB", "throwB"], shown.text
    assert '$exception.getMessage() = "b' in shown.text and "i = " in shown.text, shown.text
