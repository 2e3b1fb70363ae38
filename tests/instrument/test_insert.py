"""Code insertion: every offset moves consistently, and the JVM's verifier accepts the result."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tracepilot.core.instrument import bytecode as bc
from tracepilot.core.instrument.classfile import ClassFile, LineNumberTable, StackMapTable
from tracepilot.core.instrument.insert import NotInstrumentable, insert_code, line_start

from .test_classfile import jdk_module_classes


def nanotime_payload(cf: ClassFile, nops: int) -> bytes:
    """`nops` nops (to move switch padding), then a call that pushes a long, then pop2: no net effect."""
    ref = cf.pool.add_method_ref("java/lang/System", "nanoTime", "()J")
    return bytes([bc.NOP] * nops + [bc.INVOKESTATIC]) + ref.to_bytes(2, "big") + bytes([bc.POP2])


def every_line_start(code) -> list[int]:
    return sorted({e.start_pc for t in code.find(LineNumberTable) for e in t.entries})


def test_offsets_move_consistently_in_jdk_methods() -> None:
    checked = 0
    for _name, data in jdk_module_classes(300):
        cf = ClassFile.parse(data)
        for method in cf.methods:
            code = method.code
            if code is None or not any(i.is_switch for i in bc.decode(code.code)):
                continue
            starts = every_line_start(code)
            if not starts:
                continue
            at = starts[len(starts) // 2]
            before = bc.decode(code.code)
            frames_before = [f.offset for t in code.find(StackMapTable) for f in t.frames]
            size = len(code.code)
            payload = nanotime_payload(cf, checked % 4)
            insert_code(code, cf.pool, at, payload, 2)
            after = bc.decode(code.code)
            # Same instructions, the payload in front of `at`, every target remapped.
            new_at = next(i.offset for i in after if i.offset >= at)  # the payload starts where `at` was
            assert len(after) == len(before) + len(bc.decode(payload))
            assert [i.opcode for i in after if not (new_at <= i.offset < new_at + len(payload))] == [
                i.opcode for i in before]
            remap = {}
            kept = [i for i in after if not (new_at <= i.offset < new_at + len(payload))]
            for old, new in zip(before, kept, strict=True):
                remap[old.offset] = new.offset
            remap[size] = len(code.code)
            for old, new in zip(before, kept, strict=True):
                expected = [new_at if t == at else remap[t] for t in old.targets]
                assert new.targets == expected, (old, new)
            frames_after = [f.offset for t in code.find(StackMapTable) for f in t.frames]
            assert frames_after == [new_at if o == at else remap[o] for o in frames_before]
            checked += 1
        ClassFile.parse(cf.to_bytes())  # still a readable class
    assert checked > 20


def instrument_every_line(path: Path) -> int:
    cf = ClassFile.parse(path.read_bytes())
    count = 0
    for method in cf.methods:
        code = method.code
        if code is None:
            continue
        for line in sorted({e.line for t in code.find(LineNumberTable) for e in t.entries}):
            at = line_start(code, line)
            insert_code(code, cf.pool, at, nanotime_payload(cf, count % 4), 2)
            count += 1
    path.write_bytes(cf.to_bytes())
    return count


@pytest.mark.timeout(120)
def test_the_verifier_accepts_code_inserted_at_every_line(java_classes: Path, jdks: dict[str, str],
                                                          tmp_path: Path) -> None:
    java = jdks.get("17")
    if java is None:
        pytest.skip("no JDK 17")
    original = subprocess.run([java, "-cp", str(java_classes), "fixtures.Instrumented"], capture_output=True,
                              text=True, timeout=60)
    assert original.returncode == 0, original.stderr
    copy = tmp_path / "classes"
    shutil.copytree(java_classes / "fixtures", copy / "fixtures")
    inserted = instrument_every_line(copy / "fixtures" / "Instrumented.class")
    assert inserted > 30
    for label, jvm in sorted(jdks.items()):
        result = subprocess.run([jvm, "-Xverify:all", "-cp", str(copy), "fixtures.Instrumented"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"JDK {label}: {result.stderr}"
        assert result.stdout == original.stdout


def test_a_branching_payload_is_refused() -> None:
    _name, data = jdk_module_classes(50)[5]
    cf = ClassFile.parse(data)
    code = next(m.code for m in cf.methods if m.code is not None)
    with pytest.raises(ValueError, match="straight-line"):
        insert_code(code, cf.pool, 0, bytes([bc.GOTO, 0, 3]), 0)
    with pytest.raises(NotInstrumentable):
        insert_code(code, cf.pool, len(code.code) + 7, bytes([bc.NOP]), 0)
