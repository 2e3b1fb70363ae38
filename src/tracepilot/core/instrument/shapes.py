"""What the condition compiler works on: the shapes of classes and members a `Resolver` answers, the
breakpoint site, captures (what the probe gets from the user's method), typed nodes, and Java's
numeric promotion."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

STRING = "Ljava/lang/String;"
OBJECT = "Ljava/lang/Object;"
NULL = "null"
PRIMITIVES = {"boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I", "long": "J", "float": "F",
              "double": "D"}
BOXES = {"Ljava/lang/Boolean;": "Z", "Ljava/lang/Byte;": "B", "Ljava/lang/Character;": "C",
         "Ljava/lang/Short;": "S", "Ljava/lang/Integer;": "I", "Ljava/lang/Long;": "J", "Ljava/lang/Float;": "F",
         "Ljava/lang/Double;": "D"}
BOX_OF = {v: k for k, v in BOXES.items()}
UNBOX_METHOD = {"Z": "booleanValue", "B": "byteValue", "C": "charValue", "S": "shortValue", "I": "intValue",
                "J": "longValue", "F": "floatValue", "D": "doubleValue"}
NUMERIC = "BCSIJFD"
# Widening primitive conversions (JLS 5.1.2).
WIDENS = {"B": "SIJFD", "S": "IJFD", "C": "IJFD", "I": "JFD", "J": "FD", "F": "D", "D": "", "Z": ""}
ACC_PUBLIC, ACC_PRIVATE, ACC_PROTECTED, ACC_STATIC, ACC_INTERFACE = 0x1, 0x2, 0x4, 0x8, 0x200
ACC_VARARGS = 0x80


class NotCompilable(Exception):
    """The condition needs something the in-JVM compiler does not do; the message says what."""


class TypeNotLoaded(NotCompilable):
    """The condition names a type the JVM has not loaded yet (a class bound at its load, before the classes its
    condition reads): compilable once one of `candidates` (internal names the type may stand for) loads."""

    def __init__(self, message: str, candidates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.candidates = candidates


@dataclass
class MemberShape:
    name: str
    descriptor: str
    access: int


@dataclass
class ClassShape:
    name: str  # internal name
    access: int
    superclass: str | None
    interfaces: list[str]
    fields: list[MemberShape]
    methods: list[MemberShape]

    @property
    def is_interface(self) -> bool:
        return bool(self.access & ACC_INTERFACE)


class Resolver(Protocol):
    async def shape(self, internal_name: str) -> ClassShape | None:
        """The class as the breakpoint's class loader sees it, or None when it is not loaded."""


@dataclass(frozen=True)
class Capture:
    """A value the inserted code loads in the user's method: kind is "local", "this", "field" (of this),
    "static" (of the breakpoint's class) or "return" (the value a return instruction is about to return)."""

    kind: str
    descriptor: str
    slot: int = 0
    owner: str = ""
    name: str = ""


@dataclass
class Site:
    """Where the condition runs: the class, whether the method is static, the locals live there."""

    class_name: str  # internal name
    is_static: bool
    locals: dict[str, tuple[int, str]]  # name -> (slot, descriptor)
    this_usable: bool = True  # False before a constructor's super() call
    has_variable_table: bool = True  # compiled with -g (locals have names)
    marks: dict[str, Capture] = field(default_factory=dict)  # the debugger's names here: "$return" at an exit

    @property
    def package(self) -> str:
        return self.class_name.rpartition("/")[0]


@dataclass
class Typed:
    """A typed node: ``kind`` names the operation, ``type`` its JVM descriptor (NULL for the null literal)."""

    kind: str
    type: str
    args: list[Typed] = field(default_factory=list)
    value: object = None  # a constant, an operator, a capture index, a member reference...


def package_of(internal_name: str) -> str:
    return internal_name.rpartition("/")[0]


def descriptor_of_class(internal_name: str) -> str:
    return internal_name if internal_name.startswith("[") else f"L{internal_name};"


def class_of_descriptor(descriptor: str) -> str | None:
    if descriptor.startswith("L"):
        return descriptor[1:-1]
    if descriptor.startswith("["):
        return descriptor
    return None


def is_reference(descriptor: str) -> bool:
    return descriptor == NULL or descriptor[0] in "L["


def unboxed(descriptor: str) -> str:
    return BOXES.get(descriptor, descriptor)


def binary_promotion(a: str, b: str) -> str:
    for t in "DFJ":
        if t in (a, b):
            return t
    return "I"


