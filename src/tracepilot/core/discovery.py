"""Find local JVMs that run a JDWP agent, and the ports they listen on (Linux /proc).

A JVM is a candidate when its command line carries `-agentlib:jdwp=...` or `-Xrunjdwp:...`. Its
listening TCP sockets come from /proc/net/tcp{,6} matched against the socket inodes in /proc/PID/fd.
A port is confirmed by the JDWP handshake — except for targets started with suspend=y: completing a
handshake and hanging up counts as a debugger session that ended, and the agent then resumes the VM,
so probing would start a program that is waiting for its debugger.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

from .model import Model

HANDSHAKE = b"JDWP-Handshake"
_LISTEN = "0A"


@dataclass
class JdwpProcess(Model):
    pid: int
    command: str  # the java command line, shortened
    agent: str  # the agent options: "transport=dt_socket,server=y,suspend=y,address=*:5005"
    server: bool
    suspend: bool
    address: str | None  # as configured
    ports: list[int] = field(default_factory=list)  # listening now (JDWP or not: a server's HTTP port too)
    confirmed: list[int] = field(default_factory=list)  # answered the JDWP handshake
    refused: list[int] = field(default_factory=list)  # probed, and did not answer it: not JDWP
    note: str | None = None

    @property
    def configured_port(self) -> int | None:
        """The port of the agent's own address option (address=5005, *:5005, host:5005); None if ephemeral."""
        tail = (self.address or "").rpartition(":")[2]
        return int(tail) if tail.isdigit() and int(tail) > 0 else None

    @property
    def jdwp_ports(self) -> list[int]:
        """Ports known to be the JDWP agent's: confirmed by handshake, or the one its address option names."""
        known = [p for p in self.ports if p in self.confirmed or p == self.configured_port]
        return sorted(set(known))

    @property
    def unverified_ports(self) -> list[int]:
        """Listening ports that may be the agent's: not probed (suspend=y) and not named by its options."""
        return [p for p in self.ports if p not in self.jdwp_ports and p not in self.refused]

    def port_kind(self, port: int) -> str:
        if port in self.confirmed:
            return "JDWP, answered the handshake"
        if port == self.configured_port:
            return "JDWP, from its -agentlib address"
        if port in self.refused:
            return "not JDWP"
        return "not verified"

    def describe(self) -> str:
        ports = ", ".join(f"{p} ({self.port_kind(p)})" for p in self.ports) or "no listening port"
        text = f"pid {self.pid}: {ports} — {self.command}"
        if self.note:
            text += f" ({self.note})"
        return text


def _agent_options(args: list[str]) -> str | None:
    for arg in args:
        if arg.startswith("-agentlib:jdwp="):
            return arg.split("=", 1)[1]
        if arg.startswith("-Xrunjdwp:"):
            return arg.split(":", 1)[1]
    return None


def _parse_options(options: str) -> dict[str, str]:
    out = {}
    for part in options.split(","):
        key, _, val = part.partition("=")
        out[key.strip()] = val.strip()
    return out


def _listening_inodes(proc: Path) -> dict[int, int]:
    """Socket inode -> port of every listening TCP socket on this machine."""
    found: dict[int, int] = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) < 10 or cols[3] != _LISTEN:
                continue
            port = int(cols[1].rsplit(":", 1)[1], 16)
            found[int(cols[9])] = port
    return found


def _socket_inodes(pid_dir: Path) -> set[int]:
    inodes = set()
    try:
        fds = list((pid_dir / "fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def find_jdwp_processes(proc: str | os.PathLike[str] = "/proc") -> list[JdwpProcess]:
    """Every process with a JDWP agent on its command line, with its listening ports (no probing)."""
    root = Path(proc)
    if not root.is_dir():
        return []
    listening = _listening_inodes(root)
    found: list[JdwpProcess] = []
    for pid_dir in root.iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            args = (pid_dir / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        options = _agent_options(args)
        if options is None:
            continue
        opts = _parse_options(options)
        ports = sorted({listening[i] for i in _socket_inodes(pid_dir) if i in listening})
        command = " ".join(a for a in args if a and not a.startswith("-agentlib:jdwp") and not a.startswith("-Xrunjdwp"))
        found.append(JdwpProcess(
            pid=int(pid_dir.name), command=command[:160], agent=options,
            server=opts.get("server", "n") == "y", suspend=opts.get("suspend", "y") == "y",
            address=opts.get("address"), ports=ports))
    found.sort(key=lambda p: p.pid)
    return found


async def confirm_handshake(host: str, port: int, timeout: float = 1.0) -> bool:
    """True when the port answers the JDWP handshake (then hangs up)."""
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        writer.write(HANDSHAKE)
        await writer.drain()
        answer = await asyncio.wait_for(reader.readexactly(len(HANDSHAKE)), timeout)
        return answer == HANDSHAKE
    except (TimeoutError, OSError, asyncio.IncompleteReadError):
        return False
    finally:
        if writer is not None:
            writer.close()
            try:
                await writer.wait_closed()
            except (OSError, ConnectionError):
                pass


async def discover(proc: str | os.PathLike[str] = "/proc", probe: bool = True, host: str = "127.0.0.1",
                   skip_ports: set[int] | frozenset[int] = frozenset(),
                   pids: set[int] | None = None) -> list[JdwpProcess]:
    """Local JDWP JVMs (or only `pids`); with `probe`, confirm each listening port by handshake (not
    suspend=y targets)."""
    processes = [p for p in find_jdwp_processes(proc) if pids is None or p.pid in pids]
    if not probe:
        return processes
    checks = []
    for p in processes:
        if not p.server:
            p.note = "agent connects out (server=n)"
            continue
        if p.suspend:
            p.note = "suspend=y: not probed, a handshake would let it start" if p.ports else None
            continue
        for port in p.ports:
            if port not in skip_ports:
                checks.append((p, port, confirm_handshake(host, port)))
    results = await asyncio.gather(*(c[2] for c in checks)) if checks else []
    for (p, port, _), ok in zip(checks, results, strict=True):
        (p.confirmed if ok else p.refused).append(port)
    return processes


async def find_debuggable_jvms(proc: str | os.PathLike[str] = "/proc") -> list[JdwpProcess]:
    """What `diagnose` reports: local JDWP JVMs with their ports, confirmed by handshake where safe."""
    return await discover(proc)
