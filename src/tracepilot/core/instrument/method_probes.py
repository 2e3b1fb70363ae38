"""Method breakpoints in the JVM: which ones can be exact, their probe spec, and the stop they make.

A method-entry breakpoint (a breakpoint given as a method, or method_break on entry) and a method-exit one
with a condition or a log message compile into the method (method_sites.py says where). What the round trip
reports, they report: an entry stop stands at the method's first code index, an exit stop at the return
instruction, with the value returned (`$return`) read from the probe's first argument.

What stays on the round trip, and why:
- an exit of a native method (JDWP reports it; there is no code to call a probe from);
- a hit count over several overloads (the round trip counts their hits together; each method has its own
  probe, which counts its own);
- an exit logpoint: its line ends with the value returned as the debugger renders it (objects included).
"""

from __future__ import annotations

from typing import Any

from ...jdwp import EventKind, StackFrame
from ...jdwp.wire import VOID, Location, Value
from ..model import CodeLocation
from .method_sites import ENTRY, EXIT, return_descriptor_of
from .plan import ProbeSpec

__all__ = ["KINDS", "ExitStop", "MethodStop", "method_refusal", "method_spec", "probe_stop", "logged_at"]

KINDS = {"method_entry": ENTRY, "method_exit": EXIT}
INVOKESTATIC_LENGTH = 3  # the probe call right before the return instruction


def method_refusal(bp: Any, methods: list[Any]) -> str | None:
    """Why this method breakpoint cannot be exact in the JVM, or None."""
    if bp.info.kind == "method_exit" and any(m.is_native for m in methods):
        return "a native method's exit is seen only by the JVM's method-exit events"
    if bp.hit_rule is not None and len([m for m in methods if not (m.is_native or m.is_abstract)]) > 1:
        return "a hit count over several overloads is counted by the debugger"
    if bp.info.kind == "method_exit" and bp.info.log:
        return "an exit logpoint's line ends with the value returned, as the debugger renders it"
    if not any(not (m.is_native or m.is_abstract) for m in methods):
        return "the method has no code (native or abstract)"
    return None


def method_spec(bp: Any, methods: list[Any], probe_name: str, rule: tuple[str, int] | None) -> ProbeSpec:
    signatures = tuple(sorted(m.name + m.signature for m in methods if not (m.is_native or m.is_abstract)))
    return ProbeSpec(0, bp.info.condition, bp.info.log, probe_name, rule, at=KINDS[bp.info.kind],
                     methods=signatures)


class MethodStop:
    """The event a method-entry probe's hit stands for, as the round trip would have received it."""

    KIND = EventKind.BREAKPOINT

    def __init__(self, thread: int, location: Location, request_id: int, value: Value | None = None) -> None:
        self.thread, self.location, self.request_id = thread, location, request_id
        self.value = value


class ExitStop(MethodStop):
    """A method-exit probe's hit: the round trip's METHOD_EXIT_WITH_RETURN_VALUE event."""

    KIND = EventKind.METHOD_EXIT_WITH_RETURN_VALUE


async def probe_stop(vm: Any, spec: ProbeSpec, thread: int, check: Any, user: Location,
                     request_id: int, method: str) -> MethodStop:
    """Read before the probe's frames are popped: `check` is the probe's frame, `user` the location of the
    probe call in the user's method (`method`: its name + descriptor)."""
    if spec.at == ENTRY:
        return MethodStop(thread, Location(user.type_tag, user.class_id, user.method_id, 0), request_id)
    returned = return_descriptor_of(method)
    value = VOID
    if returned != "V":
        tag = ord("L") if returned[0] in "L[" else ord(returned[0])
        value = (await vm.send(StackFrame.GetValues, thread, check.frame_id, [(0, tag)])).values[0]
    at_return = Location(user.type_tag, user.class_id, user.method_id, user.index + INVOKESTATIC_LENGTH)
    return ExitStop(thread, at_return, request_id, value)


def logged_at(bp: Any, method: str) -> CodeLocation | None:
    """Where a method logpoint's lines say they fired: the entry of the method whose probe logged them."""
    for loc in bp.info.locations:
        if (loc.method + (loc.method_signature or "")) == method:
            return loc
    return bp.info.locations[0] if bp.info.locations else None
