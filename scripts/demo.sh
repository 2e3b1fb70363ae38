#!/usr/bin/env bash
# Set up (scripts/bootstrap.sh) and open the TUI on the bundled demo program. Arguments go to `tracepilot demo`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
exec .venv/bin/tracepilot demo "$@"
