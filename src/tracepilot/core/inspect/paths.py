"""A tiny fallback for expressions that are only paths: `x`, `this.f`, `a.b.c`, `arr[3]`, `$mark.f`, `@12`,
`Class.STATIC`, plus literals for set_value. The real evaluator (core/evaluator) replaces it; this only
keeps inspection usable without it, and names the places a value can be written to (set_value).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ...jdwp import ArrayReference, ClassType, ObjectReference, StackFrame, Tag, Value
from ..errors import EvaluationError, NotFound
from ..vm import VariableSlot, Vm
from .objects import Objects

_TOKEN = re.compile(r"\s*(?:(?P<name>[$@]?[A-Za-z_$0-9][\w$]*)|(?P<dot>\.)|\[\s*(?P<index>-?\d+)\s*\])")


@dataclass
class Place:
    """Where a value lives, so it can be read and written."""

    kind: str  # local | field | static | element | value
    value: Value
    type_name: str | None = None
    slot: VariableSlot | None = None
    object_id: int = 0
    field_id: int = 0
    type_id: int = 0
    index: int = 0


@dataclass
class Scope:
    vm: Vm
    objects: Objects
    thread_id: int
    frame_id: int
    locals: dict[str, tuple[VariableSlot, Value]]
    this: Value | None
    frame_type_id: int
    resolve_symbol: Callable[[str], Awaitable[Value]]  # "$mark" / "@12"


def parse_path(text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    expect_name = True
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise EvaluationError(f"cannot evaluate '{text}' without the expression evaluator",
                                  "only names, fields (a.b), array elements (a[3]), $marks and @handles work here")
        pos = m.end()
        if m.group("name"):
            if not expect_name:
                raise EvaluationError(f"unexpected '{m.group('name')}' in '{text}'")
            parts.append(("name", m.group("name")))
            expect_name = False
        elif m.group("dot"):
            expect_name = True
        else:
            parts.append(("index", m.group("index")))
    if not parts or parts[0][0] != "name" or expect_name:
        raise EvaluationError(f"'{text}' is not a name, field or array element")
    return parts


async def resolve(scope: Scope, text: str) -> Place:
    parts = parse_path(text)
    place, used = await _first(scope, parts)
    for kind, item in parts[used:]:
        place = await _step(scope, place, kind, item)
    return place


async def _first(scope: Scope, parts: list[tuple[str, str]]) -> tuple[Place, int]:
    place = await _first_place(scope, parts)
    if isinstance(place, tuple):
        return place
    return place, 1


async def _first_place(scope: Scope, parts: list[tuple[str, str]]) -> Place | tuple[Place, int]:
    name = parts[0][1]
    if name.startswith(("$", "@")):
        value = await scope.resolve_symbol(name)
        return Place("value", value)
    if name == "this":
        if scope.this is None:
            raise EvaluationError("there is no 'this' in a static method")
        return Place("value", scope.this)
    if name in scope.locals:
        slot, value = scope.locals[name]
        return Place("local", value, slot.type_name, slot=slot)
    if scope.this is not None and not scope.this.is_null:
        fields = await scope.objects.fields_by_name(await scope.objects.type_id(scope.this.value))
        f = fields.get(name)
        if f is not None and not f.is_static:
            value = (await scope.vm.send(ObjectReference.GetValues, scope.this.value, [f.id])).values[0]
            return Place("field", value, f.type_name, object_id=scope.this.value, field_id=f.id)
    static = await _static_field(scope, scope.frame_type_id, name) if scope.frame_type_id else None
    if static is not None:
        return static
    # A qualified class name followed by a static field: com.acme.Foo.COUNT (or Foo.COUNT, if Foo is unique)
    names = [p[1] for p in parts]
    for cut in range(len(names) - 1, 0, -1):
        if any(k != "name" for k, _ in parts[:cut + 1]):
            continue
        classes = await scope.vm.classes_by_name(".".join(names[:cut])) or (
            await _by_simple_name(scope.vm, ".".join(names[:cut])) if cut == 1 else [])
        if classes:
            place = await _static_field(scope, classes[0].id, names[cut])
            if place is None:
                raise NotFound(f"{'.'.join(names[:cut])} has no static field {names[cut]}")
            return place, cut + 1
    raise NotFound(f"'{name}' is not a local variable, field or class here")


async def _by_simple_name(vm: Vm, name: str) -> list:
    found = [t for t in await vm.all_classes() if not t.is_array and t.simple_name == name]
    return await vm.acquire(found) if len(found) == 1 else []


def static_scope(vm: Vm, objects: Objects, resolve_symbol: Callable[[str], Awaitable[Value]]) -> Scope:
    """A scope with no thread and no frame: enough for static fields (Foo.COUNT, com.acme.Foo.cache.size)
    and $marks, which read over JDWP without suspending anything."""
    return Scope(vm, objects, 0, 0, {}, None, 0, resolve_symbol)


async def _static_field(scope: Scope, type_id: int, name: str) -> Place | None:
    for t in await scope.vm.hierarchy(type_id):
        for f in await scope.vm.fields(t):
            if f.name == name and f.is_static:
                value = (await scope.objects.static_values(t, [f]))[0]
                return Place("static", value, f.type_name, field_id=f.id, type_id=t)
    return None


async def _step(scope: Scope, place: Place, kind: str, item: str) -> Place:
    value = place.value
    if not value.is_object:
        raise EvaluationError(f"cannot select '{item}' of a primitive value")
    if value.is_null:
        raise EvaluationError(f"null has no '{item}' (NullPointerException)")
    type_name = await scope.objects.type_name(value.value)
    if kind == "index":
        if not type_name.endswith("[]"):
            raise EvaluationError(f"{type_name} is not an array")
        index = int(item)
        length = await scope.objects.length(value.value)
        if not 0 <= index < length:
            raise EvaluationError(f"index {index} is out of bounds for length {length}")
        element = (await scope.objects.elements(value.value, index, 1))[0]
        return Place("element", element, type_name[:-2], object_id=value.value, index=index)
    if type_name.endswith("[]") and item == "length":
        return Place("value", Value(Tag.INT, await scope.objects.length(value.value)), "int")
    fields = await scope.objects.fields_by_name(await scope.objects.type_id(value.value))
    f = fields.get(item)
    if f is None:
        raise NotFound(f"{type_name} has no field '{item}'", hint="inspect the object to see its fields")
    if f.is_static:
        got = (await scope.objects.static_values(f.type_id, [f]))[0]
        return Place("static", got, f.type_name, field_id=f.id, type_id=f.type_id)
    got = (await scope.vm.send(ObjectReference.GetValues, value.value, [f.id])).values[0]
    return Place("field", got, f.type_name, object_id=value.value, field_id=f.id)


async def write(scope: Scope, place: Place, value: Value) -> None:
    if place.kind == "local" and place.slot is not None:
        await scope.vm.send(StackFrame.SetValues, scope.thread_id, scope.frame_id, [(place.slot.slot, value)])
    elif place.kind == "field":
        await scope.vm.send(ObjectReference.SetValues, place.object_id, [(place.field_id, value)])
    elif place.kind == "static":
        await scope.vm.send(ClassType.SetValues, place.type_id, [(place.field_id, value)])
    elif place.kind == "element":
        await scope.vm.send(ArrayReference.SetValues, place.object_id, place.index, [value])
    else:
        raise EvaluationError("that expression is not a variable, field or array element: nothing to assign to")


_PRIMITIVE_TAGS = {"boolean": Tag.BOOLEAN, "byte": Tag.BYTE, "char": Tag.CHAR, "short": Tag.SHORT, "int": Tag.INT,
                   "long": Tag.LONG, "float": Tag.FLOAT, "double": Tag.DOUBLE}


def coerce(value: Value, type_name: str | None) -> Value:
    """Convert a primitive to the primitive type of the place it is assigned to (Java widening/narrowing)."""
    tag = _PRIMITIVE_TAGS.get(type_name or "")
    if tag is None or value.is_object:
        return value
    v = value.value
    if tag == Tag.BOOLEAN:
        if value.tag != Tag.BOOLEAN:
            raise EvaluationError(f"cannot assign {v!r} to a boolean")
        return value
    if value.tag == Tag.BOOLEAN:
        raise EvaluationError(f"cannot assign a boolean to {type_name}")
    if tag in (Tag.FLOAT, Tag.DOUBLE):
        return Value(tag, float(ord(v) if isinstance(v, str) else v))
    number = ord(v) if isinstance(v, str) else int(v)
    if tag == Tag.CHAR:
        return Value(tag, chr(number & 0xFFFF))
    bits = {Tag.BYTE: 8, Tag.SHORT: 16, Tag.INT: 32, Tag.LONG: 64}[tag]
    number &= (1 << bits) - 1
    if number >= 1 << (bits - 1):
        number -= 1 << bits
    return Value(tag, number)


_INT = re.compile(r"^-?\d+[lL]?$")
_FLOAT = re.compile(r"^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fFdD]?$")


def literal(text: str) -> Value | None:
    """A Java literal (number, boolean, char, null) or None; strings need the VM (CreateString)."""
    t = text.strip()
    if t in ("true", "false"):
        return Value(Tag.BOOLEAN, t == "true")
    if t == "null":
        return Value.null()
    if _INT.match(t):
        return Value(Tag.LONG if t[-1] in "lL" else Tag.INT, int(t.rstrip("lL")))
    if _FLOAT.match(t) and any(c in t for c in ".eEfFdD"):
        return Value(Tag.FLOAT if t[-1] in "fF" else Tag.DOUBLE, float(t.rstrip("fFdD")))
    if len(t) >= 3 and t[0] == t[-1] == "'":
        body = t[1:-1].encode().decode("unicode_escape")
        if len(body) == 1:
            return Value(Tag.CHAR, body)
    return None
