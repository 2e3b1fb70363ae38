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
        """'* server: STOPPED at fixtures.PriceServer.answer(PriceServer.java:24) — breakpoint bp-1 (127.0.0.1:5005, pid 7)'."""
        mark = "*" if self.current else " "
        where = (self.stop or "").removeprefix("STOPPED")
        code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
        address = self.address if self.address != self.name else None  # (an attached target is named so)
        about = ", ".join(part for part in (address, f"pid {self.pid}" if self.pid else "") if part)
        return f"{mark} {self.name}: {self.state.value}{code}{where}" + (f" ({about})" if about else "")
