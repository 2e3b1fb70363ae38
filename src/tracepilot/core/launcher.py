"""Starting a JVM under the debugger: build the java command line, start it with its debug agent
connecting out to tracepilot (server=n, suspend=y, so nothing runs before breakpoints are in and the JVM
opens no port anyone else could reach: launch_socket.py), capture its output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import launch_classes
from .child_process import ChildProcess
from .errors import DebuggerError, InvalidArgument
from .launch_socket import LaunchListener, agent_option
from .output import OutputBuffer
from .sources import class_name_for_file

# Stands for the agent option in a plan; `LaunchedProcess.start` puts in the port it listens on.
AGENT = "-agentlib:jdwp=<connects to tracepilot>"
JDK_HINT = "install a JDK 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"


def find_tool(tool: str, java: str | None = None) -> str:
    """Path of `java` or `javac`: next to an explicit java, in JAVA_HOME, or on PATH."""
    if java and tool == "java":
        return java
    candidates = []
    if java:
        candidates.append(Path(java).parent / tool)
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / tool)
    for c in candidates:
        if c.is_file():
            return str(c)
    found = shutil.which(tool)
    if not found:
        raise DebuggerError(f"`{tool}` was not found", JDK_HINT)
    return found


@dataclass
class LaunchPlan:
    command: list[str]
    cwd: str | None
    env: dict[str, str] | None
    description: str
    sourcepath: list[str] = field(default_factory=list)
    main_class: str | None = None  # the class whose main runs (a jar's from its manifest), when known
    temp_dir: Path | None = None  # a compiled source's classes (launch_classes.py): removed once the JVM is gone

    def discard_temp_dir(self) -> None:
        """Remove the compiled source's directory: only once no JVM runs from it."""
        if self.temp_dir is not None:
            launch_classes.remove(self.temp_dir)
            self.temp_dir = None


def jar_main_class(jar: str) -> str | None:
    """The Main-Class of a jar's manifest (None when the jar or the entry is missing)."""
    import zipfile  # noqa: PLC0415 - only launches of a jar read one

    with contextlib.suppress(OSError, KeyError, zipfile.BadZipFile):
        with zipfile.ZipFile(jar) as archive:
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", errors="replace")
        for line in manifest.splitlines():
            name, _, value = line.partition(":")
            if name.strip().lower() == "main-class" and value.strip():
                return value.strip()
    return None


# javac's own JVM for one short compile: the C1 compiler only and the serial collector (ShopDemo.java: ~2.0 -> ~1.2 s
# of CPU, ~0.6 s sooner to the launch); the class files are the same.
JAVAC_QUICK = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")


