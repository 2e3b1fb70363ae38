"""Locations as people and agents type them, parsed into specs.

`com.acme.Foo:42`, `Foo:42`, `Foo.java:42`, `src/main/java/com/acme/Foo.java:42`, `com.acme.Foo.method`,
`com.acme.Foo.method(int,String)`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .errors import InvalidArgument

_LINE = re.compile(r"^\s*(?P<where>[^\s:]+?)\s*:\s*(?P<line>\d+)\s*$")
_METHOD = re.compile(r"^\s*(?P<cls>[\w$.]+)[.#](?P<method>[\w$]+|<init>|<clinit>)\s*(?:\((?P<args>[^)]*)\))?\s*$")
_CLASS = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


@dataclass(frozen=True)
class LineSpec:
    line: int
    class_name: str | None = None  # "com.acme.Foo" or a simple "Foo"
    file: str | None = None  # "Foo.java" or a path to it

    @property
    def is_simple_name(self) -> bool:
        return self.class_name is not None and "." not in self.class_name

    def __str__(self) -> str:
        return f"{self.class_name or self.file}:{self.line}"


@dataclass(frozen=True)
class MethodSpec:
    class_name: str
    method: str
    arg_types: tuple[str, ...] | None = None  # None = any overload

    def __str__(self) -> str:
        args = f"({','.join(self.arg_types)})" if self.arg_types is not None else ""
        return f"{self.class_name}.{self.method}{args}"


LOCATION_HELP = (
    "use Class:line (com.acme.Foo:42, Foo:42), File.java:42, a source path with :line, "
    "or Class.method / Class.method(int,String)"
)


def parse_location(text: str) -> LineSpec | MethodSpec:
    if not text or not text.strip():
        raise InvalidArgument("empty location", LOCATION_HELP)
    m = _LINE.match(text)
    if m:
        where, line = m.group("where"), int(m.group("line"))
        if line <= 0:
            raise InvalidArgument(f"line {line} is not a line number", LOCATION_HELP)
        if where.endswith(".java") or "/" in where or "\\" in where:
            return LineSpec(line, file=where)
        if not _CLASS.match(where):
            raise InvalidArgument(f"'{where}' is not a class name", LOCATION_HELP)
        return LineSpec(line, class_name=where)
    m = _METHOD.match(text)
    if m and "." in text.split("(")[0]:
        args = m.group("args")
        arg_types = None if args is None else tuple(a.strip() for a in args.split(",") if a.strip())
        return MethodSpec(m.group("cls"), m.group("method"), arg_types)
    raise InvalidArgument(f"cannot read location '{text}'", LOCATION_HELP)


def parse_method(text: str) -> MethodSpec:
    spec = parse_location(text)
    if not isinstance(spec, MethodSpec):
        raise InvalidArgument(f"'{text}' is a line, not a method", "use Class.method or Class.method(int,String)")
    return spec


def suggest(name: str, candidates: list[str], n: int = 3) -> list[str]:
    """Near misses for "did you mean": by full name and by simple name."""
    found = difflib.get_close_matches(name, candidates, n=n, cutoff=0.6)
    if len(found) < n:
        simple = {c.rsplit(".", 1)[-1]: c for c in candidates}
        for s in difflib.get_close_matches(name.rsplit(".", 1)[-1], list(simple), n=n, cutoff=0.7):
            if simple[s] not in found:
                found.append(simple[s])
    return found[:n]
