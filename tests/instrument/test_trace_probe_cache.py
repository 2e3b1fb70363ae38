"""The trace probe is compiled once per probe source and JDK (issue 32): later traces rename the cached class
files instead of running javac; a JDK without javac uses another's build; with none at all the trace says why
it falls back (tests/instrument/test_trace_running.py runs the cached classes in a real JVM)."""

from __future__ import annotations

import subprocess

import pytest

from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.trace import probe, probe_cache
from tracepilot.core.trace.probe import NoJavac


@pytest.fixture
def javac_runs(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runs = []
    real = subprocess.run

    def counting(args, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        runs.append(args[0])
        return real(args, *a, **kw)

    monkeypatch.setattr(probe_cache.subprocess, "run", counting)
    return runs


def names_in(data: bytes) -> set[str]:
    cf = ClassFile.parse(data)
    return {cf.pool.utf8(i) for i, e in enumerate(cf.pool.entries) if e is not None and e[0] == 1}


def test_built_once_then_renamed_for_each_trace(javac_runs, tmp_path, monkeypatch):
    first = probe_cache.probe_classes("com/acme", "Trace_1__TracepilotProbe", ["Trace_1_0__TracepilotProbe"], None)
    assert len(javac_runs) == 1
    second = probe_cache.probe_classes("", "Trace_2__TracepilotProbe",
                                       ["Trace_2_0__TracepilotProbe", "Trace_2_1__TracepilotProbe"], None)
    assert len(javac_runs) == 1  # from the cache
    assert "com/acme/Trace_1__TracepilotProbe" in first and "com/acme/Trace_1_0__TracepilotProbe" in first
    assert set(second) >= {"Trace_2__TracepilotProbe", "Trace_2_0__TracepilotProbe", "Trace_2_1__TracepilotProbe"}
    for name, data in {**first, **second}.items():
        assert ClassFile.parse(data).name == name
        assert not any(probe_cache.PACKAGE in n or probe_cache.HUB in n for n in names_in(data)), name
    nested = [n for n in first if "$" in n]
    assert all(n.startswith("com/acme/Trace_1__TracepilotProbe$") for n in nested)
    assert any((tmp_path / "cache" / "tracepilot" / "probes").iterdir())
    # Another probe source is another key: built again.
    monkeypatch.setattr(probe, "HUB_SOURCE", probe.HUB_SOURCE + "// changed\n")
    probe_cache.probe_classes("p", "Trace_3__TracepilotProbe", [], None)
    assert len(javac_runs) == 2


def test_without_javac_another_jdks_build_serves_or_the_reason_is_given(javac_runs, monkeypatch):
    found = probe.javac
    monkeypatch.setattr(probe, "javac", lambda java_home: None)
    with pytest.raises(NoJavac, match="no javac found"):
        probe_cache.probe_classes("p", "Trace_3__TracepilotProbe", [], None)
    monkeypatch.setattr(probe, "javac", found)
    probe_cache.probe_classes("p", "Trace_4__TracepilotProbe", [], None)  # built (by the JDK's javac)
    monkeypatch.setattr(probe, "javac", lambda java_home: None)
    got = probe_cache.probe_classes("p", "Trace_5__TracepilotProbe", ["Trace_5_0__TracepilotProbe"], None)
    assert "p/Trace_5__TracepilotProbe" in got and "p/Trace_5_0__TracepilotProbe" in got
