"""The two compound kinds of the JDWP layout language (spec.py): a counted repeat and a tag-chosen case. Their
own module, so that both compilers of layouts (spec.py's general codec and fast_layouts.py's one-struct-call
paths) read them without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Repeat:
    """An int count followed by that many items of `fields`."""

    fields: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Select:
    """A one-byte tag choosing one layout; each case is (type name, fields)."""

    cases: dict[int, tuple[str, tuple[tuple[str, Any], ...]]]
