"""Every fixture class, instrumented for tracing in the JVM (entry/exit/handler calls, the new local in
every stack map frame, the first calls' guards and blocks), passes the JVM's verifier: loaded and linked
(getDeclaredMethods links a class without running its initializer) with the probe hub next to it. A class
the JVM refuses would fall back to the round trip at every trace of it: slow, silently."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support.jvm import JAVAC_QUICK
from tracepilot.core.trace.inject import NotTraceable, instrument
from tracepilot.core.trace.probe import compile_probes

pytestmark = pytest.mark.timeout(60)

LINKER = """\
public class LinkAll {
    public static void main(String[] names) throws Exception {
        for (String name : names) {
            try {
                Class.forName(name, false, LinkAll.class.getClassLoader()).getDeclaredMethods();
            } catch (Throwable e) {
                System.out.println("REFUSED " + name + ": " + e);
            }
        }
        System.out.println("LINKED " + names.length);
    }
}
"""


def test_every_fixture_class_instrumented_passes_the_verifier(java_classes, tmp_path, jdks):
    java_home = Path(jdks["17"]).parent.parent if "17" in jdks else None
    out = tmp_path / "classes"
    shutil.copytree(java_classes, out)
    names, refused = [], {}
    for path in sorted((out / "fixtures").rglob("*.class")):
        internal = path.relative_to(out).with_suffix("").as_posix()
        try:
            data, methods = instrument(path.read_bytes(), "fixtures/TraceHub", 0)
        except NotTraceable as exc:
            refused[internal] = str(exc)
            continue
        path.write_bytes(data)
        names.append(internal.replace("/", "."))
    assert len(names) > 40 and len(refused) <= len(names) // 10, refused
    for name, data in compile_probes("fixtures", "TraceHub", [], str(java_home) if java_home else None).items():
        (out / f"{name}.class").write_bytes(data)
    (tmp_path / "LinkAll.java").write_text(LINKER, encoding="utf-8")
    java = shutil.which("java") if java_home is None else str(java_home / "bin" / "java")
    javac = shutil.which("javac") if java_home is None else str(java_home / "bin" / "javac")
    subprocess.run([javac, *JAVAC_QUICK, "-d", str(out), str(tmp_path / "LinkAll.java")], check=True, timeout=60)
    done = subprocess.run([java, "-Xverify:all", "-cp", str(out), "LinkAll", *names], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and f"LINKED {len(names)}" in done.stdout, done.stdout + done.stderr
    assert "REFUSED" not in done.stdout, done.stdout


OLD = """\
public class Old {
    int v;
    Old(int v) { this.v = v; }
    static int twice(int x) { return x * 2; }
    static long big(long a, double d, String s) { return a + (long) d + s.length(); }
    public static void main(String[] a) {
        System.out.println(twice(21) + " " + big(1L, 2.5, "abc") + " " + new Old(5).v);
    }
}
"""


def test_a_class_without_stack_maps_keeps_its_values(tmp_path):
    """A class file before Java 6 (no stack map frames to add the recording blocks to): the guards drop
    their flag, and every method returns what it returned before."""
    (tmp_path / "Old.java").write_text(OLD, encoding="utf-8")
    out = tmp_path / "out"
    subprocess.run([shutil.which("javac"), *JAVAC_QUICK, "--release", "8", "-nowarn", "-d", str(out), str(tmp_path / "Old.java")],
                   check=True, timeout=60, capture_output=True)
    path = out / "Old.class"
    data = bytearray(path.read_bytes())
    data[6:8] = (49).to_bytes(2, "big")  # Java 5: the JVM infers the types itself
    path.write_bytes(instrument(bytes(data), "TraceHub", 0)[0])
    for name, code in compile_probes("", "TraceHub", [], None).items():
        (out / f"{name}.class").write_bytes(code)
    done = subprocess.run([shutil.which("java"), "-Xverify:all", "-cp", str(out), "Old"], capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.strip() == "42 6 5", done.stdout + done.stderr
