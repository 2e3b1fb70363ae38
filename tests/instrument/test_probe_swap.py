"""Hot swap of an instrumented class keeps its probes: the new bytes are instrumented (issue 26 point 6)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from instrument.test_in_jvm import run_bytecodes
from support import jvm as jvm_support
from tracepilot.core.debugger import Debugger
from tracepilot.core.instrument.classfile import ClassFile

MAIN = "fixtures.HotCondition"


def changed_class(tmp: Path) -> Path:
    """HotCondition with the hot line doing something else (same lines): its class file."""
    source = jvm_support.source_path_of(MAIN).read_text()
    changed = source.replace("sum += i ^ secret; // @bp:hc-body", "sum += (i ^ secret) * 2; // @bp:hc-body")
    assert changed != source
    (tmp / "fixtures").mkdir(parents=True, exist_ok=True)
    (tmp / "fixtures" / "HotCondition.java").write_text(changed)
    subprocess.run([jvm_support.system_javac(), "-g", "--release", "17", "-d", str(tmp / "out"),
                    str(tmp / "fixtures" / "HotCondition.java")], check=True, capture_output=True, timeout=60)
    return tmp / "out" / "fixtures" / "HotCondition.class"



@pytest.mark.timeout(120)
async def test_hot_swapped_new_code_runs_with_the_probe_and_removal_restores_the_new_code(
        jvm_factory, line_of, tmp_path) -> None:
    jvm = jvm_factory(MAIN, "1000", "4")
    new_class = changed_class(tmp_path)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        line = line_of("hc-body")
        bp = await d.breakpoint_set(f"{MAIN}:{line}", condition="i == 600 && sum > 0")
        first = await d.resume(timeout=30)
        assert first.stop.breakpoint_id == bp.id
        swapped = await d.hotswap(str(new_class))
        assert swapped.redefined == [MAIN], swapped
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
        # Round 0 ends in the old code; round 1 runs the new code, through the probe.
        second = await d.resume(timeout=30)
        assert second.stop.breakpoint_id == bp.id and second.stop.location.line == line
        values = {v.name: v.value.text for v in await d.locals()}
        assert values["i"] == "600" and values["sum"] == str(sum((i ^ 3) * 2 for i in range(600)))
        # Removed while this thread runs the method: the probe goes inert, and the class is restored (as
        # hot-swapped, not as first loaded) once no thread is inside it, at the next resume of all threads.
        await d.breakpoint_remove(bp.id)
        after_round = await d.breakpoint_set(f"{MAIN}:{line_of('hc-round')}", suspend="all")
        assert (await d.resume(timeout=30)).stop.breakpoint_id == after_round.id  # round 1 returned
        assert (await d.resume(timeout=30)).stop.breakpoint_id == after_round.id  # round 2 ran, restored
        new_run = ClassFile.parse(new_class.read_bytes()).method("run", "(I)J").code.code
        assert await run_bytecodes(d) == new_run
        await d.breakpoint_remove(after_round.id)
        assert not (await d.resume(timeout=30)).stopped
    finally:
        await d.close()
