"""The rule a capture taken without holding the thread must keep (issue 31, "In the JVM"): its values come
from the in-JVM copy alone. Rendered that way at a held hit, a capture equals the one read over JDWP; where
the copy lacks a value that changes (a field, elements, a collection's contents), CopyIncomplete says what,
and nothing is rendered from a guess."""

from __future__ import annotations

import pytest

from tracepilot.core.capture.model import CaptureLimits
from tracepilot.core.capture.prefetch import CopyIncomplete
from tracepilot.core.debugger import Debugger

from .views import frames

MAIN = "fixtures.CapturedPlain"

pytestmark = pytest.mark.timeout(60)




async def test_a_capture_from_the_copy_alone_equals_the_jdwp_reading_or_says_what_it_lacks(
        jvm_factory, line_of) -> None:
    d = Debugger()
    try:
        await d.attach(jvm_factory(MAIN).address, timeout=10)
        await d.breakpoint_set(f"{MAIN}:{line_of('plain-line')}", condition="i == 2 || i == 3")
        captures = d.session.breakpoints.captures
        limits = CaptureLimits(frames=1)

        stop = await d.resume(timeout=30)  # i == 2: a list of program objects, a map, strings, arrays
        assert stop.stopped and stop.stop.location.line == line_of("plain-line"), stop
        thread = stop.stop.thread_id
        read = await captures.read(thread, limits, [])
        only = await captures.read(thread, limits, [], copy_only=True)
        assert only.copy.startswith("values copied in the JVM"), only.copy  # (the copier's verdict: complete)
        assert frames(only) == frames(read) and only.cuts == read.cuts
        top = {v.name: v for v in only.frames[0].locals}
        assert [c.text for c in top["items"].children[0].children][:1] == ['"item-2-0"'], top["items"]
        for depth in (1, 3):  # (other limits: what the copier says it covers, it covers)
            other = CaptureLimits(frames=depth, depth=depth, items=2, fields=3)  # (callers: summaries)
            assert frames(await captures.read(thread, other, [], copy_only=True)) == \
                frames(await captures.read(thread, other, [])), depth
        with pytest.raises(CopyIncomplete, match="expression"):
            await captures.read(thread, limits, ["i + 1"], copy_only=True)

        stop = await d.resume(timeout=30)  # i == 3: an unmodifiable wrapper the copy leaves to JDWP
        assert stop.stopped, stop
        with pytest.raises(CopyIncomplete, match=r"lacks a java\.util\.Collections\$UnmodifiableRandomAccessList"):
            await captures.read(stop.stop.thread_id, limits, [], copy_only=True)
        read = await captures.read(stop.stop.thread_id, limits, [])  # (the held read still serves)
        assert '"u1"' in str(frames(read)), frames(read)
    finally:
        await d.close()
