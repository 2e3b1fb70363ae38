"""The plain, JSON-able form of the model's objects (enums as strings, dataclasses as dicts): what every
answer, history record and share message is made of. Every stop is recorded with it, so it is made fast: per
type, the function that makes its form is found once; per dataclass, written once as one straight body."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from enum import StrEnum
from typing import Any


def to_dict(obj: Any) -> Any:
    """Plain JSON-able form of a model object (enums as strings, dataclasses as dicts)."""
    convert = _CONVERTERS.get(type(obj))
    if convert is None:
        convert = _CONVERTERS[type(obj)] = _converter_for(obj)
    return convert(obj)


def _converter_for(obj: Any) -> Callable[[Any], Any]:
    kind = type(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _converter(kind)
    if isinstance(obj, StrEnum):
        return _enum_value
    if isinstance(obj, dict):
        return _dict_of
    if isinstance(obj, list | tuple):
        return _list_of
    return _itself  # str, int, None and anything else not known here


def _enum_value(obj: Any) -> Any:
    return obj._value_


def _dict_of(obj: Any) -> Any:
    return {str(k): to_dict(v) for k, v in obj.items()}


def _list_of(obj: Any) -> Any:
    return [v if type(v) in _PLAIN else to_dict(v) for v in obj]


def _itself(obj: Any) -> Any:
    return obj


def _converter(kind: type) -> Callable[[Any], dict[str, Any]]:
    """A function that makes the dict of one dataclass: its fields read by name in one straight body (written
    once per class, as dataclasses writes __init__), a plain value taken without a call. Every stop is recorded
    with to_dict: the generic walk (a getattr and a test per field) cost ~10 us a stop, this ~2 us. A field
    declared plain (str, int, float, bool, None) is taken as it is, in one dict display with its neighbours;
    the others are tested (a StrEnum, a dataclass, a list) as the generic walk does."""
    fields = [f for f in dataclasses.fields(kind) if not f.name.startswith("_")]
    display: list[str] = []
    rest: list[str] = []
    for f in fields:
        omit_none = bool(f.metadata.get("omit_none"))
        if omit_none or rest:  # (from the first field left out while None on: one statement each, in order)
            guard = "if v is not None: " if omit_none else ""  # (left out while None)
            rest += [f"    v = o.{f.name}", f"    {guard}d[{f.name!r}] = v if type(v) in plain else to_dict(v)"]
        elif _declared_plain(f.type):
            display.append(f"{f.name!r}: o.{f.name}")
        else:
            display.append(f"{f.name!r}: v if type(v := o.{f.name}) in plain else to_dict(v)")
    body = ["def convert(o):", "    d = {" + ", ".join(display) + "}", *rest, "    return d"]
    namespace: dict[str, Any] = {"plain": _PLAIN, "to_dict": to_dict}
    exec("\n".join(body), namespace)  # noqa: S102 - the source is made of the dataclass's own field names
    return namespace["convert"]


_PLAIN_NAMES = frozenset({"str", "int", "float", "bool", "None"})


def _declared_plain(declared: Any) -> bool:
    """Is a field declared as plain values only (`str | None`, `int`, `bool`): written as a string (postponed
    annotations) or as types."""
    if isinstance(declared, str):
        return all(part.strip() in _PLAIN_NAMES for part in declared.split("|"))
    if isinstance(declared, types.UnionType):
        return all(arg in _PLAIN for arg in declared.__args__)
    return declared in _PLAIN


# Per type: the function that makes its plain form (for a dataclass see _converter), found once.
_CONVERTERS: dict[type, Callable[[Any], Any]] = {}
_PLAIN = frozenset({str, int, float, bool, type(None)})
