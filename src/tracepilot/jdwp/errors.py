"""Errors of the JDWP layer.

`JdwpError` is an error code sent back by the VM; each code has its own subclass (e.g. `InvalidObject`,
`ThreadNotSuspended`) so callers catch what they mean. `ProtocolError` means the bytes on the wire made
no sense; `VMDisconnected` means the connection is gone.
"""

from __future__ import annotations

from enum import IntEnum


class ErrorCode(IntEnum):
    NONE = 0
    INVALID_THREAD = 10
    INVALID_THREAD_GROUP = 11
    INVALID_PRIORITY = 12
    THREAD_NOT_SUSPENDED = 13
    THREAD_SUSPENDED = 14
    THREAD_NOT_ALIVE = 15
    INVALID_OBJECT = 20
    INVALID_CLASS = 21
    CLASS_NOT_PREPARED = 22
    INVALID_METHODID = 23
    INVALID_LOCATION = 24
    INVALID_FIELDID = 25
    INVALID_FRAMEID = 30
    NO_MORE_FRAMES = 31
    OPAQUE_FRAME = 32
    NOT_CURRENT_FRAME = 33
    TYPE_MISMATCH = 34
    INVALID_SLOT = 35
    DUPLICATE = 40
    NOT_FOUND = 41
    INVALID_MODULE = 42
    INVALID_MONITOR = 50
    NOT_MONITOR_OWNER = 51
    INTERRUPT = 52
    INVALID_CLASS_FORMAT = 60
    CIRCULAR_CLASS_DEFINITION = 61
    FAILS_VERIFICATION = 62
    ADD_METHOD_NOT_IMPLEMENTED = 63
    SCHEMA_CHANGE_NOT_IMPLEMENTED = 64
    INVALID_TYPESTATE = 65
    HIERARCHY_CHANGE_NOT_IMPLEMENTED = 66
    DELETE_METHOD_NOT_IMPLEMENTED = 67
    UNSUPPORTED_VERSION = 68
    NAMES_DONT_MATCH = 69
    CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 70
    METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 71
    CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED = 72
    NOT_IMPLEMENTED = 99
    NULL_POINTER = 100
    ABSENT_INFORMATION = 101
    INVALID_EVENT_TYPE = 102
    ILLEGAL_ARGUMENT = 103
    OUT_OF_MEMORY = 110
    ACCESS_DENIED = 111
    VM_DEAD = 112
    INTERNAL = 113
    UNATTACHED_THREAD = 115
    INVALID_TAG = 500
    ALREADY_INVOKING = 502
    INVALID_INDEX = 503
    INVALID_LENGTH = 504
    INVALID_STRING = 506
    INVALID_CLASS_LOADER = 507
    INVALID_ARRAY = 508
    TRANSPORT_LOAD = 509
    TRANSPORT_INIT = 510
    NATIVE_METHOD = 511
    INVALID_COUNT = 512


class JdwpTransportError(Exception):
    """Base of everything this layer raises."""


class ProtocolError(JdwpTransportError):
    """The peer sent bytes that are not valid JDWP (truncated, oversized, unknown shapes)."""


class HandshakeError(JdwpTransportError):
    """The peer is not a JDWP agent: it answered the handshake wrongly, stayed silent or closed."""


class VMDisconnected(JdwpTransportError):
    """The connection to the VM is closed (VM death, kill, network, or our own close)."""


class JdwpError(JdwpTransportError):
    """The VM answered a command with an error code (`from_vm`), or the debugger's own lookup failed in the
    same terms (a method id its tables do not hold): only the first is the JVM refusing anything."""

    code: ErrorCode = ErrorCode.INTERNAL
    from_vm: bool = False  # set for errors decoded from a reply packet

    def __init__(self, code: int | ErrorCode, command: str = "") -> None:
        try:
            self.code = ErrorCode(code)
        except ValueError:
            self.code = code  # type: ignore[assignment]  # an unknown code stays visible as a number
        self.command = command
        name = self.code.name if isinstance(self.code, ErrorCode) else f"error {code}"
        super().__init__(f"{command}: {name}" if command else name)

    @staticmethod
    def for_code(code: int, command: str = "") -> JdwpError:
        """The error the VM answered to `command`."""
        cls = _ERROR_CLASSES.get(code, JdwpError)
        error = cls(code, command)
        error.from_vm = True
        return error


def _class_name(code: ErrorCode) -> str:
    return "".join(part.capitalize() for part in code.name.split("_"))


_ERROR_CLASSES: dict[int, type[JdwpError]] = {}
for _code in ErrorCode:
    if _code is ErrorCode.NONE:
        continue
    _cls = type(_class_name(_code), (JdwpError,), {"code": _code, "__doc__": f"JDWP error {_code.name}."})
    _ERROR_CLASSES[_code] = _cls
    globals()[_cls.__name__] = _cls

# Names the rest of the code base uses; declared for readers and linters.
InvalidThread: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_THREAD]
ThreadNotSuspended: type[JdwpError] = _ERROR_CLASSES[ErrorCode.THREAD_NOT_SUSPENDED]
InvalidObject: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_OBJECT]
InvalidClass: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_CLASS]
ClassNotPrepared: type[JdwpError] = _ERROR_CLASSES[ErrorCode.CLASS_NOT_PREPARED]
InvalidFrameid: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_FRAMEID]
OpaqueFrame: type[JdwpError] = _ERROR_CLASSES[ErrorCode.OPAQUE_FRAME]
AbsentInformation: type[JdwpError] = _ERROR_CLASSES[ErrorCode.ABSENT_INFORMATION]
NotImplemented_: type[JdwpError] = _ERROR_CLASSES[ErrorCode.NOT_IMPLEMENTED]
InvalidSlot: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_SLOT]
TypeMismatch: type[JdwpError] = _ERROR_CLASSES[ErrorCode.TYPE_MISMATCH]
VmDead: type[JdwpError] = _ERROR_CLASSES[ErrorCode.VM_DEAD]
InvalidMethodid: type[JdwpError] = _ERROR_CLASSES[ErrorCode.INVALID_METHODID]
NativeMethod: type[JdwpError] = _ERROR_CLASSES[ErrorCode.NATIVE_METHOD]
ThreadNotAlive: type[JdwpError] = _ERROR_CLASSES[ErrorCode.THREAD_NOT_ALIVE]
