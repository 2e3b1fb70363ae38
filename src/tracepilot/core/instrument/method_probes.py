"""Method breakpoints in the JVM: which ones can be exact, their probe spec, and the stop they make.

A method-entry breakpoint (a breakpoint given as a method, or method_break on entry) and a method-exit one
with a condition or a log message compile into the method (method_sites.py says where). What the round trip
reports, they report: an entry stop stands at the method's first code index, an exit stop at the return
instruction, with the value returned (`$return`) read from the probe's first argument.

What stays on the round trip, and why:
- an exit of a native method (JDWP reports it; there is no code to call a probe from);
- a hit count over several overloads (the round trip counts their hits together; each method has its own
  probe, which counts its own);
- a thread filter with a hit count or a log message (the probe counts and logs every thread's hits);
- an exit logpoint of a method returning an object, array, float or double: its line ends with the value
  returned as the debugger renders it (method_sites.LOGGED_RETURNS are the types the JVM writes alike).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...jdwp import EventKind, StackFrame, Tag
from ...jdwp.wire import VOID, Location, Value
from ..inspect.values import NESTED_STRING, format_primitive, quote_string
from ..model import CodeLocation
from .method_sites import ENTRY, EXIT, return_descriptor_of, split_exit_line
from .plan import ProbeSpec
from .probe import STRING_CLOSE, STRING_OPEN

__all__ = ["KINDS", "ExitStop", "MethodStop", "exit_line", "logged_at", "method_refusal", "method_spec",
           "probe_stop", "still_exact"]

KINDS = {"method_entry": ENTRY, "method_exit": EXIT}
INVOKESTATIC_LENGTH = 3  # the probe call right before the return instruction


def method_refusal(bp: Any, methods: list[Any]) -> str | None:
    """Why this method breakpoint cannot be exact in the JVM, or None."""
    if bp.info.kind == "method_exit" and any(m.is_native for m in methods):
        return "a native method's exit is seen only by the JVM's method-exit events"
    if bp.hit_rule is not None and len([m for m in methods if not (m.is_native or m.is_abstract)]) > 1:
        return "a hit count over several overloads is counted by the debugger"
    if bp.thread_id and (bp.hit_rule is not None or bp.info.log):
        return "a thread filter on a hit count or log message is applied by the debugger"
    if not any(not (m.is_native or m.is_abstract) for m in methods):
        return "the method has no code (native or abstract)"
    return None


def still_exact(bp: Any, spec: ProbeSpec) -> bool:
    """After a change of the breakpoint (hit count, thread, log), may its probes stay? (method_refusal's
    rules that a change can break; False: it is installed again, and says why it went to the round trip)."""
    if bp.hit_rule is not None and len(spec.methods) > 1:
        return False
    return not (bp.thread_id and (bp.hit_rule is not None or bp.info.log))


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


async def probe_stop(vm: Any, at: str, thread: int, check: Any, user: Location,
                     request_id: int, method: str) -> MethodStop:
    """Read before the probe's frames are popped: `at` is ENTRY or EXIT, `check` the probe's frame, `user`
    the location of the probe call in the user's method (`method`: its name + descriptor)."""
    if at == ENTRY:
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


def exit_line(bp: Any, method: str, sites: list[int], line: str) -> tuple[str, CodeLocation | None, str | None]:
    """One exit logpoint's line from the JVM -> its text, where it fired (the return's line) and the value
    returned as the round trip shows it (" — at Foo.bar:12 [main] returned 42"); None: not one of ours."""
    entry = logged_at(bp, method)
    parts = split_exit_line(line)
    if parts is None or entry is None:  # not a line this probe wrote: kept as it came
        return line, entry, None
    text, site, is_null, value = parts
    where = dataclasses.replace(entry, line=sites[site] if site < len(sites) else -1)
    return text, where, _returned_text(return_descriptor_of(method), is_null, value)


def _returned_text(descriptor: str, is_null: bool, value: str) -> str:
    """The value as the debugger's view at depth 1 shows it (inspect/values.py)."""
    if descriptor == "V":
        return format_primitive(VOID)
    if is_null:
        return "null"
    if value.startswith(STRING_OPEN) and value.endswith(STRING_CLOSE):
        return quote_string(value[1:-1], NESTED_STRING)
    if descriptor == "C":
        return format_primitive(Value(Tag.CHAR, value))
    return value
