"""How a `{expression}` of a log template reads: as Java's string concatenation writes the value.

People who write `"quote {key}"` expect what `"quote " + key` prints: the program's own `toString()`
(`BOLT-3/BULK`), not the debugger's field view (`QuoteKey{sku="BOLT-3", tier=BULK}`), as IntelliJ's
logpoints do. So an object whose class (or a superclass below Object) declares `toString()` is asked for it;
the field view stays where `toString()` is Object's (`Plain@1b6d3586` says nothing) and under --redact (a
`toString()` can print a secret the redaction cannot see). Strings, primitives and null read the same both
ways. Whether a class has its own `toString()` is looked up once per class.
"""

from __future__ import annotations

from typing import Any

from ...jdwp import Tag, Value

TO_STRING = ("toString", "()Ljava/lang/String;")
OBJECT = "java.lang.Object"
BOUND = "$logged"  # the name the value is bound to while its toString() is called

# What a breakpoint with a template says about its {parts} (BreakpointInfo.log_values)
USES_TO_STRING = "toString: {parts} show what the program's own toString() gives (field view where it is Object's)"
USES_FIELDS = "field view: {parts} show fields (--redact calls no toString())"

_declares_own: dict[tuple[int, int], bool] = {}  # (id of the Vm, class id) -> has a toString() below Object


def wants_to_string(value: Value) -> bool:
    """Values whose text may differ from the field view: objects that are not strings or arrays."""
    return value.is_object and not value.is_null and value.tag not in (Tag.STRING, Tag.ARRAY, Tag.CLASS_OBJECT)


async def has_own_to_string(vm: Any, type_id: int) -> bool:
    """Whether the class `type_id` or a superclass other than Object declares toString()."""
    key = (id(vm), type_id)
    known = _declares_own.get(key)
    if known is not None:
        return known
    found, current = False, type_id
    while current:
        info = await vm.type(current)
        if info.name == OBJECT:
            break
        if any((m.name, m.signature) == TO_STRING and not m.is_abstract for m in await vm.methods(current)):
            found = True
            break
        current = await vm.superclass(current)
    if len(_declares_own) > 4096:
        _declares_own.clear()
    _declares_own[key] = found
    return found
