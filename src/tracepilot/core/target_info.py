"""`TargetInfo`: one JVM of a session with several targets, as `status` and `targets` list it (core/targets.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Model, SessionState


@dataclass
class TargetInfo(Model):
    """One JVM of a session with several targets, as `status` lists it."""

    name: str
    state: SessionState
    address: str | None  # "localhost:5005", or the launched JVM's debug address
    current: bool = False  # the target of the current stop (tools without `target` act on it)
    stop: str | None = None  # its current stop's headline
    pid: int | None = None
    exit_code: int | None = None

    def line(self) -> str:
        mark = "*" if self.current else " "
        where = f" {self.stop}" if self.stop else ""
        pid = f" pid {self.pid}" if self.pid else ""
        code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        return f"{mark} {self.name}: {self.state.value}{code} {self.address or ''}{pid}{where}".rstrip()
