"""A capture point set on a running program whose method has run already (its class loaded): the hit that
starts its move into the JVM is captured by round trip, and the hits after the move in the JVM. A method an
agent's one request reaches once must not go by uncaptured (found with jshell's JShell.eval)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger

MAIN = "fixtures.OnDemand"

pytestmark = pytest.mark.timeout(60)


async def test_the_first_hit_of_a_point_set_while_running_is_captured(jvm_factory, line_of, tmp_path) -> None:
    requests = tmp_path / "requests"
    requests.mkdir()
    target = jvm_factory(MAIN, str(requests), suspend=False)
    target.wait_for_output("ready")
    d = Debugger()
    try:
        await d.attach(target.address, timeout=10)
        point = await d.breakpoint_set(f"{MAIN}:{line_of('on-demand')}", capture=2, expressions=["name"])
        (requests / "first").touch()
        found = await d.captures(point.id, wait=10)
        assert [c.expressions[0].text for c in found] == ['"first"'], [(c.via, c.note) for c in found]
        assert found[0].via == "round trip" and found[0].hit == 1, (found[0].via, found[0].hit)
        await asyncio.to_thread(target.wait_for_output, "handled first")  # (the loop goes on meanwhile)
        (requests / "second").touch()  # in the JVM now (moved where the first hit's call returned)
        more = await d.captures(point.id, wait=10, since=found[0].seq)
        assert [c.expressions[0].text for c in more] == ['"second"'], [(c.via, c.note) for c in more]
        assert more[0].via == "in-JVM (not held)" and more[0].hit == 2, (more[0].via, more[0].hit)
        assert not [r for r in d.history.since(0) if r.kind == "stop"]
    finally:
        await d.close()
