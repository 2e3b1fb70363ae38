"""A detach that leaves the launched JVM running (DAP disconnect with terminateDebuggee: false) lets go of it
for good: while the debugger still runs, the JVM's later exit is noticed without any asyncio error, the process
is reaped (no zombie) and its temporary class directory goes; if the debugger ends first, the JVM keeps running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

# Runs until a file (its first argument) appears, then prints and ends with exit code 3.
PROGRAM = """\
import java.nio.file.*;

public class Lingers {
    public static void main(String[] args) throws Exception {
        System.out.println("waiting");
        Path go = Paths.get(args[0]);
        while (!Files.exists(go)) Thread.sleep(20);
        System.out.println("bye");
        System.exit(3);
    }
}
"""

ASYNCIO_ERRORS = ("Exception in callback", "Task exception was never retrieved", "exception was never retrieved")


def _state(pid: int) -> str | None:
    """The process's state letter from /proc (None once it is gone: exited and reaped)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("State:"):
                return line.split()[1]
    except FileNotFoundError:
        return None
    return "?"


def _classes_dir(command: list[str]) -> Path:
    return Path(command[command.index("-cp") + 1]).parent


async def test_a_released_jvm_is_reaped_and_cleaned_up_once_it_exits(debugger, tmp_path, default_jdk, caplog):
    source = tmp_path / "Lingers.java"
    source.write_text(PROGRAM)
    go = tmp_path / "go"
    loop_errors: list[dict] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, context: loop_errors.append(context))
    caplog.set_level(logging.ERROR, logger="asyncio")

    await debugger.launch(source=str(source), args=[str(go)], suspend=False)
    launched = debugger.session.launched
    classes = _classes_dir(launched.plan.command)
    deadline = time.monotonic() + 20
    while "waiting" not in launched.stdout.read().text and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    status = await debugger.detach(keep_running=True)
    assert not status.launched
    assert _state(launched.pid) not in (None, "Z"), "the detach that keeps the JVM running ended it"
    assert classes.is_dir(), "the classes of a JVM still running were removed"

    go.touch()
    await asyncio.wait_for(launched.exited.wait(), 20)  # its exit is noticed although the debugger let go
    assert launched.exit_code == 3
    assert "bye" in launched.stdout.read().text, "its output was read to the end"
    assert _state(launched.pid) is None, "the exited JVM was left a zombie"
    assert not classes.exists(), "the temporary classes of the exited JVM were left behind"
    await asyncio.sleep(0.1)  # (a failing exit callback would be reported on the loop's next turn)
    logged = [r.getMessage() for r in caplog.records if any(e in r.getMessage() for e in ASYNCIO_ERRORS)]
    assert not loop_errors and not logged, (loop_errors, logged)


DEBUGGER_SCRIPT = """\
import asyncio, json, sys
from tracepilot.core.debugger import Debugger

async def main():
    debugger = Debugger()
    await debugger.launch(source=sys.argv[1], args=[sys.argv[2]], suspend=False)
    launched = debugger.session.launched
    pid, command = launched.pid, launched.plan.command
    await debugger.detach(keep_running=True)
    print(json.dumps({"pid": pid, "command": command}), flush=True)
    await asyncio.Event().wait()  # until Ctrl+C

try:
    asyncio.run(main())
except KeyboardInterrupt:
    sys.exit(130)
"""


async def test_a_released_jvm_outlives_the_debugger_that_ends_first(tmp_path, default_jdk):
    """The debugger launches, lets the JVM go, then ends on a SIGINT of its own (the JVM shares its process group,
    so a Ctrl+C in a terminal or a closed terminal reaches both, as before): the JVM keeps running."""
    source = tmp_path / "Lingers.java"
    source.write_text(PROGRAM)
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    debugger = await asyncio.create_subprocess_exec(
        sys.executable, "-W", "always::ResourceWarning", "-c", DEBUGGER_SCRIPT, str(source), str(go), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    answer = None
    try:
        line = await asyncio.wait_for(debugger.stdout.readline(), 45)
        assert line, (await debugger.stderr.read()).decode(errors="replace")
        answer = json.loads(line)
        os.kill(debugger.pid, signal.SIGINT)  # the debugger alone ends
        assert await asyncio.wait_for(debugger.wait(), 20) == 130
        err = (await debugger.stderr.read()).decode(errors="replace")
        assert not any(e in err for e in (*ASYNCIO_ERRORS, "ResourceWarning", "Traceback")), err
        await asyncio.sleep(0.5)  # (a SIGINT would end the JVM in about this time)
        assert _state(answer["pid"]) not in (None, "Z"), "the JVM ended with the debugger that had let it go"
    finally:
        if debugger.returncode is None:
            debugger.kill()
            await debugger.wait()
        if answer is not None:
            await _end(answer["pid"], go)
            from tracepilot.core.launch_classes import remove  # noqa: PLC0415

            remove(_classes_dir(answer["command"]))  # (a later launch would sweep it; don't leave it to one)


async def _end(pid: int, go: Path) -> None:
    """Let the JVM end by itself (its gate file); kill it only if it does not."""
    go.touch()
    deadline = time.monotonic() + 15
    while _state(pid) not in (None, "Z") and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if _state(pid) not in (None, "Z"):
        os.kill(pid, signal.SIGKILL)
