"""What a guest debugger may do through the JDWP front end, and what of the session it must not see.

- A read-only session refuses the guest every command that changes the program (`SIDE_EFFECTS`) with JDWP's
  NOT_IMPLEMENTED, as the session's own tools refuse them.
- The session's in-JVM probe classes (core/instrument/naming.py) are left out of class lists, and the guest's
  steps and method entry/exit requests never stop in them.
- A guest's method invocation runs single-threaded, as the session's own do: the other threads stay exactly as
  they are, so a call from the guest never runs a thread the agent holds at a stop.
"""

from __future__ import annotations

from typing import Any

from ..core.instrument.naming import EXCLUDE_PATTERN, is_probe_class
from ..jdwp import commands
from ..jdwp.constants import EventKind, InvokeOptions
from ..jdwp.events import Mod
from ..jdwp.wire import IdSizes, Reader, Writer

C = commands
Key = tuple[int, int]


def key(command: Any) -> Key:
    return command.set_id, command.cmd_id


SIDE_EFFECTS: dict[Key, str] = {key(c): c.name for c in (
    C.VirtualMachine.RedefineClasses, C.ClassType.SetValues, C.ClassType.InvokeMethod, C.ClassType.NewInstance,
    C.ArrayType.NewInstance, C.InterfaceType.InvokeMethod, C.ObjectReference.SetValues,
    C.ObjectReference.InvokeMethod, C.ThreadReference.Stop, C.ThreadReference.Interrupt,
    C.ThreadReference.ForceEarlyReturn, C.ArrayReference.SetValues, C.StackFrame.SetValues, C.StackFrame.PopFrames,
)}

INVOCATIONS: frozenset[Key] = frozenset(key(c) for c in (
    C.ClassType.InvokeMethod, C.ClassType.NewInstance, C.InterfaceType.InvokeMethod, C.ObjectReference.InvokeMethod,
))

# Capabilities a read-only session does not offer (a guest then greys out hot swap, drop frame, force return).
READ_ONLY_CAPABILITIES = ("can_redefine_classes", "can_add_method", "can_unrestrictedly_redefine_classes",
                          "can_pop_frames", "can_force_early_return")

# Requests whose events would otherwise stop inside a probe's code.
_EXCLUDE_PROBES_FROM = frozenset({EventKind.SINGLE_STEP, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT,
                                  EventKind.METHOD_EXIT_WITH_RETURN_VALUE})


def single_threaded(data: bytes) -> bytes:
    """An invocation's body with INVOKE_SINGLE_THREADED set (the options are its last int, in every variant)."""
    options = int.from_bytes(data[-4:], "big") | InvokeOptions.SINGLE_THREADED
    return data[:-4] + options.to_bytes(4, "big")


def event_request(data: bytes, sizes: IdSizes) -> tuple[int, bytes]:
    """(event kind, the request body to send): steps and method events exclude the probe classes."""
    request = C.EventRequest.Set.decode_request(Reader(data, sizes))
    if request.event_kind not in _EXCLUDE_PROBES_FROM:
        return request.event_kind, data
    modifiers = [Mod.ClassExclude(EXCLUDE_PATTERN), *request.modifiers]  # first: a Count counts only what is left
    w = Writer(sizes)
    C.EventRequest.Set.encode(w, (request.event_kind, request.suspend_policy, modifiers), {})
    return request.event_kind, bytes(w.buf)


def without_probe_classes(command: Any, data: bytes, sizes: IdSizes) -> bytes:
    """An AllClasses/AllClassesWithGeneric reply without the probe classes."""
    return _classes_kept(command, data, sizes, lambda c: not is_probe_class(c.signature))


def without_probe_types(data: bytes, sizes: IdSizes, is_probe: Any) -> bytes:
    """A ClassLoaderReference.VisibleClasses reply without the probe classes (by type id: it has no names)."""
    return _classes_kept(C.ClassLoaderReference.VisibleClasses, data, sizes, lambda c: not is_probe(c.type_id))


def _classes_kept(command: Any, data: bytes, sizes: IdSizes, keep: Any) -> bytes:
    """A class-list reply re-encoded with only the classes `keep` accepts (the bytes as they were when all are)."""
    reply = command.decode(Reader(data, sizes))
    kept = [c for c in reply.classes if keep(c)]
    if len(kept) == len(reply.classes):
        return data
    w = Writer(sizes)
    command.encode_reply(w, reply._replace(classes=kept))
    return bytes(w.buf)


def is_probe_signature(data: bytes, sizes: IdSizes) -> bool:
    """A ClassesBySignature request for a probe class."""
    return is_probe_class(C.VirtualMachine.ClassesBySignature.decode_request(Reader(data, sizes)).signature)


def read_only_capabilities(data: bytes, sizes: IdSizes) -> bytes:
    command = C.VirtualMachine.CapabilitiesNew
    reply = command.decode(Reader(data, sizes))
    w = Writer(sizes)
    command.encode_reply(w, reply._replace(**dict.fromkeys(READ_ONLY_CAPABILITIES, False)))
    return bytes(w.buf)
