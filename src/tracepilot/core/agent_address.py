"""Which port a JVM's JDWP agent listens on when its options do not say (`address=0`, `address=host:0`).

The agent records the port it chose in the JVM's agent properties (`sun.jdwp.listenerAddress`,
"dt_socket:43567"). They are read through the attach API, as jcmd reads a JVM: a small Java helper, compiled
once into the cache, asks `VirtualMachine.getAgentProperties()` and detaches. That is a read-only look that
sends nothing to any of the program's ports (`diagnose` must never write the JDWP handshake to a port that may
be the application's, and a handshake on an ephemeral port would even make the agent listen on a new one).
Any failure (no JDK with jdk.attach, attach disabled, another user's JVM, a timeout) answers None: "not
verified".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from .source_jars import cache_dir

TIMEOUT = 5.0  # seconds for one JVM's answer (the helper's JVM start and the attach)
_HELPER = "TracepilotAgentAddress"
_SOURCE = f"""
import com.sun.tools.attach.VirtualMachine;

public class {_HELPER} {{
    public static void main(String[] args) throws Exception {{
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        try {{
            System.out.println(vm.getAgentProperties().getProperty("sun.jdwp.listenerAddress", ""));
        }} finally {{
            vm.detach();
        }}
    }}
}}
"""
_compiled: Path | None = None


def helper_dir() -> Path:
    return cache_dir().parent / "attach-helper"


async def listener_port(pid: int, timeout: float = TIMEOUT) -> int | None:
    """The port in `sun.jdwp.listenerAddress` of JVM `pid`, or None when it cannot be read."""
    classes = await _helper()
    if classes is None:
        return None
    for java in _javas(pid):
        answer = await _run([java, "-cp", str(classes), _HELPER, str(pid)], timeout)
        if answer is not None:
            port = answer.strip().rpartition(":")[2]
            return int(port) if port.isdigit() and int(port) > 0 else None
    return None


def _javas(pid: int) -> list[str]:
    """The target's own java first (same version, surely able to attach), then the one on the PATH."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        own = os.readlink(f"/proc/{pid}/exe")
        if os.path.basename(own) == "java" and os.access(own, os.X_OK):
            found.append(own)
    system = shutil.which("java")
    if system and system not in found:
        found.append(system)
    return found


async def _helper() -> Path | None:
    """The folder holding the compiled helper (compiled once per machine, into a fresh folder then moved into
    place, so two debuggers compiling at once never read half a class file)."""
    global _compiled
    if _compiled is not None:
        return _compiled
    folder = helper_dir()
    if (folder / f"{_HELPER}.class").is_file():
        _compiled = folder
        return folder
    javac = shutil.which("javac")
    if javac is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=folder))
        source = work / f"{_HELPER}.java"
        source.write_text(_SOURCE)
    except OSError:
        return None
    # --release 11: the class runs on every JVM from 11 up, whichever JDK compiled it
    compiled = await _run([javac, "--release", "11", "-d", str(work), str(source)], 60) is not None
    with contextlib.suppress(OSError):
        if compiled:
            os.replace(work / f"{_HELPER}.class", folder / f"{_HELPER}.class")
        shutil.rmtree(work, ignore_errors=True)
    if (folder / f"{_HELPER}.class").is_file():
        _compiled = folder
    return _compiled


async def _run(command: list[str], timeout: float) -> str | None:
    """stdout of a command that succeeded in time, else None (the process is killed on a timeout)."""
    try:
        proc = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    except OSError:
        return None
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        return None
    return out.decode(errors="replace") if proc.returncode == 0 else None
