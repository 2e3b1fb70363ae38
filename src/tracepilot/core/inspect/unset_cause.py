"""Throwable's "no cause set yet": its `cause` field starts as the exception itself (so initCause can tell
"never set" from "set to null"), and getCause() answers null then. Shown as it is, every exception nobody gave a
cause would show itself nested as its own cause; values show it as Java's getCause() does: null.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...jdwp import Tag, Value

THROWABLE = "java.lang.Throwable"


def without_unset_cause(object_id: int, fields: Sequence[Any], values: list[Value]) -> list[Value]:
    """`values` (of `fields`, FieldInfo, of the object `object_id`) with a cause that is the object itself as
    null. (Only Throwable's field: declared `Throwable cause`.)"""
    for i, (f, v) in enumerate(zip(fields, values, strict=True)):
        if v.value == object_id and f.name == "cause" and v.is_object and f.type_name == THROWABLE:
            values = [*values[:i], Value(Tag.OBJECT, 0), *values[i + 1:]]
    return values
