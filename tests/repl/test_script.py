"""A jdb-style session end to end through the real `tracepilot repl` process: stdin scripts and -c."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(120)


def repl(address: str, *args: str, stdin: str = "", home: str, source_root) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_STATE_HOME": home, "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "tracepilot.cli", "repl", address, "--sourcepath", str(source_root), *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=90)


def test_stdin_script_session(jvm_factory, line_of, tmp_path, java_source_root):
    jvm = jvm_factory("Playground", "50")
    loop, compute = line_of("loop-call"), line_of("compute-body")
    script = "\n".join([
        "# a jdb session",
        f"stop at fixtures.Playground:{loop} if i == 1",
        "cont",
        "print i",
        "stop in fixtures.Playground.compute",
        "step",
        "where",
        "locals",
        "clear 3",
        "next",
        "step up",
        "info breakpoints",
        "exit",
    ]) + "\n"
    done = repl(jvm.address, stdin=script, home=str(tmp_path), source_root=java_source_root)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "VM start" in out.splitlines()[0]
    assert "bp-1: stopping at uncaught exceptions" in out  # jdb's default, said once at attach
    # stops appear in order, each after the command that waited for it
    order = [
        f"> stop at fixtures.Playground:{loop} if i == 1",
        "Set bp-2 line",
        "> cont",
        f"STOPPED at fixtures.Playground.main(Playground.java:{loop}) — breakpoint bp-2",
        "int result = p.compute(i);",
        "> print i",
        "i = 1",
        "> stop in fixtures.Playground.compute",
        "> step",
        f"STOPPED at fixtures.Playground.compute(Playground.java:{compute})",
        "> where",
        f"* [1] fixtures.Playground.compute(Playground.java:{compute})",
        f"  [2] fixtures.Playground.main(Playground.java:{loop})",
        "> locals",
        "x = 1",
        "> clear 3",
        "Removed bp-3",
        "> next",
        "> step up",
        "STOPPED at fixtures.Playground.main(",
        "> info breakpoints",
        "bp-1 exception * [enabled, verified] hits=0 uncaught only",
        "bp-2 line fixtures.Playground:",
    ]
    position = 0
    for needle in order:
        found = out.find(needle, position)
        assert found >= 0, f"{needle!r} missing after position {position}:\n{out}"
        position = found + len(needle)
    assert "\x1b[" not in out  # plain when piped


def test_dash_c_runs_commands_in_order_and_exits_non_zero_after_an_error(jvm_factory, line_of, tmp_path, java_source_root):
    jvm = jvm_factory("Playground", "50")
    line = line_of("loop-body")
    done = repl(jvm.address, "-c", f"stop at fixtures.Playground:{line}; cont; where; p p.counter + 1",
                home=str(tmp_path), source_root=java_source_root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"STOPPED at fixtures.Playground.main(Playground.java:{line})" in done.stdout
    assert "p.counter + 1 = 1" in done.stdout

    other = jvm_factory("Playground", "50")  # a JVM's debug port takes one debugger in its life
    failing = repl(other.address, "-c", "print nosuchvariable; where", home=str(tmp_path), source_root=java_source_root)
    assert failing.returncode == 1
    assert "nosuchvariable" in failing.stdout
    assert "> where" in failing.stdout  # the script goes on after a failed command, as jdb's does (issue 29)


def test_unreachable_target_exits_non_zero(tmp_path, java_source_root, free_port):
    done = repl(f"127.0.0.1:{free_port()}", "--wait", "0.5", "-c", "where", home=str(tmp_path),
                source_root=java_source_root)
    assert done.returncode != 0
    assert done.stdout.strip() or done.stderr.strip()
