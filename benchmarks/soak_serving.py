"""The 10-minute soak of issue 11: breakpoint/resume cycles in tests/java/fixtures/Serving.java with the
debugger's RSS growth under 10% (and the target's bounded). The test suite runs the same test bounded
(2,000 cycles or 60 s); this runs it for TRACEPILOT_SOAK_SECONDS (default 600).

    .venv/bin/python benchmarks/soak_serving.py [SECONDS]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/reliability/test_load.py::test_breakpoint_resume_cycles_in_a_serving_program_do_not_grow_memory"


def main() -> int:
    seconds = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TRACEPILOT_SOAK_SECONDS", "600")
    env = dict(os.environ, TRACEPILOT_SOAK_SECONDS=str(seconds))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-s", TEST]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
