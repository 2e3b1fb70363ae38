"""The class-file reader/writer: read + write gives back the same bytes for real classes."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from support.jvm import system_javac
from tracepilot.core.instrument.classfile import (
    ClassFile,
    ClassFormatError,
    Code,
    LineNumberTable,
    StackMapTable,
)


def jdk_module_classes(limit: int) -> list[tuple[str, bytes]]:
    """Classes of the system JDK's java.base module (a jmod is a zip with a 4-byte header)."""
    javac = system_javac()
    if javac is None:
        pytest.skip("no JDK")
    jmod = Path(os.path.realpath(javac)).parent.parent / "jmods" / "java.base.jmod"
    if not jmod.exists():
        pytest.skip(f"no {jmod}")
    with zipfile.ZipFile(jmod) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".class"))
        step = max(1, len(names) // limit)
        return [(n, z.read(n)) for n in names[::step]]


def test_round_trip_is_byte_identical_on_jdk_classes() -> None:
    classes = jdk_module_classes(1500)
    assert len(classes) > 1000
    frames = 0
    for name, data in classes:
        cf = ClassFile.parse(data)
        assert cf.to_bytes() == data, name
        frames += sum(len(t.frames) for m in cf.methods if m.code for t in m.code.find(StackMapTable))
    assert frames > 1000  # the stack map tables were parsed into frames, not kept raw


def test_round_trip_on_compiled_fixtures(java_classes: Path) -> None:
    files = sorted(java_classes.rglob("*.class"))
    assert files
    for path in files:
        data = path.read_bytes()
        assert ClassFile.parse(data).to_bytes() == data, path


def test_parsed_structure_of_a_fixture(java_classes: Path, line_of) -> None:
    cf = ClassFile.parse((java_classes / "fixtures" / "Instrumented.class").read_bytes())
    assert cf.name == "fixtures/Instrumented"
    assert cf.field_named("secret") is not None
    guarded = cf.method("guarded", "(I)I")
    code = guarded.code
    assert isinstance(code, Code) and code.exceptions
    lines = {e.line for t in code.find(LineNumberTable) for e in t.entries}
    assert line_of("ins-divide") in lines


def test_edits_to_the_pool_are_written() -> None:
    name, data = jdk_module_classes(50)[3]
    cf = ClassFile.parse(data)
    before = len(cf.pool)
    ref = cf.pool.add_method_ref("java/lang/Object", "hashCode", "()I")
    assert cf.pool.add_method_ref("java/lang/Object", "hashCode", "()I") == ref  # reused
    again = ClassFile.parse(cf.to_bytes())
    assert len(again.pool) > before
    assert again.pool.member_ref(ref) == ("java/lang/Object", "hashCode", "()I")
    assert cf.pool.add_long(1 << 40) + 2 == cf.pool.add_utf8("a fresh \u00e9 name\x00")  # a long takes two slots
    assert ClassFile.parse(cf.to_bytes()).pool.utf8(len(cf.pool) - 1) == "a fresh \u00e9 name\x00"


@pytest.mark.parametrize("data", [b"", b"\xca\xfe\xba\xbe", b"PK\x03\x04" + bytes(20)])
def test_bad_bytes_say_what_is_wrong(data: bytes) -> None:
    with pytest.raises(ClassFormatError):
        ClassFile.parse(data)


