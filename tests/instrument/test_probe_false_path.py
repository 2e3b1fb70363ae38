"""The path a call of a probe takes while its condition is false and no thread waits in SKIP (every call of a
condition that stays false on a hot line). A condition that can neither throw nor change anything is tested
first and, false, returns without reading a field: a false in-JVM condition costs what the same test written
in Java costs (issue 32; a volatile read per call kept C2 from taking the test out of a loop on JDK 25). Any
other condition reads two volatile fields before it (WAITER and ANY), not three. The other paths are the real-JVM tests'."""

from __future__ import annotations

from tracepilot.core.instrument import bytecode as bc
from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.instrument.probe import build_probe
from tracepilot.core.instrument.shapes import Capture, Typed

LONG_I = [Capture("local", "J", slot=1)]
I_BELOW_ZERO = Typed("compare", "Z", [Typed("capture", "J", value=0), Typed("const", "J", value=0)], ("<", "J"))


def _false_path(data: bytes) -> tuple[list[str], str]:
    """Follow check() from its start, every field read false and the condition false: the fields read on
    the way, and where it ends ("return", or the method it calls)."""
    cf = ClassFile.parse(data)
    method = next(m for m in cf.methods if cf.pool.utf8(m.name_index) == "check")
    code, pool = method.code, cf.pool
    by_offset = {ins.offset: ins for ins in bc.decode(code.code)}
    ins, read = by_offset[0], []
    while True:
        if ins.opcode == bc.GETSTATIC:
            read.append(pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))[1])
        elif ins.opcode in (bc.IFEQ, bc.IFGE, bc.IFNULL):  # the field just read is false or null; i >= 0
            ins = by_offset[ins.targets[0]]
            continue
        elif ins.opcode == bc.INVOKESTATIC:
            return read, pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))[1]
        elif ins.opcode == bc.RETURN:
            return read, "return"
        elif ins.opcode not in (bc.LLOAD, bc.LCONST_0, bc.LCMP):
            raise AssertionError(f"unexpected opcode {ins.opcode:#x} at {ins.offset}")
        ins = by_offset[ins.offset + ins.length]


def test_a_call_with_nothing_waiting_reads_waiter_and_any_before_hit():
    assert _false_path(build_probe("tp/Probe", [], None, None).data) == (["WAITER", "ANY"], "hit")  # no condition


def test_a_false_pure_condition_returns_without_reading_a_field():
    assert _false_path(build_probe("tp/Probe", LONG_I, I_BELOW_ZERO, None).data) == ([], "return")


def test_a_condition_that_calls_reads_any_before_it():
    calls = Typed("invokestatic", "Z", [], ("tp/Other", "test", "()Z", False))
    read, ends = _false_path(build_probe("tp/Probe", [], calls, None).data)
    assert (read, ends) == (["WAITER", "ANY"], "test")


def test_a_probe_built_to_gate_first_reads_any_before_even_a_pure_condition():
    """What the debugger builds while a thread waits in SKIP of the probe it replaces (see jvm.update)."""
    probe = build_probe("tp/Probe", LONG_I, I_BELOW_ZERO, None, gate_first=True)
    assert _false_path(probe.data) == (["WAITER", "ANY"], "return")
