"""A listing of every loaded class (VirtualMachine.AllClasses: binding a breakpoint by a simple name or a file,
completion, class and heap queries) hands the debugger one JDWP ID per class, and the JDWP agent pins every ID it
has handed out at each suspend-all stop and unpins it at the resume: ~0.2 us per ID per stop, ~0.1 ms a stop on a
bare JVM, ~1 ms on a server. The listing's references are given back at once (DisposeObjects); a class known only
from it is found again by signature when its ID is needed. Checked against the JVM: the given-back IDs are gone,
the ones in use answer. Never timed (benchmarks/bench_latency.py measures the stop)."""

from __future__ import annotations

import pytest
from _inspect_support import stop_at

from tracepilot.jdwp import JdwpError, ReferenceType

pytestmark = pytest.mark.timeout(90)


async def _alive(vm, type_id: int) -> bool:
    try:
        await vm.send(ReferenceType.Signature, type_id)
    except JdwpError:
        return False
    return True


async def test_a_listing_leaves_the_jvm_no_id_of_a_class_the_debugger_does_not_use(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "100000", "nosleep")  # (by simple name)
    vm = debugger.session.require_vm()
    listing = await vm.all_classes(refresh=True)
    listed = [t for t in listing if t.listed and t.name.startswith("java.util.")]
    assert len(listed) > 20, [t.name for t in listing][:40]  # the JDK's classes, known from the listing only
    assert not any([await _alive(vm, t.id) for t in listed[:10]])  # their IDs given back: gone from the agent
    stopped_in = debugger.session.stop.location.class_name
    own = next(t for t in listing if t.name == stopped_in)
    assert not own.listed and await _alive(vm, own.id)  # the class with the breakpoint keeps its ID

    acquired = await vm.acquire(listed[:3])  # what a caller picks is found again by signature
    assert [t.name for t in acquired] == [t.name for t in listed[:3]]
    assert all([await _alive(vm, t.id) for t in acquired]) and not any(t.listed for t in acquired)
    assert {t.name for t in await vm.all_classes()} >= {t.name for t in listing}  # nothing lost from the list

    result = await debugger.resume(timeout=20)  # and stops still stop where they did
    assert result.stopped and result.stop.location.line == line_of("loop-body"), result.headline()


async def test_a_file_breakpoint_gives_back_the_classes_it_only_looked_at(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "100000", "nosleep")
    vm = debugger.session.require_vm()
    before = {t.name for t in await vm.all_classes(refresh=True) if not t.listed}
    bp = await debugger.breakpoint_set(f"Playground.java:{line_of('loop-body')}")  # reads every class's source
    assert bp.verified, bp
    after = {t.name for t in await vm.all_classes(refresh=True) if not t.listed}
    # None kept but where it bound (and what the stop's locals name: String[]); it looked at hundreds
    assert len(after - before) <= 3 and not any(n.startswith(("java.util.", "jdk.", "sun.")) for n in after - before), \
        sorted(after - before)[:20]
    listed_now = {t.name for t in await vm.all_classes()}  # (no refresh: what completion and class lists read)
    assert listed_now >= before | after and "java.util.HashMap" in listed_now  # the given-back ones still listed
    result = await debugger.resume(timeout=20)
    assert result.stopped and result.stop.location.line == line_of("loop-body"), result.headline()
