"""The evaluator is core: it must not pull in any front-end library."""

import subprocess
import sys


def test_evaluator_imports_no_front_end():
    code = (
        "import sys, tracepilot.core.evaluator as e; e.parse_expression('a + 1');"
        "bad = [m for m in ('textual', 'prompt_toolkit', 'mcp') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
