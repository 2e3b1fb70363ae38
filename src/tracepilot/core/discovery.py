"""Find local JVMs that run a JDWP agent, and the ports they listen on (Linux /proc).

A JVM is a candidate when its command line carries `-agentlib:jdwp=...` or `-Xrunjdwp:...`. Its
listening TCP sockets come from /proc/net/tcp{,6} matched against the socket inodes in /proc/PID/fd.

Which of them is the agent's is known from its address option (`address=5005`) or, when the agent chose the
port itself (`address=0`), from `sun.jdwp.listenerAddress` in the JVM's agent properties (agent_address.py,
through the attach API); the other ports are the application's. Nothing is ever written to a port not known
to be JDWP: a price server or an HTTP port that gets the handshake starts a connection and logs garbage. The
handshake goes only to a port the address option names, and never to a target started with suspend=y
(completing a handshake and hanging up counts as a debugger session that ended, and the agent then resumes
the VM, so probing would start a program that is waiting for its debugger). The JVM this debugger is
attached to is listed by the JDWP port it is attached to.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

from .model import Model

HANDSHAKE = b"JDWP-Handshake"
_LISTEN = "0A"
_ESTABLISHED = "01"


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
    listener_port: int | None = None  # the agent's own port from its properties (address=0), when read
    attached_port: int | None = None  # this debugger is attached to the agent on this port

    @property
    def configured_port(self) -> int | None:
        """The port of the agent's own address option (address=5005, *:5005, host:5005); None if ephemeral."""
        tail = (self.address or "").rpartition(":")[2]
        return int(tail) if tail.isdigit() and int(tail) > 0 else None

    @property
    def agent_port(self) -> int | None:
        """The agent's port, when known: from its address option, else from its agent properties."""
        return self.configured_port or self.listener_port

    @property
    def jdwp_ports(self) -> list[int]:
        """Ports a debugger can attach to now: the agent's, listening (not the one this debugger holds)."""
        known = [p for p in self.ports if p in self.confirmed or p == self.agent_port]
        return sorted(set(known) - {self.attached_port})

    @property
    def unverified_ports(self) -> list[int]:
        """Listening ports that may be the agent's: its port is not known and nothing says otherwise."""
        return [p for p in self.ports if self.port_kind(p) == "not verified"]

    def port_kind(self, port: int) -> str:
        if port == self.attached_port:
            return "JDWP, attached here"
        if port in self.confirmed:
            return "JDWP, answered the handshake"
        if port == self.configured_port:
            return "JDWP, from its -agentlib address"
        if port == self.listener_port:
            return "JDWP, the agent's listening address"
        if port in self.refused or self.agent_port is not None or self.attached_port is not None:
            return "not JDWP"  # (the agent listens on one port: the others are the application's)
        return "not verified"

    @property
    def shown_ports(self) -> list[int]:
        """The listening ports, and the agent's port when a debugger holds it (it listens no more then)."""
        extra = [self.attached_port] if self.attached_port is not None else []
        return sorted(set(self.ports) | set(extra))

    def describe(self) -> str:
        ports = ", ".join(f"{p} ({self.port_kind(p)})" for p in self.shown_ports) or "no listening port"
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


def _listening_inodes(proc: Path, state: str = _LISTEN) -> dict[int, int]:
    """Socket inode -> local port of every TCP socket in `state` on this machine (listening by default)."""
    found: dict[int, int] = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if len(cols) < 10 or cols[3] != state:
                continue
            port = int(cols[1].rsplit(":", 1)[1], 16)
            found[int(cols[9])] = port
    return found


def _holds_connection_on(proc: Path, pid: int, port: int) -> bool:
    """Whether process `pid` has a connected socket whose local port is `port` (its agent's end of our
    debugger connection: a listening agent closes its listener while a debugger holds it)."""
    connected = _listening_inodes(proc, _ESTABLISHED)
    return any(connected.get(inode) == port for inode in _socket_inodes(proc / str(pid)))


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
                   pids: set[int] | None = None, attached_port: int | None = None) -> list[JdwpProcess]:
    """Local JDWP JVMs (or only `pids`). With `probe`: the agent's port of each JVM whose address option
    does not name one is read from its agent properties, and a port the option names is confirmed by the
    handshake (not suspend=y targets); no other port is ever written to. `attached_port`: the JDWP port this
    debugger is attached to on this machine (that JVM is listed by it)."""
    from .agent_address import listener_port  # noqa: PLC0415 (runs a JVM: only when probing)

    processes = [p for p in find_jdwp_processes(proc) if pids is None or p.pid in pids]
    if not probe:
        return processes
    for p in processes:
        if attached_port is not None and attached_port not in p.ports \
                and _holds_connection_on(Path(proc), p.pid, attached_port):
            p.attached_port = attached_port
    # (not suspend=y: such a JVM may not answer the attach API before its debugger comes, nor need it)
    ephemeral = [p for p in processes
                 if p.server and not p.suspend and p.configured_port is None and p.attached_port is None]
    ports = await asyncio.gather(*(listener_port(p.pid) for p in ephemeral)) if ephemeral else []
    for p, port in zip(ephemeral, ports, strict=True):
        p.listener_port = port
    checks = []
    for p in processes:
        if not p.server:
            p.note = "agent connects out (server=n)"
            continue
        if p.suspend:
            p.note = "suspend=y: not probed, a handshake would let it start" if p.ports else None
            continue
        port = p.configured_port
        if port is not None and port in p.ports and port not in skip_ports:
            checks.append((p, port, confirm_handshake(host, port)))
    results = await asyncio.gather(*(c[2] for c in checks)) if checks else []
    for (p, port, _), ok in zip(checks, results, strict=True):
        (p.confirmed if ok else p.refused).append(port)
    return processes


async def find_debuggable_jvms(proc: str | os.PathLike[str] = "/proc",
                               attached_port: int | None = None) -> list[JdwpProcess]:
    """What `diagnose` reports: local JDWP JVMs with their ports, never writing to an application's port."""
    return await discover(proc, attached_port=attached_port)
