"""`tracepilot dap` for DebugClient, which spawns RUNTIME with exactly one argument (this file)."""

import sys

from tracepilot.cli import main

sys.exit(main(["dap", *sys.argv[1:]]))
