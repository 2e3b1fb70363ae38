"""JDWP events (Event.Composite, command set 64) and EventRequest modifiers, as data.

`Mod.Count(5)`, `Mod.LocationOnly(loc)`... build request modifiers; decoded events are namedtuples such as
`Ev.Breakpoint(request_id, thread, location)` whose class carries the event kind in `KIND`.
"""

from __future__ import annotations

from types import SimpleNamespace

from .commands import MODIFIER, EventRequest
from .constants import EventKind
from .spec import CompiledSelect, Repeat, Select, compile_struct

_RT = (("request_id", "int"), ("thread", "thread"))
_RTL = (*_RT, ("location", "location"))

EVENT = Select({
    EventKind.VM_START: ("VMStart", _RT),
    EventKind.SINGLE_STEP: ("SingleStep", _RTL),
    EventKind.BREAKPOINT: ("Breakpoint", _RTL),
    EventKind.METHOD_ENTRY: ("MethodEntry", _RTL),
    EventKind.METHOD_EXIT: ("MethodExit", _RTL),
    EventKind.METHOD_EXIT_WITH_RETURN_VALUE: ("MethodExitWithReturnValue", (*_RTL, ("value", "value"))),
    EventKind.MONITOR_CONTENDED_ENTER: ("MonitorContendedEnter", (*_RT, ("object", "tagged_object"), ("location", "location"))),
    EventKind.MONITOR_CONTENDED_ENTERED: ("MonitorContendedEntered", (*_RT, ("object", "tagged_object"), ("location", "location"))),
    EventKind.MONITOR_WAIT: ("MonitorWait", (*_RT, ("object", "tagged_object"), ("location", "location"), ("timeout", "long"))),
    EventKind.MONITOR_WAITED: ("MonitorWaited", (*_RT, ("object", "tagged_object"), ("location", "location"), ("timed_out", "boolean"))),
    EventKind.EXCEPTION: ("Exception", (*_RTL, ("exception", "tagged_object"), ("catch_location", "location"))),
    EventKind.THREAD_START: ("ThreadStart", _RT),
    EventKind.THREAD_DEATH: ("ThreadDeath", _RT),
    EventKind.CLASS_PREPARE: ("ClassPrepare", (*_RT, ("ref_type_tag", "byte"), ("type_id", "reference_type"),
                                               ("signature", "string"), ("status", "int"))),
    EventKind.CLASS_UNLOAD: ("ClassUnload", (("request_id", "int"), ("signature", "string"))),
    EventKind.FIELD_ACCESS: ("FieldAccess", (*_RTL, ("ref_type_tag", "byte"), ("type_id", "reference_type"),
                                             ("field_id", "field"), ("object", "tagged_object"))),
    EventKind.FIELD_MODIFICATION: ("FieldModification", (*_RTL, ("ref_type_tag", "byte"), ("type_id", "reference_type"),
                                                         ("field_id", "field"), ("object", "tagged_object"),
                                                         ("value_to_be", "value"))),
    EventKind.VM_DEATH: ("VMDeath", (("request_id", "int"),)),
})

Composite, encode_composite, decode_composite = compile_struct(
    "Composite", (("suspend_policy", "byte"), ("events", Repeat((("event", EVENT),))))
)
_events_select: CompiledSelect = Composite.SUBTYPES["events"]
_modifier_select: CompiledSelect = EventRequest.Set.Request.SUBTYPES["modifiers"]

#: Event classes by name: Ev.Breakpoint, Ev.SingleStep, ...
Ev = SimpleNamespace(**_events_select.by_name)
#: Modifier classes by name: Mod.Count, Mod.LocationOnly, ...
Mod = SimpleNamespace(**_modifier_select.by_name)
EVENT_CLASSES: dict[int, type] = dict(_events_select.classes)

__all__ = ["Composite", "EVENT", "MODIFIER", "Ev", "Mod", "EVENT_CLASSES", "encode_composite", "decode_composite"]
