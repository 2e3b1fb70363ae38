"""`tracepilot dap` for DebugClient, which spawns RUNTIME with exactly one argument (this file).

Extra arguments (e.g. `--join SESSION`) come from $DAP_ADAPTER_ARGS, a JSON list.
"""

import json
import os
import sys

from tracepilot.cli import main

sys.exit(main(["dap", *json.loads(os.environ.get("DAP_ADAPTER_ARGS", "[]")), *sys.argv[1:]]))
