"""Threads, stack, source views, classes, heap, referrers, marks and watchers against real JVMs."""

from __future__ import annotations

import pytest
from _inspect_support import stop_at

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import NotFound

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def debugger(java_source_root):
    d = Debugger(sourcepath=[str(java_source_root)])
    try:
        yield d
    finally:
        await d.close()


async def test_threads_stack_and_source(debugger, jvm_factory, line_of, jdk):
    body = line_of("compute-body")
    await stop_at(debugger, jvm_factory, "Playground", body, "50", jdk=jdk)
    threads = await debugger.threads()
    main = next(t for t in threads if t.name == "main")
    assert main.current and main.suspended and main.group == "main" and not main.is_virtual
    assert main.location.method == "compute" and main.location.line == body
    assert not any(t.is_system for t in threads)
    assert any(t.is_system for t in await debugger.threads(include_system=True))
    frames = await debugger.stack(locals=True)
    assert [f.location.method for f in frames[:2]] == ["compute", "main"]
    assert frames[0].index == 0 and frames[1].location.line == line_of("loop-call")
    assert {v.name for v in frames[0].locals} == {"this", "x"}  # `doubled` is not live yet
    assert [f.location.method for f in await debugger.stack(start=1, count=1)] == ["main"]
    main_locals = {v.name: v for v in await debugger.locals(frame=1)}
    assert main_locals["args"].kind == "argument" and "p" in main_locals and "i" in main_locals
    view = await debugger.source(context=1)
    assert [ln.number for ln in view.lines] == [body - 1, body, body + 1]
    current = next(ln for ln in view.lines if ln.current)
    assert current.number == body and current.breakpoints == ["bp-1"] and "@bp:compute-body" in current.text
    assert "B=>" in view.render()
    other = await debugger.source(f"Playground:{line_of('loop-call')}", context=0)
    assert len(other.lines) == 1 and "p.compute(i)" in other.lines[0].text


async def test_classes_with_members_and_did_you_mean(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Playground", line_of("compute-body"), "50")
    found = await debugger.classes("fixtures.Play*", members=True)
    pg = next(c for c in found if c.name == "fixtures.Playground")
    assert pg.source_file == "Playground.java"
    compute = next(m for m in pg.methods if m.name == "compute")
    assert compute.signature == "int compute(int)" and compute.lines == [line_of("compute-body"), line_of("compute-return")]
    assert {"counter", "name", "staticCounter"} <= {f.name for f in pg.fields}
    with pytest.raises(NotFound) as err:
        await debugger.classes("fixtures.Playgrund")
    assert "fixtures.Playground" in err.value.suggestions


async def test_heap_referrers_and_marks(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"))
    counts = {h.class_name: h.count for h in await debugger.heap("fixtures.Values$*")}
    assert counts["fixtures.Values$Point"] == 2 and counts["fixtures.Values$Color"] == 3
    refs = await debugger.referrers("objs[3]")
    assert refs.target.text == "Values$Point[x=1, y=2]"
    assert any(r.value.type == "java.lang.Object[]" and r.via == ["[3]"] for r in refs.referrers)
    mark = await debugger.mark("point", "pt")
    assert mark.label == "pt" and mark.value.text == "Values$Point[x=3, y=4]"
    assert (await debugger.evaluate("$pt.x")).text == "3"
    assert [m.label for m in await debugger.marks()] == ["pt"]
    await debugger.inspector.rename_mark("pt", "where")
    await debugger.reset()  # marks survive reset
    assert (await debugger.inspect("$where")).children[0].value.text == "3"
    removed = await debugger.unmark("where")
    assert removed.label == "where" and await debugger.marks() == []
    with pytest.raises(NotFound):
        await debugger.inspect("$where")


async def test_watchers_keep_history_and_report_changes(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "50")
    watch = await debugger.watch_add("p.counter")
    assert watch.id == "w1" and watch.value.text == "0"
    only_bp = await debugger.watch_add("i", breakpoint="bp-1")
    for _ in range(2):
        assert (await debugger.resume(timeout=15)).stopped
    snap = await debugger.snapshot()
    assert "p.counter" in snap.changed and "i" in snap.changed
    watches = {w.expression: w for w in await debugger.watches()}
    assert [s.text for s in watches["p.counter"].history] == ["0", "1", "2"]
    assert watches["p.counter"].changed and watches["i"].value.text == "2"
    changed_locals = {v.name for v in await debugger.locals() if v.changed}
    assert "i" in changed_locals
    assert snap.frames[0].locals and snap.source is not None and snap.thread.name == "main"
    await debugger.watch_remove(only_bp.id)
    assert [w.id for w in await debugger.watches()] == ["w1"]
    await debugger.reset()
    assert await debugger.watches() == []
