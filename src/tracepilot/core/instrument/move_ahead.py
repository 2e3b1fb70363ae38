"""What a move into the JVM can learn before it holds every thread.

A round-trip hit of a breakpoint that waits to move (jvm.InJvm.maybe_upgrade) holds one thread; the move,
where the hitting call returns, holds them all. Whether the move must be refused because a thread is inside a
method the instrumentation changes depends on which methods those are, and learning that takes instrumenting
the class and comparing the versions (~100 ms for a Jetty class). A trial instrumentation at the hit learns it
with one thread held; the move reuses the answer when nothing it depends on has changed since (the class's
other probes, the breakpoint's condition, log, hit rule, capture), and refuses at once, asking the JVM for the
frames only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .plan import NotCompilable, ProbeSpec, instrument
from .safety import changed_methods

__all__ = ["Trial", "trial_key", "try_instrument"]


@dataclass(frozen=True)
class Trial:
    key: tuple[Any, ...]
    changed: frozenset[str] | None  # None: every method counts as changed (a version could not be read)


def trial_key(record: Any, spec: ProbeSpec) -> tuple[Any, ...]:
    """What the methods the instrumentation changes depend on: the class's probes now (kept and retired), and
    the spec without its probe's name and capture id (which name the probe, not where it goes; a capture's
    checks are tried as if it were taken in the JVM: stricter, so a trial that compiles means the move does)."""
    return (record.type_id, hash(record.original), tuple(record.specs.items()), tuple(record.retired.items()),
            len(record.data), replace(spec, probe_name="", take=None))  # (a bytes object keeps its hash: cheap)


async def try_instrument(record: Any, spec: ProbeSpec, resolver: Any, capture_names: tuple[str, ...] | None
                         ) -> Trial | None:
    """Instrument the class as the move would (None: it does not compile, the move says why itself)."""
    trial_spec = spec if capture_names is None else replace(spec, take=0, take_names=capture_names)
    try:
        result = await instrument(record.original, [*record.specs.values(), trial_spec], resolver, None)
    except NotCompilable:
        return None
    changed = changed_methods(record.data, result.data)
    return Trial(trial_key(record, spec), None if changed is None else frozenset(changed))
