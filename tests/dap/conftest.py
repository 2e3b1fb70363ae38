"""DAP tests: node scenarios (tests/dap/*.mjs) drive `tracepilot dap` with npm's DebugClient.

The npm packages are installed here on first use (`npm ci` into tests/dap/node_modules, gitignored, from the
checked-in package.json and package-lock.json). Without npm the tests are skipped with a message saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from support import jvm as jvm_support

DAP_DIR = Path(__file__).resolve().parent
REPO = DAP_DIR.parents[1]
STAMP = DAP_DIR / "node_modules" / ".tracepilot-installed"
SCENARIO_TIMEOUT = 90.0  # seconds for one node scenario, the JVMs included
EVENT_TIMEOUT_MS = 20_000  # one DAP response or event; generous: two cores are shared with other work


def _install() -> None:
    lock = DAP_DIR / "package-lock.json"
    wanted = lock.read_text(encoding="utf-8") if lock.is_file() else ""
    if STAMP.is_file() and STAMP.read_text(encoding="utf-8") == wanted:
        return
    npm = shutil.which("npm")
    command = [npm, "ci" if lock.is_file() else "install", "--no-audit", "--no-fund", "--loglevel=error"]
    result = subprocess.run(command, cwd=DAP_DIR, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        pytest.fail(f"`{' '.join(command[1:])}` in tests/dap failed ({result.returncode}):\n"
                    f"{result.stdout}{result.stderr}", pytrace=False)
    STAMP.write_text(wanted, encoding="utf-8")


@pytest.fixture(scope="session")
def dap_client_installed() -> Path:
    """tests/dap/node_modules with @vscode/debugadapter-testsupport (installed once)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm is not installed: the DAP tests need Node.js 20+ and npm (apt-get install nodejs npm)")
    _install()
    return DAP_DIR / "node_modules"


def scenario_env(java_classes: Path, jdks: dict[str, str], jdk: str, adapter_args: list[str] = (),
                 **extra: object) -> dict[str, str]:
    """The environment of a node scenario: DAP_TEST_CONFIG (JSON) and the adapter's PYTHONPATH."""
    markers = jvm_support._markers("bp")  # noqa: SLF001  (every @bp marker's line, for the scenarios)
    config = {
        "adapter": [sys.executable, str(DAP_DIR / "adapter_shim.py")],
        "classes": str(java_classes), "sourceRoot": str(jvm_support.JAVA_SRC), "java": jdks[jdk],
        "lines": {name: line for name, (_path, line) in markers.items()},
        "timeoutMs": EVENT_TIMEOUT_MS, **extra,
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["DAP_TEST_CONFIG"] = json.dumps(config)
    env["DAP_ADAPTER_ARGS"] = json.dumps(list(adapter_args))
    return env


@pytest.fixture
def run_scenario(dap_client_installed: Path, java_classes: Path, jdks: dict[str, str],
                 share_dir: Path) -> Callable[..., str]:
    """run_scenario("launch_basics", jdk="17", **extra) runs tests/dap/launch_basics.mjs; returns its stdout."""

    def run(name: str, jdk: str, **extra: object) -> str:
        env = scenario_env(java_classes, jdks, jdk, **extra)
        result = subprocess.run(["node", str(DAP_DIR / f"{name}.mjs")], cwd=DAP_DIR, env=env, capture_output=True,
                                text=True, timeout=SCENARIO_TIMEOUT, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, f"scenario {name} on JDK {jdk} failed:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    return run


@pytest.fixture
def share_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private session registry (short path: Unix socket paths are limited to ~100 bytes)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="tp-dap-"))
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)
