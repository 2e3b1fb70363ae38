"""reach.py on real class files (compiled fixtures): may a call standing at some code index still reach the
place where a point's probe is called? A capture point moves into the JVM while threads are inside its method
only if none can (else the hit such a call makes on the original code would be lost)."""

from __future__ import annotations

from tracepilot.core.instrument import bytecode as bc
from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.instrument.insert import line_start
from tracepilot.core.instrument.method_sites import ENTRY
from tracepilot.core.instrument.reach import probe_places, reaches


def _method(java_classes, name: str, method: str):  # noqa: ANN001
    data = (java_classes / "fixtures" / f"{name}.class").read_bytes()
    cf = ClassFile.parse(data)
    found = next(m for m in cf.methods if cf.member_name(m) == method)
    return data, found.code, cf.member_name(found) + cf.member_descriptor(found)


def test_a_loop_reaches_its_own_line_again_a_straight_method_does_not(java_classes, line_of) -> None:
    data, spin, key = _method(java_classes, "Ticker", "spin")
    place = line_start(spin, line_of("ticker-spin"))
    assert probe_places(data, line_of("ticker-spin"), "line", ()) == {key: {place}}
    after = place + bc.decode(spin.code[place:])[0].length
    assert reaches(spin, after, {place})  # in the loop: the next round comes back to the line

    _, handle, _ = _method(java_classes, "CaptureService", "handle")
    place = line_start(handle, line_of("capture-line"))
    assert reaches(handle, 0, {place})  # not there yet
    sleep = next(i.offset for i in bc.decode(handle.code) if i.offset > place and i.opcode == bc.INVOKESTATIC)
    assert not reaches(handle, sleep + 3, {place})  # past it, no loop: that call cannot come back to it
    assert reaches(handle, place, {place})  # standing on it: its hit is still to come


def test_an_exception_handler_counts_as_a_way_back(java_classes) -> None:
    _, run, _ = _method(java_classes, "CaptureService", "lambda$main$0")
    # handle(request, worker): the static call whose int result is dropped
    handle_call = next(i.offset for i in bc.decode(run.code)
                       if i.opcode == bc.INVOKESTATIC and run.code[i.offset + 3] == bc.POP)
    # The worker's loop: from after its call to handle(), the loop comes round to the start of the body.
    body = min(i.offset for i in bc.decode(run.code) if i.opcode == bc.NEW)
    assert reaches(run, handle_call + 3, {body})
    assert run.exceptions  # (the catch of InterruptedException: reached from inside the try)
    handler = run.exceptions[0].handler_pc
    assert reaches(run, run.exceptions[0].start_pc, {handler})
    assert probe_places(b"not a class", 1, "line", ()) is None
    assert probe_places((java_classes / "fixtures" / "Ticker.class").read_bytes(), 0, ENTRY, ("spin()I",)) == \
        {"spin()I": {0}}
