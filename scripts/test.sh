#!/usr/bin/env bash
# Set up (scripts/bootstrap.sh) and run the whole test suite, then ruff. Arguments go to pytest.
# Works without a TTY; each test has a timeout (tests/conftest.py, $TRACEPILOT_TEST_TIMEOUT, default 60s)
# and the whole pytest run is bounded by $TRACEPILOT_SUITE_TIMEOUT seconds (default 1800).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/bootstrap.sh

# Byte-code is cached (__pycache__ beside the sources, git-ignored): the run starts dozens of Python processes
# that import tracepilot (MCP servers, REPLs, DAP adapters, relays); with PYTHONDONTWRITEBYTECODE each compiled it
# afresh, ~0.3-0.4 s of CPU apiece, and pytest re-compiled every test module on every run.
unset PYTHONDONTWRITEBYTECODE
export PYTHONFAULTHANDLER=1
suite_timeout="${TRACEPILOT_SUITE_TIMEOUT:-1800}"
runner=()
# Only without a terminal (CI): `timeout` runs in its own process group, which would swallow Ctrl-C.
if command -v timeout >/dev/null 2>&1 && ! [ -t 1 ]; then
    runner=(timeout --kill-after=30 "$suite_timeout")
fi

status=0
${runner[@]+"${runner[@]}"} .venv/bin/python -m pytest -q -p no:cacheprovider "$@" </dev/null || status=$?
if [ "$status" = 124 ]; then
    echo "test.sh: pytest exceeded ${suite_timeout}s and was stopped" >&2
fi

lint=0
paths=()
for p in src tests benchmarks; do [ -e "$p" ] && paths+=("$p"); done
echo "ruff check ${paths[*]}"
.venv/bin/ruff check --no-cache "${paths[@]}" || lint=$?

if [ "$status" != 0 ]; then exit "$status"; fi
exit "$lint"
