"""Logging for the MCP server: stderr and a log file, never stdout (stdout carries the protocol)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from ..core.secrets import RedactingFormatter

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def default_log_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "tracepilot" / "mcp.log"


def setup_logging(log_file: str | None, level: int = logging.INFO) -> str | None:
    """Send tracepilot's and the SDK's logs to stderr and to `log_file`; returns the file used (or None).

    Configures the root logger before MCPServer does, so the SDK's `basicConfig` (a Rich handler) is a
    no-op and nothing ever writes to stdout.
    """
    root = logging.getLogger()
    root.setLevel(level)
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(RedactingFormatter(FORMAT))  # under --redact, log lines hide what is secret too
    stderr.setLevel(logging.WARNING)
    root.addHandler(stderr)
    path = Path(log_file).expanduser() if log_file else default_log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # only its owner may read it: it holds what the debugger saw (values, errors, tool arguments)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        os.chmod(path, 0o600)
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as e:
        logging.getLogger(__name__).warning("cannot write the log file %s: %s (logging to stderr only)", path, e)
        return None
    handler.setFormatter(RedactingFormatter(FORMAT))
    root.addHandler(handler)
    return str(path)