async def compile_source(source: str, java: str | None = None) -> tuple[str, Path, Path]:
    """javac -g a single .java file into a temporary directory (launch_classes.py); returns (main class, that
    directory, source dir). The classes are in its `classes/`; the caller removes it once the JVM is gone."""
    path = Path(source).expanduser().resolve()
    if not path.is_file():
        raise InvalidArgument(f"source file {source} does not exist", "give the path of a .java file")
    if path.suffix != ".java":
        raise InvalidArgument(f"{source} is not a .java file", "pass a Foo.java file, or use main + classpath")
    javac = find_tool("javac", java)
    temp_dir = launch_classes.new_classes_dir()
    try:
        proc = await asyncio.create_subprocess_exec(
            javac, *JAVAC_QUICK, "-g", "-d", str(temp_dir / "classes"), str(path), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await proc.communicate()
    except BaseException:
        launch_classes.remove(temp_dir)
        raise
    if proc.returncode != 0:
        launch_classes.remove(temp_dir)
        raise DebuggerError(f"javac failed for {path.name}:\n{output.decode(errors='replace').strip()}",
                            "fix the compile errors and launch again")
    return class_name_for_file(path), temp_dir, path.parent


async def plan_launch(
    *, main: str | None, classpath: str | Sequence[str] | None, jar: str | None, source: str | None,
    args: Sequence[str], jvm_args: Sequence[str], cwd: str | None, env: dict[str, str] | None,
    java: str | None,
) -> LaunchPlan:
    java_bin = find_tool("java", java)
    sourcepath: list[str] = []
    if source:
        main_class, temp_dir, source_dir = await compile_source(source, java)
        sourcepath.append(str(source_dir))
        command = [java_bin, AGENT, *jvm_args, "-cp", str(temp_dir / "classes"), main_class, *args]
        return LaunchPlan(command, cwd, _env(env), f"{Path(source).name} ({main_class})", sourcepath, main_class,
                          temp_dir)
    if jar:
        return LaunchPlan([java_bin, AGENT, *jvm_args, "-jar", jar, *args], cwd, _env(env), jar,
                          main_class=jar_main_class(jar))
    if not main:
        raise InvalidArgument("nothing to launch", "give main (+ classpath), jar, or source (a .java file)")
    command = [java_bin, AGENT, *jvm_args]
    if classpath:
        cp = classpath if isinstance(classpath, str) else os.pathsep.join(classpath)
        command += ["-cp", cp]
    command += [main, *args]
    return LaunchPlan(command, cwd, _env(env), main, main_class=main)


def launch_options(java_args: Sequence[str]) -> dict[str, Any]:
    """Java's own command line (`-cp DIR Main a b`, `-jar app.jar a`, `Foo.java a`, JVM options first) as
    keyword arguments of `Debugger.launch`."""
    options: dict[str, Any] = {"jvm_args": [], "args": []}
    args = list(java_args)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-cp", "-classpath", "--class-path") and i + 1 < len(args):
            options["classpath"] = args[i + 1]
            i += 2
            continue
        if arg == "-jar" and i + 1 < len(args):
            options["jar"] = args[i + 1]
            options["args"] = args[i + 2:]
            return options
        if arg.startswith("-"):
            options["jvm_args"].append(arg)
            i += 1
            continue
        if arg.endswith(".java"):
            options["source"] = arg
        else:
            options["main"] = arg
        options["args"] = args[i + 1:]
        return options
    return options


def _env(extra: dict[str, str] | None) -> dict[str, str] | None:
    if not extra:
        return None
    merged = dict(os.environ)
    merged.update(extra)
    return merged


class LaunchedProcess:
    """A JVM we started: its agent's connection, its output buffers and its exit code. The process itself is a
    `ChildProcess` (child_process.py): watched until it exits, killed only when asked, so it can be let go."""

    def __init__(self, proc: ChildProcess, plan: LaunchPlan, stdout: OutputBuffer, stderr: OutputBuffer) -> None:
        self.proc = proc
        self.plan = plan
        self.port = 0
        self.socket: socket.socket | None = None  # the agent's connection, until the session takes it
        self.refused: list[str] = []  # connections to the launch port that were not the JVM's
        self.stdout = stdout
        self.stderr = stderr
        self.exited = asyncio.Event()
        self.released = False  # let go of by a detach that keeps it running (`release`)
        self._watch: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def exit_code(self) -> int | None:
        return self.proc.returncode

    @classmethod
    async def start(cls, plan: LaunchPlan, timeout: float = 30.0) -> LaunchedProcess:
        """Start the JVM and take its debug agent's connection (only the JVM's: see launch_socket.py);
        `socket` is then ready for the JDWP handshake."""
        try:
            listener = LaunchListener.open()
        except OSError as exc:
            raise DebuggerError(f"cannot listen on a loopback port for the JVM: {exc}",
                                "check that 127.0.0.1 is configured") from None
        plan.command = [agent_option(listener.port) if arg == AGENT else arg for arg in plan.command]
        stdout, stderr = OutputBuffer("stdout"), OutputBuffer("stderr")
        try:
            proc = await ChildProcess.start(plan.command, cwd=plan.cwd, env=plan.env, on_stdout=stdout.write,
                                            on_stderr=stderr.write)
        except OSError as exc:
            listener.close()
            plan.discard_temp_dir()
            raise DebuggerError(f"cannot start {plan.command[0]}: {exc}", JDK_HINT) from None
        if plan.temp_dir is not None:
            launch_classes.claim(plan.temp_dir, proc.pid)
        launched = cls(proc, plan, stdout, stderr)
        launched.port = listener.port
        launched._watch = asyncio.create_task(launched._watch_exit())
        try:
            launched.socket = await launched._accept_agent(listener, timeout)
        except BaseException:
            listener.close()
            await launched.kill()
            raise
        finally:
            launched.refused = listener.refused
        return launched

    async def _accept_agent(self, listener: LaunchListener, timeout: float) -> socket.socket:
        accept = asyncio.ensure_future(listener.accept_from(self.proc.pid))
        exited = asyncio.ensure_future(self.exited.wait())
        try:
            done, _ = await asyncio.wait({accept, exited}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (accept, exited):
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(BaseException):
                        await task
        if accept in done:
            return accept.result()
        detail = self.stderr.read().text.strip()[-1500:]
        if exited in done:
            raise DebuggerError(
                f"the JVM exited (code {self.proc.returncode}) before its debug agent connected"
                + (f":\n{detail}" if detail else ""),
                "check the main class, classpath and JVM options")
        raise DebuggerError(
            f"the JVM's debug agent did not connect within {timeout:g}s"
            + (f"; its output so far:\n{detail}" if detail else " (it printed nothing)"),
            "check the java arguments (a wrapper given as java must pass the -agentlib option on)")

    async def _watch_exit(self) -> None:
        """Runs until the JVM is gone, also after a `release`: the exit code, then its output read to the end
        (waited for briefly: a process it started may hold the pipes), then its classes removed. Cancelled when
        the debugger's loop ends first: a JVM it still holds is killed then (as closing the debugger would)."""
        try:
            await self.proc.exited
        except asyncio.CancelledError:  # the debugger's loop ends first: a JVM let go runs on, any other ends
            if not self.released:
                self.proc.kill()
            self.proc.stop_reading()
            raise
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.output_done(), OUTPUT_DRAIN)
        self.plan.discard_temp_dir()
        self.exited.set()

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.proc.exited), 5)
        if self.proc.returncode is not None:  # (a JVM that would not die keeps its classes: a later launch sweeps)
            self.plan.discard_temp_dir()
        if self.socket is not None:
            self.socket.close()
            self.socket = None

    def take_socket(self) -> socket.socket:
        """The agent's connection, once (the JDWP connection owns it from then on)."""
        sock, self.socket = self.socket, None
        if sock is None:
            raise DebuggerError("the launched JVM's debug connection was already used", "launch again")
        return sock

    def release(self) -> None:
        """Leave the process running on its own (a detach that keeps it, DAP terminateDebuggee: false). Nothing
        of ours kills it (only `kill` does); while the debugger runs, its output is still read and its exit is
        still seen: the process is reaped and its temporary classes go then."""
        self.released = True
        _released.add(self)  # (nobody else holds it now: keep its watch alive until the exit)
        if self._watch is not None:
            self._watch.add_done_callback(lambda _task: _released.discard(self))


# Launched processes let go of, until they exit (a task is only weakly held by the loop).
_released: set[LaunchedProcess] = set()
OUTPUT_DRAIN = 5.0  # seconds to read what is left in the pipes once the JVM exited


def split_launch_args(java_args: Sequence[str]) -> list[str]:
    """The java command line after `tracepilot launch ... --` (the `--` itself dropped)."""
    args = list(java_args)
    if args and args[0] == "--":
        args = args[1:]
    return args
