"""Values shown as a person reads them, where the raw fields mislead (one JVM for all of it):

- a lambda: its class is a hidden class (`SelfNamed$$Lambda$14/0x00007f...`), whose last name part is an
  address; it shows as `SelfNamed$$Lambda{arg$1=2}` (IntelliJ: `{SelfNamed$$Lambda@1234}`), its type stays exact;
- an exception nobody gave a cause: Throwable's `cause` field holds the exception itself ("not set yet";
  getCause() answers null), so it shows no cause rather than a nested copy of itself; a real cause still shows.
Everywhere values are shown: locals, inspect's children, captures, exception stops.
"""

from __future__ import annotations

import pytest

from tracepilot.core.model import StopKind

pytestmark = pytest.mark.timeout(60)

MAIN = "fixtures.SelfNamed"


def _by_name(items) -> dict:
    return {x.name: x for x in items}


async def test_lambdas_and_self_caused_exceptions_read_as_people_read_them(debugger, java_classes, line_of,
                                                                           default_jdk):
    await debugger.launch(main=MAIN, classpath=str(java_classes))
    await debugger.exception_break("java.lang.NumberFormatException")
    # (a capture opens a JDK class's fields, Throwable's here, only when asked)
    point = await debugger.breakpoint_set(f"{MAIN}:{line_of('self-named-capture')}", capture=1,
                                          capture_limits={"jdk_internals": True})
    await debugger.breakpoint_set(f"{MAIN}:{line_of('self-named')}")

    thrown = await debugger.resume(timeout=20)
    assert thrown.stop.kind is StopKind.EXCEPTION, thrown.headline()
    assert thrown.stop.exception.class_name == "java.lang.NumberFormatException"
    assert thrown.stop.exception.causes == []  # (its cause field is itself)

    stop = await debugger.resume(timeout=20)
    assert stop.stop.kind is StopKind.BREAKPOINT, stop.headline()
    local = _by_name(await debugger.locals())

    lam = local["lambda"].value
    assert lam.text == "SelfNamed$$Lambda{arg$1=2}", lam.text
    assert lam.type.startswith("fixtures.SelfNamed$$Lambda") and "0x" in lam.type  # the exact class, kept

    caught = local["caught"].value
    assert caught.text.count("NumberFormatException") == 1 and "cause=null" in caught.text, caught.text
    fields = _by_name((await debugger.inspect("caught")).children)
    assert fields["cause"].value.kind == "null" and fields["cause"].value.text == "null"

    wrapped = local["wrapped"].value  # a real cause shows, and its own unset cause does not
    assert "cause=NumberFormatException{" in wrapped.text and wrapped.text.count("NumberFormatException") == 1
    fields = _by_name((await debugger.inspect("wrapped")).children)
    assert fields["cause"].value.handle == caught.handle

    captured = (await debugger.captures(point.id, wait=10))[0]
    values = _by_name(captured.frames[0].locals)
    assert values["lambda"].text == "SelfNamed$$Lambda{arg$1=2}", values["lambda"].text
    assert "cause=null" in values["caught"].text and values["caught"].text.count("NumberFormatException") == 1
    cause = _by_name(values["caught"].children)["cause"]
    assert cause.kind == "null", cause
    assert "cause=NumberFormatException{" in values["wrapped"].text
