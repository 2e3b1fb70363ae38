"""The interpreter's typed values and their conversion to and from JDWP ``Value``s.

A :class:`TV` is a value with its *static* Java type, as the interpreter tracks it: primitives keep
the representation of :mod:`.semantics` (a char is its UTF-16 code unit as an int), references keep
their JDWP object id. A String computed by the interpreter (a literal, a concatenation) exists only
as Python text until something in the target needs the object ("materialised" on demand), so a
condition or a logpoint never creates strings in the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...jdwp import Tag, Value
from ...jdwp.constants import OBJECT_TAGS
from . import types as jt
from .semantics import JType, JValue

__all__ = ["NULL", "PRIM_OF_TAG", "TAG_OF_PRIM", "TV", "from_jdwp", "prim", "tag_for_type"]

STRING = "java.lang.String"

TAG_OF_PRIM = {
    "boolean": Tag.BOOLEAN, "byte": Tag.BYTE, "char": Tag.CHAR, "short": Tag.SHORT, "int": Tag.INT,
    "long": Tag.LONG, "float": Tag.FLOAT, "double": Tag.DOUBLE,
}
PRIM_OF_TAG = {v: k for k, v in TAG_OF_PRIM.items()}


@dataclass(slots=True)
class TV:
    """A typed value. ``type`` is the static Java name ("int", "java.lang.String", "int[]",
    "fixtures.Foo$Bar", "null"), or None for a reference whose static type is unknown (the runtime
    type stands in). ``value``: primitive Python value, or object id (0 = null; None = a String not
    yet created in the target, see ``text``)."""

    type: str | None
    value: Any
    tag: Tag
    text: str | None = None  # a String's contents when known
    constant: bool = False  # a literal: allows narrowing of int constants in assignments
    type_id: int | None = None  # the reference type id of ``type`` when known (e.g. ``this``)

    @property
    def is_ref(self) -> bool:
        return self.tag in OBJECT_TAGS

    @property
    def is_null(self) -> bool:
        return self.tag in OBJECT_TAGS and self.value == 0 and self.text is None

    @property
    def is_primitive(self) -> bool:
        return self.tag not in OBJECT_TAGS and self.tag != Tag.VOID

    @property
    def is_void(self) -> bool:
        return self.tag == Tag.VOID

    def jvalue(self) -> JValue:
        """For :mod:`.semantics`: a primitive, a known String, or null."""
        if self.is_primitive:
            return JValue(JType(self.type), self.value)
        if self.is_null:
            return JValue(JType.NULL, None)
        if self.text is not None:
            return JValue(JType.STRING, self.text)
        raise TypeError("not a primitive or String value")

    def to_jdwp(self) -> Value:
        """The JDWP value (a String must be materialised first)."""
        if self.tag == Tag.CHAR:
            return Value(Tag.CHAR, chr(self.value))
        if self.is_ref and self.value is None:
            raise ValueError("String not materialised")
        return Value(self.tag, self.value)


NULL = TV("null", 0, Tag.OBJECT)
VOID = TV("void", None, Tag.VOID)


def prim(type_name: str, value: Any, constant: bool = False) -> TV:
    return TV(type_name, value, TAG_OF_PRIM[type_name], constant=constant)


def string(text: str, constant: bool = False) -> TV:
    return TV(STRING, None, Tag.STRING, text=text, constant=constant)


def from_jvalue(v: JValue) -> TV:
    t = v.type
    if t is JType.STRING:
        return string(v.value) if v.value is not None else NULL
    if t is JType.NULL:
        return NULL
    return prim(t.value, v.value)


def from_jdwp(v: Value, static_type: str | None = None) -> TV:
    """A JDWP value with the static type it was read as (a local's, a field's, a method's return)."""
    tag = v.tag
    if tag in OBJECT_TAGS:
        if static_type is None and tag == Tag.STRING:
            static_type = STRING
        return TV(static_type, v.value, tag)
    if tag == Tag.VOID:
        return VOID
    name = PRIM_OF_TAG[tag]
    value = ord(v.value) if tag == Tag.CHAR and isinstance(v.value, str) else v.value
    return TV(name, value, tag)


def tag_for_type(type_name: str) -> Tag:
    """The tag a value stored in a variable of this Java type carries."""
    if type_name in TAG_OF_PRIM:
        return TAG_OF_PRIM[type_name]
    if type_name.endswith("[]"):
        return Tag.ARRAY
    if type_name == STRING:
        return Tag.STRING
    return Tag.OBJECT


def sig_byte(type_name: str) -> int:
    """The signature byte StackFrame.GetValues wants for a local of this type."""
    return ord(jt.java_name_to_signature(type_name)[0])
