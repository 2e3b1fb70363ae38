"""Issue 29, point 5, in the REPL's script mode: an exception stop says the exception's message (the JDK's
helpful NullPointerException text) and its causes; `locals` lists the exception first."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(60)

HELPFUL = 'Cannot invoke "fixtures.Causes$Address.city()" because "customer.address" is null'


def test_exception_stops_in_a_script(jvm_factory, line_of, tmp_path, java_source_root):
    jvm = jvm_factory("Causes")
    script = "\n".join(["catch caught java.lang.NullPointerException", "cont", "locals", "cont", "exit"]) + "\n"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "tracepilot.cli", "repl", jvm.address, "--sourcepath", str(java_source_root)]
    done = subprocess.run(cmd, input=script, capture_output=True, text=True, env=env, timeout=50)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert f"java.lang.NullPointerException: {HELPFUL}" in out, out
    after_locals = out.split("> locals", 1)[1]
    assert after_locals.lstrip().startswith(f"$exception = java.lang.NullPointerException: {HELPFUL}"), after_locals
    # the uncaught stop (jdb's default, set at attach) shows the chain
    assert "java.lang.RuntimeException: order failed" in out, out
    assert (f"caused by java.lang.NullPointerException: {HELPFUL} at "
            f"fixtures.Causes.cityOf(Causes.java:{line_of('causes-npe')})") in out, out
