"""Issue 32's slow, misleading answers on a hot leaf loop, traced in the JVM (TraceShop "hot": chunk(1000)
calls hot(int) for ever): the program keeps running near full speed (by round trip 13-33k calls/s), the
duration asked for is kept, the leaf is a leaf, and its time is not made up from the probe's cost."""

from __future__ import annotations

import time

import pytest

from tracepilot.core.render import trace as render_trace

pytestmark = pytest.mark.timeout(60)

C = "fixtures.TraceShop."


async def test_hot_leaf_loop_traced_in_the_jvm(debugger, jvm_factory, line_of):
    jvm = jvm_factory("TraceShop", "hot")
    await debugger.attach(jvm.address, timeout=10)
    bp = await debugger.breakpoint_set(f"{C[:-1]}:{line_of('trace-chunk')}")
    stop = await debugger.resume(timeout=20)
    while stop.stopped and stop.stop.breakpoint_id != bp.id:  # the VM's start
        stop = await debugger.resume(timeout=20)
    await debugger.breakpoint_remove(bp.id)
    began = time.monotonic()
    result = await debugger.trace(C[:-1], duration=2, max_calls=3, resume=True)
    took = time.monotonic() - began
    text = render_trace(result)
    assert result.mode == "in-JVM", text
    assert 1.5 <= result.duration_ms / 1000 <= 2.5 and took <= 2 + 8, text  # kept (+ instrumenting, javac under load)
    # Counting every call (max_calls bounds the calls recorded with values, never the counting): millions a
    # second where the round trip gets tens of thousands.
    hot = next(m for m in result.methods if m.method == f"{C}hot(int)")
    assert hot.calls >= 2_000_000, text
    chunk = next(m for m in result.methods if m.method == f"{C}chunk(int)")
    # Exact: 1,000 a chunk. The chunk main was inside at the start runs the code it started with, and main's
    # compiled loop may run a few more such chunks before it is instrumented where it returns (the answer says
    # so: "instrumented when it had left them"); their leaves are counted as roots, so the relation is read
    # in main's tree, under chunk.
    tree = {node.method: node for node in result.call_tree}
    under_chunk = next(c for c in tree[f"{C}chunk(int)"].children if c.method == f"{C}hot(int)")
    assert under_chunk.calls in range(1000 * (chunk.calls - 1), 1000 * chunk.calls + 1), text
    roots = tree.get(f"{C}hot(int)")
    assert hot.calls == under_chunk.calls + (roots.calls if roots else 0), text
    assert roots is None or "instrumented when it had left them" in text, text
    # A leaf called from a loop is a leaf; its time is not the probe's (counted, not timed), its caller's is.
    def leaves_are_leaves(nodes):
        for node in nodes:
            if node.method.endswith("hot(int)"):
                assert not node.children, text
            leaves_are_leaves(node.children)
    leaves_are_leaves(result.call_tree)
    assert hot.own_ms is None and chunk.own_ms is not None and chunk.total_ms > 0, text
    assert "counted, not timed" in text
    # The first calls recorded, bounded by max_calls per method: chunk's argument, the leaf's first values.
    firsts = [c for c in result.first_calls if c.method == f"{C}hot(int)"]
    assert len(firsts) == 3 and all(c.arguments[0].startswith("i=") for c in firsts), text
    assert len([c for c in result.first_calls if c.method == f"{C}chunk(int)"]) == 3, text
    assert any(c.method == f"{C}chunk(int)" and c.arguments == ["n=1000"] for c in result.first_calls), text
