"""Nested classes as people write them.

`Outer.Inner:15` is how Java source, IntelliJ and stack traces people read spell a nested class; the JVM names
it `Outer$Inner`. By Java's naming convention the first segment that starts with a capital letter is the
outermost class, so `com.acme.Bank.Account` is `com.acme.Bank$Account` (unless a source file says the dotted
name is a top-level class after all).

A bare `Account:15` with no top-level class of that name means the one nested class called `Account` in the
program: among the loaded classes and the source files on the source path. Two or more are refused at once with
the candidates, so a breakpoint never waits for a class it cannot tell apart.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..sources import SourcePath, package_of, read_text

# Classes no one means by a bare simple name: the JDK's and common language runtimes' own.
LIBRARY_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala.", "groovy.")
MAX_SCANNED_FILES = 3000  # source files read to find nested declarations (a bigger tree is cut here)


def binary_name(dotted: str, is_top_level: Callable[[str], bool] | None = None) -> str:
    """`Bank.Account` -> `Bank$Account`, `com.acme.Bank.Account` -> `com.acme.Bank$Account`; a name with no
    capitalised segment before its last (`com.acme.Bank`), or one `is_top_level` confirms, stays as written."""
    parts = dotted.split(".")
    for i, part in enumerate(parts[:-1]):
        if part[:1].isupper():
            if is_top_level is not None and is_top_level(dotted):
                return dotted
            return ".".join(parts[: i + 1]) + "$" + "$".join(parts[i + 1:])
    return dotted


def is_library(name: str) -> bool:
    return name.startswith(LIBRARY_PREFIXES)


def nested_in(class_name: str, simple: str) -> bool:
    """Is `class_name` a nested class called `simple`, or code inside one (its anonymous classes)?"""
    return simple in class_name.rsplit(".", 1)[-1].split("$")[1:] and not is_library(class_name)


def is_nested_named(class_name: str, simple: str) -> bool:
    """Is `class_name` exactly a nested class called `simple` (not code inside it)?"""
    return "$" in class_name and class_name.rsplit("$", 1)[-1] == simple and not is_library(class_name)


def has_top_level(simple: str, loaded: Iterable[str], sources: SourcePath) -> bool:
    """Does `simple` name a top-level class: a loaded one (any package) or a `simple.java` on the source path?"""
    if any(n.rsplit(".", 1)[-1] == simple for n in loaded):
        return True
    return bool(sources.files_named(f"{simple}.java", limit=1))


def nested_candidates(simple: str, loaded: Iterable[str], sources: SourcePath) -> list[str]:
    """The program's nested classes called `simple`: loaded ones by their JVM names, and those declared in
    source files on the source path (named `package.File$simple`, the usual one level of nesting) whose file's
    classes are not loaded yet."""
    found = sorted({n for n in loaded if is_nested_named(n, simple)})
    outers = {n.split("$", 1)[0] for n in found}
    declaration = re.compile(rf"\b(?:class|interface|enum|record)\s+{re.escape(simple)}\b")
    for path in _source_files(sources):
        if path.stem == simple:
            continue
        try:
            text = read_text(path)
        except OSError:
            continue
        if not declaration.search(text):
            continue
        package = package_of(path)
        outer = f"{package}.{path.stem}" if package else path.stem
        if outer not in outers:
            outers.add(outer)
            found.append(f"{outer}${simple}")
    return found


def _source_files(sources: SourcePath) -> list[Path]:
    """The .java files under the source roots (the working directory itself only one level deep, as
    SourcePath.files_named reads it), at most MAX_SCANNED_FILES."""
    here = Path(sources.cwd or os.getcwd())
    files: list[Path] = []
    for root in sources.roots:
        try:
            matches = root.rglob("*.java") if root != here else [*root.glob("*.java"), *root.glob("*/*.java")]
            for match in matches:
                if match.is_file() and sources.allows(match) and match not in files:
                    files.append(match)
                    if len(files) >= MAX_SCANNED_FILES:
                        return files
        except OSError:
            continue
    return files


def outer_spelling(binary: str) -> str:
    """How to write a nested class's location without its package: `fixtures.Findings$Inner` -> `Findings.Inner`."""
    return binary.rsplit(".", 1)[-1].replace("$", ".")
