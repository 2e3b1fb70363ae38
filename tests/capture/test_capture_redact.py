"""--redact holds for every captured value (issue 31): a capture point in a frame full of secrets — locals,
fields, a record, an array, a map and Properties with secret keys, an expression naming a secret — shows
<redacted> in the captures answer, its structured form, the history and the stop answer, and ordinary values
still show."""

from __future__ import annotations

import pytest

from tracepilot.core import render
from tracepilot.core.debugger import Debugger

SECRET_TEXTS = ("hunter2", "cfg-PASSWORD", "props-SECRET", "s3-MAP", "pw-LOCAL", "tok-STATIC")

pytestmark = pytest.mark.timeout(90)


def no_secret(text: str, what: str) -> None:
    leaked = [s for s in SECRET_TEXTS if s in text]
    assert not leaked, f"{what} leaked {leaked}: {text[:800]}"


async def test_captured_values_are_redacted(jvm_factory, line_of) -> None:
    d = Debugger(redact=True)
    try:
        await d.attach(jvm_factory("Secrets").address, timeout=20)
        point = await d.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-leaks')}", capture=1,
                                       expressions=["u.password", "cfg", "login", "u.name"],
                                       capture_limits={"depth": 3})
        await d.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-stop')}", condition="round == 3")
        stop = await d.resume(timeout=30)
        assert stop.stopped, stop
        found = await d.captures(point.id, wait=10)
        assert len(found) == 1, found
        text = render.captures(found)
        no_secret(text, "captures text")
        no_secret(repr([c.to_dict() for c in found]), "captures structured")
        no_secret(render.events(await d.events(kinds=["capture"])), "capture events")
        no_secret(render.wait_result(stop), "stop answer")
        assert "<redacted>" in text and 'u.name = "alice"' in text, text
        assert '"host"' in text and '"db.local"' in text, text  # a map's ordinary entry still shows
    finally:
        await d.close()
