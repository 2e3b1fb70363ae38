"""Where live sessions are listed: one private directory per user, one socket + descriptor per session.

    $TRACEPILOT_SHARE_DIR, else $XDG_RUNTIME_DIR/tracepilot, else /tmp/tracepilot-$UID   (mode 0700)
        mcp-4242.sock     the session host's Unix socket (mode 0600)
        mcp-4242.json     {"id", "socket", "pid", "frontend", "target", "since", "protocol"}

The directory is checked every time it is used (owned by us, not a symlink, no group/other access);
entries whose process is gone are removed when sessions are listed.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .protocol import PROTOCOL_VERSION, ShareError

_counter = itertools.count(1)


@dataclass
class SessionInfo:
    id: str
    socket: str
    pid: int
    frontend: str  # mcp | tui | repl
    target: str | None
    since: float
    protocol: int = PROTOCOL_VERSION
    tcp: str | None = None  # "127.0.0.1:PORT" when --share-tcp was asked for
    token: str | None = None  # the TCP listener's token (the descriptor is 0600)

    @property
    def descriptor(self) -> Path:
        return Path(self.socket).with_suffix(".json")

    def label(self) -> str:
        return f"{self.id} ({self.frontend}, {self.target or 'no target yet'})"


def share_dir() -> Path:
    if os.environ.get("TRACEPILOT_SHARE_DIR"):
        return Path(os.environ["TRACEPILOT_SHARE_DIR"])
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "tracepilot"
    return Path("/tmp") / f"tracepilot-{os.getuid()}"


def private_dir(create: bool = True) -> Path:
    """The registry directory, made if missing and refused unless it is ours alone."""
    path = share_dir()
    if create:
        try:
            path.mkdir(mode=0o700, parents=False)
        except FileExistsError:
            pass
        except FileNotFoundError:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                path.mkdir(mode=0o700)
    check_private_dir(path)
    return path


def check_private_dir(path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise ShareError(f"{path} does not exist", "no session has been published on this machine") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ShareError(f"{path} is not a directory (a symlink?)", "remove it; tracepilot recreates it")
    if st.st_uid != os.getuid():
        raise ShareError(f"{path} belongs to another user (uid {st.st_uid})",
                         "set TRACEPILOT_SHARE_DIR to a directory of your own")
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise ShareError(f"{path} is readable by others (mode {stat.S_IMODE(st.st_mode):o})",
                         f"chmod 700 {path}, or remove it so tracepilot recreates it")


def allocate(frontend: str) -> tuple[str, Path]:
    """A fresh session id and its socket path (`mcp-4242`, `tui-4242-2` for a second one in a process)."""
    directory = private_dir()
    n = next(_counter)
    session_id = f"{frontend}-{os.getpid()}" + (f"-{n}" if n > 1 else "")
    return session_id, directory / f"{session_id}.sock"


def write_descriptor(info: SessionInfo) -> None:
    path = info.descriptor
    tmp = path.with_suffix(".json.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(info.__dict__, f)
    os.replace(tmp, path)


def remove(info: SessionInfo) -> None:
    for path in (Path(info.socket), info.descriptor):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed child not yet reaped is a zombie: gone for our purposes
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _listening(path: str) -> bool:
    """Someone accepts on the socket (a killed host leaves a socket file nobody listens on)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        return False
    except OSError:
        return True  # busy or slow: not proof of death
    finally:
        probe.close()
    return True


def list_sessions(clean: bool = True) -> list[SessionInfo]:
    """Live sessions, oldest first; entries of dead processes are removed on the way."""
    try:
        directory = private_dir(create=False)
    except ShareError:
        if not share_dir().exists():
            return []
        raise
    sessions = []
    for path in sorted(directory.glob("*.json")):
        try:
            info = SessionInfo(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if not _alive(info.pid) or not _listening(info.socket):
            if clean:
                remove(info)
            continue
        sessions.append(info)
    return sorted(sessions, key=lambda s: s.since)


def resolve(name: str | None) -> SessionInfo:
    """The session a person or agent means: id, pid, unique id prefix or target; None = the newest."""
    sessions = list_sessions()
    if not sessions:
        raise ShareError("no live tracepilot session on this machine",
                         "start one first: tracepilot --mcp, tracepilot attach HOST:PORT or tracepilot repl HOST:PORT")
    if not name:
        return sessions[-1]
    for match in (lambda s: s.id == name, lambda s: str(s.pid) == name, lambda s: s.id.startswith(name),
                  lambda s: bool(s.target) and name in str(s.target)):
        found = [s for s in sessions if match(s)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ShareError(f"{name!r} matches {len(found)} sessions: {', '.join(s.id for s in found)}",
                             "give the full session id (tracepilot sessions lists them)")
    raise ShareError(f"no live session {name!r}", "live ones: " + ", ".join(s.label() for s in sessions))


def choose(name: str | None, ask: Callable[[list[SessionInfo]], str] | None) -> SessionInfo:
    """The session a person means (`tracepilot watch`): as `resolve`, but with no name and several live
    sessions never silently the newest: `ask` (a terminal's prompt) picks one by number or name, and with no
    way to ask the error lists them."""
    sessions = list_sessions() if not name else []
    if len(sessions) <= 1:
        return resolve(name)
    if ask is None:
        raise ShareError(f"{len(sessions)} live sessions; say which one:\n{format_sessions(sessions)}",
                         "give its id (or its pid, or part of its target)")
    answer = ask(sessions).strip()
    if answer.isdigit() and 1 <= int(answer) <= len(sessions):
        return sessions[int(answer) - 1]
    if not answer:
        raise ShareError("no session chosen", "run it again and pick one, or give its id")
    return resolve(answer)


def _age(since: float) -> str:
    seconds = int(time.time() - since)
    if seconds < 120:
        return f"{seconds}s ago"
    if seconds < 7200:
        return f"{seconds // 60}m ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(since))


def format_sessions(sessions: list[SessionInfo]) -> str:
    if not sessions:
        return "No live tracepilot sessions."
    rows = [("SESSION", "FRONT END", "PID", "TARGET", "SINCE")]
    rows += [(s.id, s.frontend, str(s.pid), s.target or "-", _age(s.since)) for s in sessions]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)) for row in rows]
    lines.append("tracepilot watch SESSION to follow one; tracepilot --mcp --join SESSION to drive one")
    return "\n".join(lines)


def print_sessions() -> int:
    """`tracepilot sessions`."""
    try:
        sessions = list_sessions()
    except ShareError as e:
        print(f"tracepilot sessions: {e}", file=sys.stderr)
        return 1
    print(format_sessions(sessions))
    return 0
