"""The JDWP command table (JDWP spec, "Command Sets"), as data.

Each entry: command id, name, request fields, reply fields. Field kinds are described in spec.py.
Use as `commands.VirtualMachine.Version`; `ALL_COMMANDS` maps (set, command) ids to `Command`s.
"""

from __future__ import annotations

from .spec import Command, CommandSet, Repeat, Select

R = Repeat


def _fields(*pairs: tuple[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(pairs)


CLASS_REF = _fields(("ref_type_tag", "byte"), ("type_id", "reference_type"))
ARGUMENTS = ("arguments", R(_fields(("arg", "value"))))

VirtualMachine = CommandSet("VirtualMachine", 1)
VirtualMachine.add(1, "Version", reply=[
    ("description", "string"), ("jdwp_major", "int"), ("jdwp_minor", "int"),
    ("vm_version", "string"), ("vm_name", "string")])
VirtualMachine.add(2, "ClassesBySignature", [("signature", "string")], [
    ("classes", R(_fields(*CLASS_REF, ("status", "int"))))])
VirtualMachine.add(3, "AllClasses", reply=[
    ("classes", R(_fields(*CLASS_REF, ("signature", "string"), ("status", "int"))))])
VirtualMachine.add(4, "AllThreads", reply=[("threads", R(_fields(("thread", "thread"))))])
VirtualMachine.add(5, "TopLevelThreadGroups", reply=[("groups", R(_fields(("group", "thread_group"))))])
VirtualMachine.add(6, "Dispose")
VirtualMachine.add(7, "IDSizes", reply=[
    ("field_id_size", "int"), ("method_id_size", "int"), ("object_id_size", "int"),
    ("reference_type_id_size", "int"), ("frame_id_size", "int")])
VirtualMachine.add(8, "Suspend")
VirtualMachine.add(9, "Resume")
VirtualMachine.add(10, "Exit", [("exit_code", "int")])
VirtualMachine.add(11, "CreateString", [("utf", "string")], [("string_object", "string_id")])
VirtualMachine.add(12, "Capabilities", reply=[(name, "boolean") for name in (
    "can_watch_field_modification", "can_watch_field_access", "can_get_bytecodes",
    "can_get_synthetic_attribute", "can_get_owned_monitor_info", "can_get_current_contended_monitor",
    "can_get_monitor_info")])
VirtualMachine.add(13, "ClassPaths", reply=[
    ("base_dir", "string"), ("classpaths", R(_fields(("path", "string")))),
    ("bootclasspaths", R(_fields(("path", "string"))))])
VirtualMachine.add(14, "DisposeObjects", [("requests", R(_fields(("object", "object"), ("ref_cnt", "int"))))])
VirtualMachine.add(15, "HoldEvents")
VirtualMachine.add(16, "ReleaseEvents")
CAPABILITY_NAMES = (
    "can_watch_field_modification", "can_watch_field_access", "can_get_bytecodes",
    "can_get_synthetic_attribute", "can_get_owned_monitor_info", "can_get_current_contended_monitor",
    "can_get_monitor_info", "can_redefine_classes", "can_add_method", "can_unrestrictedly_redefine_classes",
    "can_pop_frames", "can_use_instance_filters", "can_get_source_debug_extension",
    "can_request_vm_death_event", "can_set_default_stratum", "can_get_instance_info",
    "can_request_monitor_events", "can_get_monitor_frame_info", "can_use_source_name_filters",
    "can_get_constant_pool", "can_force_early_return",
    *(f"reserved{i}" for i in range(22, 33)),
)
VirtualMachine.add(17, "CapabilitiesNew", reply=[(name, "boolean") for name in CAPABILITY_NAMES])
VirtualMachine.add(18, "RedefineClasses", [
    ("classes", R(_fields(("ref_type", "reference_type"), ("classfile", "bytes"))))])
VirtualMachine.add(19, "SetDefaultStratum", [("stratum_id", "string")])
VirtualMachine.add(20, "AllClassesWithGeneric", reply=[
    ("classes", R(_fields(*CLASS_REF, ("signature", "string"), ("generic_signature", "string"), ("status", "int"))))])
VirtualMachine.add(21, "InstanceCounts", [("ref_types", R(_fields(("ref_type", "reference_type"))))], [
    ("counts", R(_fields(("count", "long"))))])
VirtualMachine.add(22, "AllModules", reply=[("modules", R(_fields(("module", "module"))))])

ReferenceType = CommandSet("ReferenceType", 2)
_RT = [("ref_type", "reference_type")]
ReferenceType.add(1, "Signature", _RT, [("signature", "string")])
ReferenceType.add(2, "ClassLoader", _RT, [("class_loader", "class_loader")])
ReferenceType.add(3, "Modifiers", _RT, [("mod_bits", "int")])
ReferenceType.add(4, "Fields", _RT, [("declared", R(_fields(
    ("field_id", "field"), ("name", "string"), ("signature", "string"), ("mod_bits", "int"))))])
ReferenceType.add(5, "Methods", _RT, [("declared", R(_fields(
    ("method_id", "method"), ("name", "string"), ("signature", "string"), ("mod_bits", "int"))))])
ReferenceType.add(6, "GetValues", [*_RT, ("fields", R(_fields(("field_id", "field"))))], [
    ("values", R(_fields(("value", "value"))))])
ReferenceType.add(7, "SourceFile", _RT, [("source_file", "string")])
ReferenceType.add(8, "NestedTypes", _RT, [("classes", R(CLASS_REF))])
ReferenceType.add(9, "Status", _RT, [("status", "int")])
ReferenceType.add(10, "Interfaces", _RT, [("interfaces", R(_fields(("interface_type", "interface"))))])
ReferenceType.add(11, "ClassObject", _RT, [("class_object", "class_object")])
ReferenceType.add(12, "SourceDebugExtension", _RT, [("extension", "string")])
ReferenceType.add(13, "SignatureWithGeneric", _RT, [("signature", "string"), ("generic_signature", "string")])
ReferenceType.add(14, "FieldsWithGeneric", _RT, [("declared", R(_fields(
    ("field_id", "field"), ("name", "string"), ("signature", "string"), ("generic_signature", "string"),
    ("mod_bits", "int"))))])
ReferenceType.add(15, "MethodsWithGeneric", _RT, [("declared", R(_fields(
    ("method_id", "method"), ("name", "string"), ("signature", "string"), ("generic_signature", "string"),
    ("mod_bits", "int"))))])
ReferenceType.add(16, "Instances", [*_RT, ("max_instances", "int")], [
    ("instances", R(_fields(("instance", "tagged_object"))))])
ReferenceType.add(17, "ClassFileVersion", _RT, [("major_version", "int"), ("minor_version", "int")])
ReferenceType.add(18, "ConstantPool", _RT, [("count", "int"), ("bytes", "bytes")])
ReferenceType.add(19, "Module", _RT, [("module", "module")])

ClassType = CommandSet("ClassType", 3)
ClassType.add(1, "Superclass", [("clazz", "class")], [("superclass", "class")])
ClassType.add(2, "SetValues", [("clazz", "class"), ("values", R(_fields(
    ("field_id", "field"), ("value", "untagged_value"))))])
ClassType.add(3, "InvokeMethod", [
    ("clazz", "class"), ("thread", "thread"), ("method_id", "method"), ARGUMENTS, ("options", "int")], [
    ("return_value", "value"), ("exception", "tagged_object")])
ClassType.add(4, "NewInstance", [
    ("clazz", "class"), ("thread", "thread"), ("method_id", "method"), ARGUMENTS, ("options", "int")], [
    ("new_object", "tagged_object"), ("exception", "tagged_object")])

ArrayType = CommandSet("ArrayType", 4)
ArrayType.add(1, "NewInstance", [("arr_type", "array_type"), ("length", "int")], [("new_array", "tagged_object")])

InterfaceType = CommandSet("InterfaceType", 5)
InterfaceType.add(1, "InvokeMethod", [
    ("clazz", "interface"), ("thread", "thread"), ("method_id", "method"), ARGUMENTS, ("options", "int")], [
    ("return_value", "value"), ("exception", "tagged_object")])

Method = CommandSet("Method", 6)
_M = [("ref_type", "reference_type"), ("method_id", "method")]
Method.add(1, "LineTable", _M, [("start", "long"), ("end", "long"), ("lines", R(_fields(
    ("line_code_index", "long"), ("line_number", "int"))))])
Method.add(2, "VariableTable", _M, [("arg_cnt", "int"), ("slots", R(_fields(
    ("code_index", "long"), ("name", "string"), ("signature", "string"), ("length", "int"), ("slot", "int"))))])
Method.add(3, "Bytecodes", _M, [("bytecodes", "bytes")])
Method.add(4, "IsObsolete", _M, [("is_obsolete", "boolean")])
Method.add(5, "VariableTableWithGeneric", _M, [("arg_cnt", "int"), ("slots", R(_fields(
    ("code_index", "long"), ("name", "string"), ("signature", "string"), ("generic_signature", "string"),
    ("length", "int"), ("slot", "int"))))])

ObjectReference = CommandSet("ObjectReference", 9)
_O = [("object", "object")]
ObjectReference.add(1, "ReferenceType", _O, CLASS_REF)
ObjectReference.add(2, "GetValues", [*_O, ("fields", R(_fields(("field_id", "field"))))], [
    ("values", R(_fields(("value", "value"))))])
ObjectReference.add(3, "SetValues", [*_O, ("values", R(_fields(("field_id", "field"), ("value", "untagged_value"))))])
ObjectReference.add(5, "MonitorInfo", _O, [
    ("owner", "thread"), ("entry_count", "int"), ("waiters", R(_fields(("thread", "thread"))))])
ObjectReference.add(6, "InvokeMethod", [
    *_O, ("thread", "thread"), ("clazz", "class"), ("method_id", "method"), ARGUMENTS, ("options", "int")], [
    ("return_value", "value"), ("exception", "tagged_object")])
ObjectReference.add(7, "DisableCollection", _O)
ObjectReference.add(8, "EnableCollection", _O)
ObjectReference.add(9, "IsCollected", _O, [("is_collected", "boolean")])
ObjectReference.add(10, "ReferringObjects", [*_O, ("max_referrers", "int")], [
    ("referring_objects", R(_fields(("instance", "tagged_object"))))])

StringReference = CommandSet("StringReference", 10)
StringReference.add(1, "Value", [("string_object", "string_id")], [("string_value", "string")])

ThreadReference = CommandSet("ThreadReference", 11)
_T = [("thread", "thread")]
ThreadReference.add(1, "Name", _T, [("thread_name", "string")])
ThreadReference.add(2, "Suspend", _T)
ThreadReference.add(3, "Resume", _T)
ThreadReference.add(4, "Status", _T, [("thread_status", "int"), ("suspend_status", "int")])
ThreadReference.add(5, "ThreadGroup", _T, [("group", "thread_group")])
ThreadReference.add(6, "Frames", [*_T, ("start_frame", "int"), ("length", "int")], [
    ("frames", R(_fields(("frame_id", "frame"), ("location", "location"))))])
ThreadReference.add(7, "FrameCount", _T, [("frame_count", "int")])
ThreadReference.add(8, "OwnedMonitors", _T, [("owned", R(_fields(("monitor", "tagged_object"))))])
ThreadReference.add(9, "CurrentContendedMonitor", _T, [("monitor", "tagged_object")])
ThreadReference.add(10, "Stop", [*_T, ("throwable", "object")])
ThreadReference.add(11, "Interrupt", _T)
ThreadReference.add(12, "SuspendCount", _T, [("suspend_count", "int")])
ThreadReference.add(13, "OwnedMonitorsStackDepthInfo", _T, [("owned", R(_fields(
    ("monitor", "tagged_object"), ("stack_depth", "int"))))])
ThreadReference.add(14, "ForceEarlyReturn", [*_T, ("value", "value")])
ThreadReference.add(15, "IsVirtual", _T, [("is_virtual", "boolean")])

ThreadGroupReference = CommandSet("ThreadGroupReference", 12)
ThreadGroupReference.add(1, "Name", [("group", "thread_group")], [("group_name", "string")])
ThreadGroupReference.add(2, "Parent", [("group", "thread_group")], [("parent_group", "thread_group")])
ThreadGroupReference.add(3, "Children", [("group", "thread_group")], [
    ("child_threads", R(_fields(("thread", "thread")))), ("child_groups", R(_fields(("group", "thread_group"))))])

ArrayReference = CommandSet("ArrayReference", 13)
ArrayReference.add(1, "Length", [("array_object", "array")], [("array_length", "int")])
ArrayReference.add(2, "GetValues", [("array_object", "array"), ("first_index", "int"), ("length", "int")], [
    ("values", "array_region")])
ArrayReference.add(3, "SetValues", [("array_object", "array"), ("first_index", "int"), ("values", R(_fields(
    ("value", "untagged_value"))))])

ClassLoaderReference = CommandSet("ClassLoaderReference", 14)
ClassLoaderReference.add(1, "VisibleClasses", [("class_loader_object", "class_loader")], [
    ("classes", R(CLASS_REF))])

# EventRequest.Set modifiers (JDWP "modKind" 1..13).
MODIFIER = Select({
    1: ("Count", _fields(("count", "int"))),
    2: ("Conditional", _fields(("expr_id", "int"))),
    3: ("ThreadOnly", _fields(("thread", "thread"))),
    4: ("ClassOnly", _fields(("clazz", "reference_type"))),
    5: ("ClassMatch", _fields(("class_pattern", "string"))),
    6: ("ClassExclude", _fields(("class_pattern", "string"))),
    7: ("LocationOnly", _fields(("loc", "location"))),
    8: ("ExceptionOnly", _fields(("exception_or_null", "reference_type"), ("caught", "boolean"), ("uncaught", "boolean"))),
    9: ("FieldOnly", _fields(("declaring", "reference_type"), ("field_id", "field"))),
    10: ("Step", _fields(("thread", "thread"), ("size", "int"), ("depth", "int"))),
    11: ("InstanceOnly", _fields(("instance", "object"))),
    12: ("SourceNameMatch", _fields(("source_name_pattern", "string"))),
    13: ("PlatformThreadsOnly", ()),
})

EventRequest = CommandSet("EventRequest", 15)
EventRequest.add(1, "Set", [("event_kind", "byte"), ("suspend_policy", "byte"), ("modifiers", R(_fields(
    ("modifier", MODIFIER))))], [("request_id", "int")])
EventRequest.add(2, "Clear", [("event_kind", "byte"), ("request_id", "int")])
EventRequest.add(3, "ClearAllBreakpoints")

StackFrame = CommandSet("StackFrame", 16)
_F = [("thread", "thread"), ("frame", "frame")]
StackFrame.add(1, "GetValues", [*_F, ("slots", R(_fields(("slot", "int"), ("sigbyte", "byte"))))], [
    ("values", R(_fields(("slot_value", "value"))))])
StackFrame.add(2, "SetValues", [*_F, ("slot_values", R(_fields(("slot", "int"), ("slot_value", "value"))))])
StackFrame.add(3, "ThisObject", _F, [("object_this", "tagged_object")])
StackFrame.add(4, "PopFrames", _F)

ClassObjectReference = CommandSet("ClassObjectReference", 17)
ClassObjectReference.add(1, "ReflectedType", [("class_object", "class_object")], CLASS_REF)

ModuleReference = CommandSet("ModuleReference", 18)
ModuleReference.add(1, "Name", [("module", "module")], [("name", "string")])
ModuleReference.add(2, "ClassLoader", [("module", "module")], [("class_loader", "class_loader")])

COMMAND_SETS: tuple[CommandSet, ...] = (
    VirtualMachine, ReferenceType, ClassType, ArrayType, InterfaceType, Method, ObjectReference,
    StringReference, ThreadReference, ThreadGroupReference, ArrayReference, ClassLoaderReference,
    EventRequest, StackFrame, ClassObjectReference, ModuleReference,
)
ALL_COMMANDS: dict[tuple[int, int], Command] = {
    (cs.set_id, cmd.cmd_id): cmd for cs in COMMAND_SETS for cmd in cs.commands.values()
}

# ArrayReference.SetValues of a byte[] whose values are given as bytes (their wire form is the count, then the
# bytes: a "bytes" field's). Not registered: SetValues is the command; this is a faster way to send one.
SET_BYTES = Command("ArrayReference", 13, 3, "SetValues", [("array_object", "array"), ("first_index", "int"),
                                                             ("values", "bytes")])
