"""Issue 29 point 15: README's dap-mode configuration (editors/emacs/tracepilot-dap.el) run in a headless Emacs
with Debian 12's dap-mode 0.7, when they are installed (`apt install emacs-nox elpa-dap-mode`; skipped otherwise):
a logpoint's line shows in dap-mode's output buffer, and an exception stop's message reads as exceptionInfo gives
it ("Exception has occurred: TYPE" and the message, not nil / nil)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DAP_DIR = Path(__file__).resolve().parent


def _dap_mode_installed() -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(["emacs", "--batch", "--eval", "(require 'dap-mode)"], capture_output=True, timeout=60)
    return probe.returncode == 0


@pytest.mark.timeout(90)
def test_dap_mode_configuration_runs(java_classes, java_source_root, source_path_of, line_of, tmp_path) -> None:
    if not _dap_mode_installed():
        pytest.skip("Emacs with dap-mode is not installed (apt install emacs-nox elpa-dap-mode)")
    bin_dir = tmp_path / "bin"  # `tracepilot` on PATH, as the configuration expects, running this tree
    bin_dir.mkdir()
    wrapper = bin_dir / "tracepilot"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -m tracepilot.cli \"$@\"\n")
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "HOME": str(tmp_path),  # no init file of the machine's user; dap-mode keeps its files here
           "TP_DAP_EL": str(REPO / "editors" / "emacs" / "tracepilot-dap.el"),
           "TP_SOURCE": str(source_path_of("Causes")), "TP_LOG_LINE": str(line_of("causes-ready")),
           "TP_CLASSES": str(java_classes), "TP_SOURCES": str(java_source_root)}
    done = subprocess.run(["emacs", "--batch", "-l", str(DAP_DIR / "emacs_dap_mode.el")], capture_output=True,
                          text=True, env=env, timeout=80, cwd=tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "TP-DONE" in out, out[-4000:]
    assert "ready with 0 args" in out.split("TP-OUTPUT:", 1)[-1], out[-4000:]
    assert "Exception has occurred: java.lang.RuntimeException" in out and "order failed" in out, out[-4000:]
