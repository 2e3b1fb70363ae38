"""`launch source=Foo.java` compiles into a temporary directory: it goes when the program's JVM is gone (a
detach that terminates it, the program ending by itself, the debugger's close), never while that JVM runs
from it; one a killed debugger left behind goes at a later launch, once no process of its own is alive.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tracepilot.core.launch_classes import MARKER, new_classes_dir, sweep_stale
from tracepilot.core.model import SessionState

pytestmark = pytest.mark.timeout(60)

PROGRAM = """\
public class Once {
    public static void main(String[] args) {
        System.out.println("once " + args.length);
    }
}
"""


def _temp_dir(debugger) -> Path:
    """The temporary directory of the launch: its classes (the JVM's class path) and its marker."""
    command = debugger.session.launched.plan.command
    classes = Path(command[command.index("-cp") + 1])
    assert classes.parent.name.startswith("tracepilot-classes-") and (classes.parent / MARKER).is_file()
    return classes.parent


async def test_the_classes_directory_lives_as_long_as_the_launched_jvm(debugger, tmp_path, default_jdk):
    source = tmp_path / "Once.java"
    source.write_text(PROGRAM)

    # ended by a detach (which terminates the launched JVM); the directory is there while the JVM runs
    await debugger.launch(source=str(source))
    first = _temp_dir(debugger)
    assert (first / "classes" / "Once.class").is_file()
    await debugger.detach()
    assert not first.exists()

    # the program ends by itself
    await debugger.launch(source=str(source), suspend=False)
    second = _temp_dir(debugger)
    assert second != first
    end = await debugger.wait_for_stop(timeout=20)
    assert end.state is SessionState.EXITED
    # (the VM's death is told once its process is gone, or after 2 s: a loaded machine may take longer)
    await asyncio.wait_for(debugger.session.launched.exited.wait(), 15)
    assert not second.exists()

    # the debugger closes while the program waits at its start
    await debugger.launch(source=str(source))
    third = _temp_dir(debugger)
    assert third.exists()
    await debugger.close()
    assert not third.exists()


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def test_a_later_launch_removes_only_our_directories_whose_processes_are_gone(tmp_path):
    dead = _dead_pid()
    stale = new_classes_dir(tmp_path)
    (stale / "classes" / "Gone.class").write_bytes(b"\xca\xfe")
    (stale / MARKER).write_text(f"{dead}\n{dead}\n")  # the debugger and its JVM, both gone
    running = new_classes_dir(tmp_path)  # ours (this process is alive)
    foreign = tmp_path / "tracepilot-classes-notours"  # no marker: not known to be ours, left alone
    foreign.mkdir()
    unrelated = tmp_path / "something-else"
    unrelated.mkdir()
    (unrelated / MARKER).write_text(f"{dead}\n")

    sweep_stale(tmp_path)
    assert not stale.exists()
    assert running.exists() and foreign.exists() and unrelated.exists()
