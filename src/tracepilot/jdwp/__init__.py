"""The JDWP protocol: a sans-IO codec (wire, spec, commands, events, packets) and an asyncio connection.

This package knows nothing of breakpoints or user interfaces.
"""

from . import commands
from .commands import (
    ArrayReference,
    ArrayType,
    ClassLoaderReference,
    ClassObjectReference,
    ClassType,
    EventRequest,
    InterfaceType,
    Method,
    ModuleReference,
    ObjectReference,
    ReferenceType,
    StackFrame,
    StringReference,
    ThreadGroupReference,
    ThreadReference,
    VirtualMachine,
)
from .connection import ConnectError, JdwpConnection
from .constants import (
    ClassStatus,
    EventKind,
    InvokeOptions,
    Modifier,
    ModKind,
    StepDepth,
    StepSize,
    SuspendPolicy,
    SuspendStatus,
    Tag,
    ThreadStatus,
    TypeTag,
)
from .errors import ErrorCode, HandshakeError, JdwpError, JdwpTransportError, ProtocolError, VMDisconnected
from .events import Ev, Mod
from .wire import NULL_LOCATION, IdSizes, Location, Value

__all__ = [
    "commands", "ArrayReference", "ArrayType", "ClassLoaderReference", "ClassObjectReference", "ClassType",
    "EventRequest", "InterfaceType", "Method", "ModuleReference", "ObjectReference", "ReferenceType",
    "StackFrame", "StringReference", "ThreadGroupReference", "ThreadReference", "VirtualMachine",
    "ConnectError", "JdwpConnection", "ClassStatus", "EventKind", "InvokeOptions", "Modifier", "ModKind",
    "StepDepth", "StepSize", "SuspendPolicy", "SuspendStatus", "Tag", "ThreadStatus", "TypeTag",
    "ErrorCode", "HandshakeError", "JdwpError", "JdwpTransportError", "ProtocolError", "VMDisconnected",
    "Ev", "Mod", "NULL_LOCATION", "IdSizes", "Location", "Value",
]
