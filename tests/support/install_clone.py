"""A fresh clone of this repository installed as a tool (tests/test_install.py), started ahead in the background.

The install is mostly waiting on the package index (~12 s of CPU in ~40-60 s on a loaded machine). When
tests/test_install.py is part of a run, `start_ahead` begins it as a low-priority subprocess once collection is
done, so the wait overlaps the tests before it; the test then takes its result (`result`), or runs the install
itself when nothing was started (the file run alone). What is installed and how is the same either way.

Run as a script: ``python install_clone.py WORKDIR`` clones, installs, and writes WORKDIR/result.json.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEST_FILE = "tests/test_install.py"
RESULT = "result.json"


def clean_env(home: Path) -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH into this checkout, no active virtualenv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIPX_HOME"] = str(home / "pipx")
    env["PIPX_BIN_DIR"] = str(home / "bin")
    env["UV_TOOL_DIR"] = str(home / "uv-tools")
    env["UV_TOOL_BIN_DIR"] = str(home / "bin")
    return env


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=800, **kw)


def clone_and_install(workdir: Path) -> dict[str, object]:
    """Clone the committed tree into WORKDIR/clone and install it as a tool under WORKDIR/tools."""
    clone, home = workdir / "clone", workdir / "tools"
    cloned = _run(["git", "clone", "--quiet", "--depth", "1", f"file://{REPO}", str(clone)])
    if cloned.returncode != 0:
        return {"step": "git clone", "returncode": cloned.returncode, "stdout": cloned.stdout, "stderr": cloned.stderr}
    env = clean_env(home)
    bin_dir = home / "bin"
    if shutil.which("uv"):
        done = _run(["uv", "tool", "install", str(clone)], env=env)
        venv = home / "uv-tools" / "tracepilot"
    elif shutil.which("pipx"):
        done = _run(["pipx", "install", "--pip-args=--no-compile", str(clone)], env=env)
        venv = home / "pipx" / "venvs" / "tracepilot"
    else:  # what pipx does, by hand: a private virtual environment, the command linked onto a bin dir
        # Time (it was the suite's slowest test): the environment gets no pip of its own (ensurepip took ~10 s
        # on a loaded machine), the running pip installs into it (`pip --python`, pip 22.3+), and nothing is
        # byte-compiled ahead (as `uv tool install` does; modules compile when imported): same result, ~half
        # the time. Dependencies are still resolved and installed from the clone's pyproject.toml.
        venv = home / "venv"
        done = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env=env)
        if done.returncode == 0:
            done = _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                         "--quiet", "--no-compile", str(clone)], env=env)
        bin_dir.mkdir(parents=True, exist_ok=True)
        if done.returncode == 0:
            (bin_dir / "tracepilot").symlink_to(venv / "bin" / "tracepilot")
    return {"step": f"installing {clone}", "returncode": done.returncode, "stdout": done.stdout,
            "stderr": done.stderr, "command": str(bin_dir / "tracepilot"), "python": str(venv / "bin" / "python"),
            "env": env}


@dataclass
class Ahead:
    workdir: Path
    process: subprocess.Popen[bytes]


_ahead: Ahead | None = None


def start_ahead(nodeids: list[str]) -> None:
    """Begin the install in the background if the install test is among the tests about to run."""
    global _ahead
    if _ahead is not None or not any(n.startswith(TEST_FILE) for n in nodeids):
        return
    workdir = Path(tempfile.mkdtemp(prefix="tracepilot-install-"))
    log = open(workdir / "install.log", "wb")  # noqa: SIM115 - the child writes to it; closed with the child
    process = subprocess.Popen([sys.executable, __file__, str(workdir)], stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, cwd=str(workdir))
    log.close()
    _ahead = Ahead(workdir, process)


def result(workdir: Path, timeout: float = 800) -> dict[str, object]:
    """The install's outcome: the one started ahead (awaited here), else one run now in `workdir`."""
    ahead = _ahead
    if ahead is None:
        return clone_and_install(workdir)
    ahead.process.wait(timeout=timeout)
    path = ahead.workdir / RESULT
    if not path.is_file():
        log = (ahead.workdir / "install.log").read_text(errors="replace")
        return {"step": "the install started ahead", "returncode": ahead.process.returncode, "stdout": "",
                "stderr": log[-3000:]}
    return json.loads(path.read_text())


def stop_ahead() -> None:
    """At the session's end: stop a background install still running (the run was cut short), remove its files."""
    global _ahead
    ahead, _ahead = _ahead, None
    if ahead is None:
        return
    if ahead.process.poll() is None:
        ahead.process.kill()
        ahead.process.wait(timeout=30)
    shutil.rmtree(ahead.workdir, ignore_errors=True)


if __name__ == "__main__":
    # niced: it mostly waits on the index; the CPU it does use must not weigh on the tests running meanwhile
    os.nice(10)
    target = Path(sys.argv[1])
    outcome = clone_and_install(target)
    (target / RESULT).write_text(json.dumps(outcome))
