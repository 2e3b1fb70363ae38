"""The program's own classes, loaded or not: what its source path and class path hold.

Completion ranks them before the JDK's, and a breakpoint on a class that is not loaded yet says "binds when
it loads" when the class is here (and suggests only near names from here, never `java.nio.ByteOrder` for
`com.acme.shop.Order`). Both run often, so the walk is bounded (files looked at, time) and remembered for a
few seconds; a source file counts by its package declaration (read from its head), a class path directory by
its .class files, a jar by its entries. JDK and library packages (inspect/stack.py's list) are never "ours".
"""

from __future__ import annotations

import os
import re
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_ENTRIES = 20_000  # directory entries looked at per root: a huge tree is listed in part, never walked whole
MAX_SECONDS = 0.5  # per listing, over every root
FRESH_FOR = 30.0  # seconds a listing is reused (callers run it in a worker thread: it reads the disk)
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".gradle", ".idea", "target",
                 "build", "out"})  # (in source trees: build output and tools' folders)
_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_LIBRARY = ("java.", "javax.", "jdk.", "sun.", "com.sun.")  # the JDK's own: never the program's

_cache: dict[tuple[Any, ...], tuple[float, frozenset[str]]] = {}


def program_classes(sources: Any) -> frozenset[str]:
    """Binary names ("com.acme.Order", "com.acme.Order$Line") on the source path and class path of `sources`
    (a core.sources.SourcePath; anything without roots gives nothing)."""
    return source_path_classes(sources) | class_path_classes(sources)


def source_path_classes(sources: Any) -> frozenset[str]:
    """The classes whose source files are on the source path (by file: one name per .java file)."""
    roots = [Path(r) for r in getattr(sources, "roots", None) or ()]
    return _listed(("sources", *roots), lambda deadline: (n for r in roots for n in _source_classes(r, deadline)))


def class_path_classes(sources: Any) -> frozenset[str]:
    """The classes on the target's class path (directories and jars), once the debugger knows it."""
    entries = [Path(p) for p in getattr(sources, "classpath", None) or ()]
    return _listed(("classes", *entries), lambda deadline: (
        n for e in entries for n in (_jar_classes(e) if e.suffix == ".jar" else _directory_classes(e, deadline))))


def _listed(key: tuple[Any, ...], names: Any) -> frozenset[str]:
    now = time.monotonic()
    seen = _cache.get(key)
    if seen is not None and now - seen[0] < FRESH_FOR:
        return seen[1]
    found = frozenset(n for n in names(now + MAX_SECONDS) if not n.startswith(_LIBRARY))
    if len(_cache) > 16:
        _cache.clear()
    _cache[key] = (time.monotonic(), found)
    return found


def simple_name(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def is_ours(name: str, ours: Iterable[str]) -> bool:
    """`name` (binary, dotted nested "Outer.Inner", or simple) names one of `ours`."""
    wanted = name.replace("$", ".")
    for candidate in ours:
        dotted = candidate.replace("$", ".")
        if dotted == wanted or dotted.endswith("." + wanted):
            return True
    return False


def _walk(root: Path, suffix: str, deadline: float, skip: frozenset[str] = frozenset()) -> Iterable[Path]:
    looked = 0
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    looked += 1
                    if looked > MAX_ENTRIES or time.monotonic() > deadline:
                        return
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in skip and not entry.name.startswith("."):
                            stack.append(Path(entry.path))
                    elif entry.name.endswith(suffix):
                        yield Path(entry.path)
        except OSError:
            continue


def _source_classes(root: Path, deadline: float) -> Iterable[str]:
    for path in _walk(root, ".java", deadline, _SKIPPED_DIRS):
        try:
            with open(path, "rb") as f:
                head = f.read(4096)
        except OSError:
            continue
        match = _PACKAGE.search(head)
        package = match.group(1).decode() if match else ""
        yield f"{package}.{path.stem}" if package else path.stem


def _directory_classes(root: Path, deadline: float) -> Iterable[str]:
    if not root.is_dir():
        return
    for path in _walk(root, ".class", deadline):
        relative = path.relative_to(root).with_suffix("")
        if relative.name not in ("module-info", "package-info"):
            yield ".".join(relative.parts)


def _jar_classes(jar: Path) -> Iterable[str]:
    try:
        with zipfile.ZipFile(jar) as archive:
            names = archive.namelist()[:MAX_ENTRIES]
    except (OSError, zipfile.BadZipFile):
        return
    for name in names:
        if name.endswith(".class") and not name.startswith("META-INF/") and "-info.class" not in name:
            yield name.removesuffix(".class").replace("/", ".")
