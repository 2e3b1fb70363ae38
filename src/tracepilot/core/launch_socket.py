"""The socket a launched JVM's debug agent connects to (issue 25, point 5).

A JVM started with `server=y` listens on a port every local user can connect to until the debugger's
handshake arrives: another user can win that race and own the JVM. So tracepilot listens instead, on an
ephemeral loopback port, and starts the JVM with `server=n,address=127.0.0.1:PORT`: the JVM opens no port
at all. Anyone local could still connect to tracepilot's port while it waits, so each connection is checked
before it is used: on Linux the peer's socket (found in /proc/net/tcp by the connection's ports) must be
held by the launched process or one of its descendants (/proc/PID/fd); any other peer is closed unanswered
and reported. The listener closes as soon as the JVM is in. (Without /proc the first connection is taken.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

PROC = Path("/proc")


def agent_option(port: int) -> str:
    """The JDWP agent option that makes the JVM connect out to tracepilot (suspended until we resume)."""
    return f"-agentlib:jdwp=transport=dt_socket,server=n,suspend=y,address=127.0.0.1:{port}"


class PeerNotChild(Exception):
    """The connection came from some other process, not from the launched JVM."""


@dataclass
class LaunchListener:
    """A loopback listening socket that hands over exactly one connection: the launched process's."""

    sock: socket.socket
    refused: list[str] = field(default_factory=list)

    @classmethod
    def open(cls) -> LaunchListener:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))
            sock.listen(8)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        return cls(sock)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def close(self) -> None:
        self.sock.close()

    async def accept_from(self, pid: int) -> socket.socket:
        """The first connection made by process `pid` (or a descendant); others are closed and noted in
        `refused`. Runs until such a connection arrives: the caller bounds it (JVM exit, deadline)."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                conn, peer = await loop.sock_accept(self.sock)
                try:
                    verify_peer(conn, pid)
                except PeerNotChild as exc:
                    note = f"refused a connection to the launch port from {peer[0]}:{peer[1]} ({exc})"
                    log.warning("%s", note)
                    self.refused.append(note)
                    conn.close()
                    continue
                return conn
        finally:
            self.close()  # one connection only: nobody else gets in after the JVM


def verify_peer(conn: socket.socket, pid: int) -> None:
    """Raise PeerNotChild unless the other end of `conn` is held by `pid` or one of its descendants."""
    if not (PROC / "net" / "tcp").exists():
        return  # no /proc (not Linux): nothing to check with; the port is loopback-only and short-lived
    ours = conn.getsockname()[1]
    theirs = conn.getpeername()[1]
    entry = _tcp_entry(local_port=theirs, remote_port=ours)
    if entry is None:
        raise PeerNotChild("its socket is not in /proc/net/tcp: it closed, or is not local")
    inode, uid = entry
    if uid != os.getuid():
        raise PeerNotChild(f"uid {uid}, not ours")
    if not _held_by_tree(inode, pid):
        raise PeerNotChild(f"uid {uid}, but not the launched JVM (pid {pid})")


def _tcp_entry(local_port: int, remote_port: int) -> tuple[int, int] | None:
    """(inode, uid) of the loopback socket with these local and remote ports, from /proc/net/tcp{,6}."""
    for name in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) < 10:
                continue
            try:
                local = int(cols[1].rsplit(":", 1)[1], 16)
                remote = int(cols[2].rsplit(":", 1)[1], 16)
            except ValueError:
                continue
            if local == local_port and remote == remote_port:
                return int(cols[9]), int(cols[7])
    return None


def _held_by_tree(inode: int, pid: int) -> bool:
    """Does `pid`, or a process descended from it (a `java` wrapper script's child), hold socket `inode`?"""
    link = f"socket:[{inode}]"
    return any(_holds(candidate, link) for candidate in [pid, *_descendants(pid)])


def _holds(pid: int, link: str) -> bool:
    with contextlib.suppress(OSError):
        for fd in (PROC / str(pid) / "fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) == link:
                    return True
    return False


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])  # field 4; the name (field 2) may hold spaces
                children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found
