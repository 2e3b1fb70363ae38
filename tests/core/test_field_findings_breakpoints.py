"""Issue 17, points 3-6: breakpoints that were accepted and never fired, on a real JVM.

A simple-name location or field resolves exactly like its qualified form, loaded or not; a deferred method
breakpoint binds on load; `Outer$Inner:N` binds; a line before the first code moves to the next code line;
a line that can never bind is an error at once (with the nearest valid line) and uses up no id.
"""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import InvalidArgument
from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def findings(jvm_factory, java_source_root, jdk):
    """A Debugger (sources on the path) attached to Findings, stopped at VM start (JDK 17 and 25)."""
    debugger = Debugger(sourcepath=[str(java_source_root)])
    jvm = jvm_factory("Findings", "300", jdk=jdk)
    try:
        await debugger.attach(jvm.address, timeout=20)
        yield debugger
    finally:
        await debugger.close()


async def _run_to_ready(debugger: Debugger, line_of) -> None:
    bp = await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-ready')}", temporary=True)
    result = await debugger.resume(timeout=30)
    assert result.stopped and result.stop.breakpoint_id == bp.id, result


async def test_simple_name_watchpoint_on_a_loaded_class_binds_and_fires(findings, line_of):
    await _run_to_ready(findings, line_of)
    bp = await findings.watchpoint_set("Findings.value")  # simple class name, class already loaded
    assert bp.verified, bp.message
    hits = 0
    while True:
        result = await findings.resume(timeout=30)
        if not result.stopped or result.stop.kind is not StopKind.WATCHPOINT_MODIFY:
            break
        hits += 1
    assert hits == 5


async def test_simple_name_watchpoint_set_before_the_class_loads(findings):
    bp = await findings.watchpoint_set("Findings.value")
    assert not bp.verified
    result = await findings.resume(timeout=30)
    assert result.stopped and result.stop.kind is StopKind.WATCHPOINT_MODIFY, result
    assert result.stop.breakpoint_id == bp.id


async def test_deferred_simple_name_method_break_binds_when_the_class_loads(findings, line_of):
    bp = await findings.method_break("FindingsLate.hello")
    assert not bp.verified  # FindingsLate is loaded only at the end
    result = await findings.resume(timeout=30)
    assert result.stopped and result.stop.kind is StopKind.METHOD_ENTRY, result
    assert result.stop.location.class_name == "fixtures.FindingsLate"
    assert result.stop.location.method == "hello"


@pytest.mark.parametrize("written", ["Findings$Inner", "fixtures.Findings$Inner"])
async def test_inner_class_location_binds_simple_or_qualified(findings, line_of, written):
    line = line_of("findings-inner")
    bp = await findings.breakpoint_set(f"{written}:{line}")
    result = await findings.resume(timeout=30)
    assert result.stopped and result.stop.breakpoint_id == bp.id, (result, bp.message)
    assert result.stop.location.class_name == "fixtures.Findings$Inner"
    assert result.stop.location.line == line


async def test_inner_class_location_set_after_load_binds_at_once(findings, line_of):
    await _run_to_ready(findings, line_of)
    await findings.breakpoint_set(f"fixtures.Findings:{line_of('findings-late-call')}")  # Inner is loaded by then
    await findings.resume(timeout=30)
    bp = await findings.breakpoint_set(f"Findings$Inner:{line_of('findings-inner')}")
    assert bp.verified, bp.message


@pytest.mark.parametrize("written", ["Findings", "fixtures.Findings"])
async def test_line_before_the_first_code_moves_to_it_in_a_loaded_class(findings, line_of, written):
    await _run_to_ready(findings, line_of)
    bp = await findings.breakpoint_set(f"{written}:1")  # the package line
    assert bp.verified, bp.message
    first_code = line_of("findings-class")
    assert [loc.line for loc in bp.locations] == [first_code]
    assert f"moved to line {first_code}" in bp.message


async def test_line_before_the_first_code_moves_without_source(jvm_factory, default_jdk, line_of):
    debugger = Debugger()  # no source path: the fixture sources are not found
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    try:
        await debugger.attach(jvm.address, timeout=20)
        await _run_to_ready(debugger, line_of)
        bp = await debugger.breakpoint_set("fixtures.Findings:1")
        assert bp.verified, bp.message
        assert [loc.line for loc in bp.locations] == [line_of("findings-class")]
    finally:
        await debugger.close()


@pytest.mark.parametrize("written", ["FindingsLate:30", "fixtures.FindingsLate:30", "Findings:500"])
async def test_line_past_the_end_is_an_error_at_once_and_uses_no_id(findings, written):
    first = await findings.breakpoint_set("fixtures.Findings:1")
    with pytest.raises(InvalidArgument) as caught:
        await findings.breakpoint_set(written)
    assert "never" in caught.value.message
    assert "nearest line with code is" in caught.value.hint
    after = await findings.breakpoint_set("fixtures.FindingsLate:6")
    assert int(after.id.removeprefix("bp-")) == int(first.id.removeprefix("bp-")) + 1
    assert [b.id for b in await findings.breakpoint_list()] == [first.id, after.id]


async def test_failed_method_break_uses_no_id(findings, line_of):
    await _run_to_ready(findings, line_of)
    first = await findings.breakpoint_set("fixtures.Findings:1")
    with pytest.raises(InvalidArgument):
        await findings.method_break("fixtures.Findings.nosuchmethod")
    after = await findings.method_break("Findings.compute")
    assert after.verified, after.message
    assert int(after.id.removeprefix("bp-")) == int(first.id.removeprefix("bp-")) + 1


async def test_a_simple_name_with_two_source_files_is_not_judged_by_either(tmp_path):
    for package, body in (("a", "int x = 1;\n"), ("b", "int x = 1;\n" * 300)):
        (tmp_path / package).mkdir()
        (tmp_path / package / "Dup.java").write_text(f"package {package};\nclass Dup {{\n{body}}}\n")
    (tmp_path / "a" / "Single.java").write_text("package a;\nclass Single {\n  int x = 1;\n}\n")
    debugger = Debugger(sourcepath=[str(tmp_path)])
    try:
        bp = await debugger.breakpoint_set("Dup:200")  # long enough in b.Dup: it may well bind there
        assert not bp.verified
        with pytest.raises(InvalidArgument, match="Single.java has only 4 lines"):
            await debugger.breakpoint_set("Single:200")
    finally:
        await debugger.close()
