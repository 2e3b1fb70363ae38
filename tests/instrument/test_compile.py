"""Compiled conditions, run in a plain JVM (no debugger): the probe's hit() and error() are patched to print,
so each condition's true count and errors are visible on stdout. Everything passes -Xverify:all."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support.jvm import JAVAC_QUICK, system_javac
from tracepilot.core.instrument import bytecode as bc
from tracepilot.core.instrument.assemble import Assembler
from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.instrument.plan import NotCompilable, ProbeSpec, instrument
from tracepilot.core.instrument.resolve import ClassFileResolver

# (marker, condition, times true in one run of fixtures.Instrumented, errors)
CASES = [
    ("ins-loop-body", "i == 500", 1, 0),
    ("ins-loop-body", "i % 100 == 0 && i > 0", 9, 0),
    ("ins-loop-body", "i < 3 || i >= 998", 5, 0),
    ("ins-loop-body", "!(i != 7)", 1, 0),
    ("ins-loop-body", "(i > 5 ? i : -i) == -2", 1, 0),
    ("ins-loop-body", "sum == 0 && i == 0", 1, 0),
    ("ins-loop-body", "i * 1000000 * 1000 < 0 && i == 3", 1, 0),  # int overflow as in Java
    ("ins-loop-body", "i / 2.0 == 1.5", 1, 0),
    ("ins-loop-body", "(long) i << 40 == 1099511627776L", 1, 0),
    ("ins-loop-body", "(\"n=\" + i + 'c' + 1.5f + true + null).equals(\"n=7c1.5truenull\")", 1, 0),
    ("ins-loop-body", "Math.max(i, 3) == 3 && i >= 0", 4, 0),
    ("ins-loop-body", "Integer.valueOf(i).equals(12)", 1, 0),
    ("ins-loop-body", "Double.NaN < i || Double.NaN >= i", 0, 0),
    ("ins-loop-body", "calls == 2 && i == 0", 1, 0),  # a static of the class
    ("ins-loop-body", "10 / (i - 4) == -10", 1, 1),  # true at i=3; i=4 divides by zero: an error, not thrown
    ("ins-divide", "x == 0 || secret > 100", 1, 0),  # a private field of this
    ("ins-divide", "this.secret == 7 && label instanceof String", 2, 0),
    ("ins-divide", "label.equals(\"yes\") && 1 / x > 0", 0, 1),  # / by zero: reported, never thrown
    ("ins-ctor", "label.length() == 2", 1, 0),
    ("ins-uninit", "flag", 1, 0),
    ("ins-catch", "e.getMessage().contains(\"zero\")", 1, 0),
]


@pytest.fixture(scope="module")
def jmod() -> Path:
    javac = system_javac()
    if javac is None:
        pytest.skip("no JDK")
    path = Path(os.path.realpath(javac)).parent.parent / "jmods" / "java.base.jmod"
    if not path.exists():
        pytest.skip(f"no {path}")
    return path


def printing_probe(data: bytes, tag: str) -> bytes:
    """The probe with hit() printing `HIT tag` and error(Throwable) printing `ERR tag`."""
    cf = ClassFile.parse(data)
    for name, descriptor in (("hit", "()V"), ("error", "(Ljava/lang/Throwable;)V")):
        a = Assembler(cf.pool)
        a.field(bc.GETSTATIC, "java/lang/System", "out", "Ljava/io/PrintStream;")
        a.ldc(cf.pool.add_string(f"{name.upper()[:3]} {tag}"))
        a.invoke(bc.INVOKEVIRTUAL, "java/io/PrintStream", "println", "(Ljava/lang/String;)V")
        a.op(bc.RETURN)
        code = cf.method(name, descriptor).code
        code.code, _ = a.finish()
        code.max_stack = 2
    return cf.to_bytes()


@pytest.mark.timeout(120)
async def test_compiled_conditions_follow_java_semantics(java_classes: Path, jmod: Path, line_of, tmp_path: Path,
                                                         jdks: dict[str, str]) -> None:
    original = (java_classes / "fixtures" / "Instrumented.class").read_bytes()
    specs = [ProbeSpec(line_of(marker), condition, None, f"fixtures/Probe{k}")
             for k, (marker, condition, _, _) in enumerate(CASES)]
    result = await instrument(original, specs, ClassFileResolver([java_classes, jmod]))
    dest = tmp_path / "classes"
    shutil.copytree(java_classes / "fixtures", dest / "fixtures")
    (dest / "fixtures" / "Instrumented.class").write_bytes(result.data)
    for placed in result.probes:
        (dest / f"{placed.probe.class_name}.class").write_bytes(printing_probe(placed.probe.data, placed.probe.class_name))
    plain = subprocess.run([jdks["17"], "-cp", str(java_classes), "fixtures.Instrumented"], capture_output=True,
                           text=True, timeout=60)
    for label, java in sorted(jdks.items()):
        run = subprocess.run([java, "-Xverify:all", "-cp", str(dest), "fixtures.Instrumented"], capture_output=True,
                             text=True, timeout=60)
        assert run.returncode == 0, f"JDK {label}: {run.stderr}"
        lines = run.stdout.splitlines()
        assert lines[-1] == plain.stdout.splitlines()[-1]  # the program's own output is unchanged
        for k, (marker, condition, hits, errors) in enumerate(CASES):
            got = (lines.count(f"HIT fixtures/Probe{k}"), lines.count(f"ERR fixtures/Probe{k}"))
            assert got == (hits, errors), f"JDK {label}: {condition} at {marker}"


@pytest.mark.parametrize(("marker", "condition", "reason"), [
    ("ins-loop-body", "i++ > 3", "'++' (it changes a variable)"),
    ("ins-loop-body", "i = 3", "an assignment"),
    ("ins-loop-body", "new Object() != null", "object creation"),
    ("ins-loop-body", "sum instanceof Object", "instanceof on a primitive"),
    ("ins-loop-body", "i + 1", "not a boolean"),
    ("ins-loop-body", "nothere > 1", "'nothere' is not a local or a field"),
    ("ins-loop-body", "$exception != null", "debugger's"),
    ("ins-divide", "it.secret > 1", "'it.secret' names no local, field or class"),
    ("ins-lambda", "out.length() > 10", "'out' is not a local"),  # the line is also in the lambda's method
])
async def test_what_is_not_compiled_says_why(java_classes: Path, jmod: Path, line_of, marker: str, condition: str,
                                             reason: str) -> None:
    original = (java_classes / "fixtures" / "Instrumented.class").read_bytes()
    with pytest.raises(NotCompilable, match=re.escape(reason)):
        await instrument(original, [ProbeSpec(line_of(marker), condition, None, "fixtures/P")],
                         ClassFileResolver([java_classes, jmod]))


async def test_a_class_without_local_tables_says_compile_with_g(tmp_path: Path, jmod: Path, line_of) -> None:
    source = Path(__file__).resolve().parents[1] / "java" / "fixtures" / "HotCondition.java"
    subprocess.run([system_javac(), *JAVAC_QUICK, "-g:source,lines", "-d", str(tmp_path), str(source)], check=True)
    original = (tmp_path / "fixtures" / "HotCondition.class").read_bytes()
    spec = ProbeSpec(line_of("hc-body"), "i == 3", None, "fixtures/P")
    with pytest.raises(NotCompilable, match=r"no local variable table \(compile with -g\)"):
        await instrument(original, [spec], ClassFileResolver([tmp_path, jmod]))
    # Fields need no local table.
    fields = ProbeSpec(line_of("hc-body"), "secret == 3 && total >= 0", None, "fixtures/P")
    assert (await instrument(original, [fields], ClassFileResolver([tmp_path, jmod]))).probes
