"""The Differential fixture's gates as scripted tests drive them (tests/java/fixtures/Differential.java): at each
gate the program prints "gate K" and waits, running, for the file go-K in its gate directory. Breakpoints are
set, changed and removed there "while running" at a known place."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tracepilot.core.model import SessionState, StopKind

GATE = re.compile(r"^gate (\d+)$", re.MULTILINE)


class Gates:
    """One debugger on one Differential JVM: what comes next (a stop, a gate, the end), and the way on."""

    def __init__(self, debugger: Any, jvm: Any, gate_dir: Path, timeout: float = 20.0,
                 so_far: list[Any] | None = None) -> None:
        self.debugger, self.jvm, self.gate_dir, self.timeout = debugger, jvm, gate_dir, timeout
        self.seen = 0  # gates printed so far
        self.so_far = so_far  # (the answers until now, for the message when nothing comes)

    @classmethod
    def started(cls, jvm_factory: Any, java_source_root: Path, in_jvm: bool, so_far: list[Any] | None = None,
                args: tuple[str, ...] = ("24", "8")) -> Gates:
        """A Differential JVM (its arguments `args`, then its gate directory) and a debugger for it, not attached
        yet, in-JVM mode or round trip (`in_jvm`)."""
        from tracepilot.core.debugger import Debugger  # noqa: PLC0415

        gate_dir = Path(tempfile.mkdtemp(prefix="tp-gates-"))
        jvm = jvm_factory("Differential", *args, str(gate_dir))
        debugger = Debugger(sourcepath=[str(java_source_root)])
        debugger.session.breakpoints.in_jvm.enabled = in_jvm
        return cls(debugger, jvm, gate_dir, so_far=so_far)

    async def settle(self, stop_answer: Callable[[Any], Awaitable[Any]]) -> Any:
        """`stop_answer(result)` at the next stop, "exited" once the program ended, or "gate K" once it printed a
        new gate."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            result = await self.debugger.wait_for_stop(timeout=0.05)
            if result.stopped:
                if result.stop is not None and result.stop.kind is StopKind.VM_DEATH:
                    return "exited"
                return await stop_answer(result)
            if self.debugger.session.state not in (SessionState.RUNNING, SessionState.STOPPED):
                return "exited"
            found = GATE.findall(self.jvm.stdout_text())
            if len(found) > self.seen:
                self.seen = len(found)
                return f"gate {found[-1]}"
        raise AssertionError(await self._stuck())

    def open(self) -> None:
        """Let the program on from the gate it waits at."""
        (self.gate_dir / f"go-{self.seen - 1}").touch()

    async def go(self, stop_answer: Callable[[Any], Awaitable[Any]]) -> Any:
        """Resume from a stop, or open the gate the program waits at; then what comes next (settle)."""
        if self.debugger.session.state is SessionState.STOPPED:
            await self.debugger.resume(timeout=0)
        else:
            self.open()
        return await self.settle(stop_answer)

    async def _stuck(self) -> str:
        session = self.debugger.session
        threads = [(t.name, t.state, str(t.location)) for t in await self.debugger.threads(include_system=True)] \
            if session.conn else None
        text = (f"neither a stop nor a gate after {self.timeout:g}s ({session.state}, exit code "
                f"{self.jvm.returncode}, threads {threads}, output {self.jvm.stdout_text()[-300:]!r})")
        return text if self.so_far is None else text + "; so far:\n" + "\n".join(map(repr, self.so_far))
