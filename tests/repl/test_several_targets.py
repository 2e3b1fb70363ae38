"""Issue 28 through the REPL (script mode, the real `tracepilot repl` process): a second `attach` adds a
target beside the first; `targets` lists both, `target NAME` picks one, and a stop names its target."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(90)


def test_targets_and_target_name_in_a_script(jvm_factory, line_of, tmp_path, java_source_root, free_port):
    port = str(free_port())
    server = jvm_factory("PriceServer", port, suspend=False)  # listening before its client runs
    server.wait_for_output("listening on")
    client = jvm_factory("PriceClient", port)
    answer = line_of("server-answer")
    script = "\n".join([
        f"attach {client.address}",
        "targets",
        f"stop at fixtures.PriceServer:{answer} if qty == 3",
        "cont",  # the client (current: attached last) runs and asks; the server stops
        "print qty",
        "targets",
        f"target {client.address}",
        "threads",  # of the client, running
        f"target {server.address}",
        "cont",  # the server answers; the client runs to its end, and so does the server
        "wait",  # each end is told once
        "targets",
        "exit",
    ]) + "\n"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "tracepilot.cli", "repl", server.address, "--sourcepath", str(java_source_root)]
    done = subprocess.run(cmd, input=script, capture_output=True, text=True, env=env, timeout=80)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    order = [
        f"> attach {client.address}",
        "> targets",
        f"  {server.address}: RUNNING",
        f"* {client.address}: STOPPED — VM start",
        "> cont",
        f"STOPPED [{server.address}] at fixtures.PriceServer.answer(PriceServer.java:{answer})",
        "> print qty",
        "qty = 3",
        "> targets",
        f"* {server.address}: STOPPED at fixtures.PriceServer.answer",
        f"  {client.address}: RUNNING",
        f"> target {client.address}",
        f"current target: {client.address}",
        "> threads",
        "main",
        f"> target {server.address}",
        "> cont",
        "EXITED [",
        "> wait",
        "EXITED [",
        "> targets",
        f"{server.address}: EXITED",
        f"{client.address}: EXITED",
    ]
    position = 0
    for needle in order:
        found = out.find(needle, position)
        assert found >= 0, f"{needle!r} missing after position {position}:\n{out}"
        position = found + len(needle)
