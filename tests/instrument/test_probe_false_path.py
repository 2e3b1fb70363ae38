"""The path a call of a probe takes while no thread waits in SKIP and FORCE is not set (every call of a
condition that stays false) reads one volatile field before the condition, not two (issue 32: a false in-JVM
condition should cost about what its own expression costs). The other paths are the real-JVM tests'."""

from __future__ import annotations

from tracepilot.core.instrument import bytecode as bc
from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.instrument.probe import build_probe


def _check_method(data: bytes):
    cf = ClassFile.parse(data)
    method = next(m for m in cf.methods if cf.pool.utf8(m.name_index) == "check")
    return cf.pool, method.code


def test_a_call_with_nothing_waiting_reads_only_any_before_the_condition():
    pool, code = _check_method(build_probe("tp/Probe", [], None, None).data)
    by_offset = {ins.offset: ins for ins in bc.decode(code.code)}
    ins, read = by_offset[0], []
    while True:
        if ins.opcode == bc.GETSTATIC:
            read.append(pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))[1])
            ins = by_offset[ins.offset + ins.length]
        elif ins.opcode == bc.IFEQ:  # the field just read is false
            ins = by_offset[ins.targets[0]]
        elif ins.opcode == bc.INVOKESTATIC:
            called = pool.member_ref(int.from_bytes(code.code[ins.offset + 1:ins.offset + 3], "big"))[1]
            break
        else:
            raise AssertionError(f"unexpected opcode {ins.opcode:#x} at {ins.offset}")
    assert read == ["ANY"]
    assert called == "hit"  # no condition: straight to it
