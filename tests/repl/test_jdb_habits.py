"""The REPL against jdb's habits (issue 29 item 11), through the real `tracepilot repl` script mode.

jdb numbers frames from 1 (`main[1]`, `[1] Foo.bar`), goes on after a failing command, and lists "Method
arguments:" apart from "Local variables:". Completion offers the program's classes (loaded or on the
source path) before the JDK's.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(120)


def _repl(address: str, stdin: str, home: str, source_root) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_STATE_HOME": home, "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "tracepilot.cli", "repl", address, "--sourcepath", str(source_root)]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=90)


def _in_order(out: str, needles: list[str]) -> None:
    position = 0
    for needle in needles:
        found = out.find(needle, position)
        assert found >= 0, f"{needle!r} missing after position {position}:\n{out}"
        position = found + len(needle)


def test_frames_from_one_locals_split_and_a_script_that_goes_on(jvm_factory, line_of, tmp_path, java_source_root):
    jvm = jvm_factory("Playground", "50")
    loop, compute = line_of("loop-call"), line_of("compute-body")
    script = "\n".join([
        "stop in fixtures.Playground.compute",
        "cont",
        "where",
        "print nosuchvariable",  # fails: the script goes on, as jdb's does
        "locals",
        "up",
        "frame",
        "locals",
        "down",
        "frame 2",
        "frame 0",  # no frame 0 in jdb's numbering
        "frame 9",
        "down",
        "where",
    ]) + "\n"
    done = _repl(jvm.address, script, str(tmp_path), java_source_root)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr  # a command failed: non-zero at the end
    _in_order(out, [
        "> where",
        f"* [1] fixtures.Playground.compute(Playground.java:{compute})",
        f"  [2] fixtures.Playground.main(Playground.java:{loop})",
        "> print nosuchvariable",
        "nosuchvariable",
        "> locals",
        "Method arguments:",
        "x = ",
        "Local variables:",
        "> up",
        f"[2] fixtures.Playground.main(Playground.java:{loop})",
        "> frame",
        "[2] fixtures.Playground.main(",
        "> locals",
        "Method arguments:",
        "args = ",
        "Local variables:",
        "i = ",
        "> down",
        "[1] fixtures.Playground.compute(",
        "> frame 2",
        "[2] fixtures.Playground.main(",
        "> frame 0",
        "frames are numbered from 1",
        "> frame 9",
        "no frame 9: use `where`",
        "> down",
        "[1] fixtures.Playground.compute(",
        "> where",
        "* [1] fixtures.Playground.compute(",
    ])
    compute_locals = out.split("> locals", 1)[1].split("> up", 1)[0]
    assert "doubled" not in compute_locals.split("Local variables:")[0]  # arguments only above


async def test_completion_ranks_the_programs_classes_before_the_jdks(drive):
    await drive.attach("Playground", "50")
    words = await drive.complete("stop at S")
    # Storm, Secrets and Serving are on the source path (not loaded); String, System are the JDK's
    assert "Storm" in words and "String" in words, words
    ours = max(words.index(name) for name in ("Secrets", "Serving", "Storm"))
    assert ours < min(words.index("String"), words.index("System")), words
    qualified = await drive.complete("stop at fixtures.St")
    assert qualified == ["fixtures.Storm"], qualified
