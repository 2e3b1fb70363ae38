"""JDWP constant sets, as enums so nothing upstream handles magic numbers."""

from __future__ import annotations

from enum import IntEnum, IntFlag

HANDSHAKE = b"JDWP-Handshake"
HEADER_SIZE = 11
REPLY_FLAG = 0x80


class Tag(IntEnum):
    """Value tags (JDWP `Tag` constants): the first byte of every tagged value."""

    ARRAY = ord("[")
    BYTE = ord("B")
    CHAR = ord("C")
    OBJECT = ord("L")
    FLOAT = ord("F")
    DOUBLE = ord("D")
    INT = ord("I")
    LONG = ord("J")
    SHORT = ord("S")
    VOID = ord("V")
    BOOLEAN = ord("Z")
    STRING = ord("s")
    THREAD = ord("t")
    THREAD_GROUP = ord("g")
    CLASS_LOADER = ord("l")
    CLASS_OBJECT = ord("c")

    @property
    def is_object(self) -> bool:
        return self in OBJECT_TAGS

    @classmethod
    def for_signature(cls, signature: str) -> Tag:
        """The tag a value of this JNI type signature carries."""
        first = signature[0]
        if first == "L":
            return cls.STRING if signature == "Ljava/lang/String;" else cls.OBJECT
        return _BY_FIRST_CHAR.get(first) or cls(ord(first))


_BY_FIRST_CHAR: dict[str, Tag] = {chr(t): t for t in Tag}  # (for_signature without EnumType.__call__)
OBJECT_TAGS = frozenset(
    {Tag.ARRAY, Tag.OBJECT, Tag.STRING, Tag.THREAD, Tag.THREAD_GROUP, Tag.CLASS_LOADER, Tag.CLASS_OBJECT}
)
PRIMITIVE_TAGS = frozenset(Tag) - OBJECT_TAGS


class TypeTag(IntEnum):
    CLASS = 1
    INTERFACE = 2
    ARRAY = 3


class EventKind(IntEnum):
    SINGLE_STEP = 1
    BREAKPOINT = 2
    FRAME_POP = 3
    EXCEPTION = 4
    USER_DEFINED = 5
    THREAD_START = 6
    THREAD_DEATH = 7
    CLASS_PREPARE = 8
    CLASS_UNLOAD = 9
    CLASS_LOAD = 10
    FIELD_ACCESS = 20
    FIELD_MODIFICATION = 21
    EXCEPTION_CATCH = 30
    METHOD_ENTRY = 40
    METHOD_EXIT = 41
    METHOD_EXIT_WITH_RETURN_VALUE = 42
    MONITOR_CONTENDED_ENTER = 43
    MONITOR_CONTENDED_ENTERED = 44
    MONITOR_WAIT = 45
    MONITOR_WAITED = 46
    VM_START = 90
    VM_DEATH = 99
    VM_DISCONNECTED = 100  # never sent by a VM; used for the end of the stream


class SuspendPolicy(IntEnum):
    NONE = 0
    EVENT_THREAD = 1
    ALL = 2


class StepSize(IntEnum):
    MIN = 0
    LINE = 1


class StepDepth(IntEnum):
    INTO = 0
    OVER = 1
    OUT = 2


class ThreadStatus(IntEnum):
    ZOMBIE = 0
    RUNNING = 1
    SLEEPING = 2
    MONITOR = 3
    WAIT = 4
    NOT_STARTED = -1  # HotSpot reports -1 for threads that have not started


class SuspendStatus(IntFlag):
    NONE = 0
    SUSPENDED = 1


class ClassStatus(IntFlag):
    VERIFIED = 1
    PREPARED = 2
    INITIALIZED = 4
    ERROR = 8


class InvokeOptions(IntFlag):
    NONE = 0
    SINGLE_THREADED = 1
    NONVIRTUAL = 2


class ModKind(IntEnum):
    COUNT = 1
    CONDITIONAL = 2
    THREAD_ONLY = 3
    CLASS_ONLY = 4
    CLASS_MATCH = 5
    CLASS_EXCLUDE = 6
    LOCATION_ONLY = 7
    EXCEPTION_ONLY = 8
    FIELD_ONLY = 9
    STEP = 10
    INSTANCE_ONLY = 11
    SOURCE_NAME_MATCH = 12
    PLATFORM_THREADS_ONLY = 13


class Modifier(IntFlag):
    """Access flags of classes, fields and methods (from the class file format)."""

    PUBLIC = 0x0001
    PRIVATE = 0x0002
    PROTECTED = 0x0004
    STATIC = 0x0008
    FINAL = 0x0010
    SYNCHRONIZED = 0x0020
    VOLATILE = 0x0040  # also BRIDGE for methods
    TRANSIENT = 0x0080  # also VARARGS for methods
    NATIVE = 0x0100
    INTERFACE = 0x0200
    ABSTRACT = 0x0400
    STRICT = 0x0800
    SYNTHETIC = 0x1000
    ANNOTATION = 0x2000
    ENUM = 0x4000
    # JDWP marks synthetic members with this bit when the class file has the Synthetic attribute
    JDWP_SYNTHETIC = 0xF0000000


BRIDGE = Modifier.VOLATILE
VARARGS = Modifier.TRANSIENT
