"""Who may drive `tracepilot dap --port N`: whoever presents its token (anyone on the machine can connect).

The token is random (or TRACEPILOT_DAP_TOKEN, so an editor configuration can name it as
`"token": "${env:TRACEPILOT_DAP_TOKEN}"`), printed on stderr and written to `dap-PORT.token` in the private
session directory (0700, the file 0600). Editors let a launch/attach configuration carry any key, so the
client sends it there: `"token": "..."`. Until it has, the adapter answers `initialize` and `disconnect` and
refuses everything else; a launch or attach with a wrong token is refused and the connection closed.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOKEN_ENV = "TRACEPILOT_DAP_TOKEN"
MIN_TOKEN = 16  # characters of a token chosen through TOKEN_ENV
ALLOWED_BEFORE = frozenset({"initialize", "disconnect"})  # answered without the token (they change nothing)
PRESENTED_IN = frozenset({"launch", "attach"})


@dataclass
class TokenFile:
    token: str
    path: Path | None = field(default=None)

    @classmethod
    def create(cls) -> TokenFile:
        chosen = os.environ.get(TOKEN_ENV, "")
        if chosen and len(chosen) < MIN_TOKEN:
            raise SystemExit(f"tracepilot dap: {TOKEN_ENV} must be at least {MIN_TOKEN} characters")
        return cls(chosen or secrets.token_urlsafe(24))

    def write(self, port: int) -> Path:
        from ..share.registry import private_dir  # noqa: PLC0415  (the share layer's private directory)

        path = private_dir() / f"dap-{port}.token"
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.token + "\n")
        self.path = path
        return path

    def remove(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()


def refusal(command: str, arguments: Any, token: str) -> str | None:
    """Why a request from a client that has not yet presented the token is refused (None: let it through)."""
    if command in ALLOWED_BEFORE:
        return None
    how = ('this adapter listens on a TCP port and serves only its owner: add "token": "<token>" to the '
           "launch/attach configuration (the token is printed when `tracepilot dap --port` starts and is in "
           "dap-PORT.token in your private tracepilot directory)")
    if command not in PRESENTED_IN:
        return f"'{command}' is refused before the token is presented: {how}"
    presented = arguments.get("token") if isinstance(arguments, dict) else None
    if not isinstance(presented, str) or not presented:
        return f"{command} is refused: no \"token\" in its arguments; {how}"
    if not hmac.compare_digest(presented.encode(), token.encode()):
        return f"{command} is refused: wrong token; {how}"
    return None
