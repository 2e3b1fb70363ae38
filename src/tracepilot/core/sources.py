"""Source mapping: find the .java file of a class on the source path and read its lines.

The default path is the working directory's Maven/Gradle layouts (src/main/java, src/test/java, plus
any */src/main/java one level down), the working directory itself, and whatever --sourcepath adds.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_TYPE_RE = re.compile(r"\b(?:class|interface|enum|record|@interface)\s+([A-Za-z_$][\w$]*)")


def default_roots(cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    base = Path(cwd or os.getcwd())
    roots = [base / "src/main/java", base / "src/test/java"]
    roots += sorted(base.glob("*/src/main/java")) + sorted(base.glob("*/src/test/java"))
    roots.append(base)
    return [r for r in roots if r.is_dir()]


class SourcePath:
    def __init__(self, extra: list[str] | tuple[str, ...] = (), cwd: str | None = None) -> None:
        self.extra: list[Path] = [Path(p).expanduser().resolve() for p in extra]
        self.cwd = cwd

    @property
    def roots(self) -> list[Path]:
        return self.extra + default_roots(self.cwd)

    def add(self, *paths: str) -> None:
        for p in paths:
            path = Path(p).expanduser().resolve()
            if path not in self.extra:
                self.extra.append(path)

    def find(self, class_name: str, source_file: str | None = None) -> Path | None:
        """The source file of a class: package directories + SourceFile name (outer class name if unknown)."""
        try:
            return self._find(class_name, source_file)
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte...
            return None

    def _find(self, class_name: str, source_file: str | None) -> Path | None:
        outer = class_name.split("$", 1)[0]
        package, _, simple = outer.rpartition(".")
        file_name = source_file or f"{simple}.java"
        # Both names come from the target VM: a SourceFile like "../../etc/passwd" or "/etc/passwd", or a
        # package with path parts, must not lead outside the source roots (symlinks the user made are theirs).
        if not _plain_name(file_name) or not all(_plain_name(p) for p in package.split(".") if package):
            return None
        relative = Path(*package.split(".")) / file_name if package else Path(file_name)
        for root in self.roots:
            candidate = root / relative
            if candidate.is_file():
                return candidate
        # Flat layouts (sources not in package directories): accept a file whose package matches.
        for root in self.roots:
            candidate = root / file_name
            if candidate.is_file() and package_of(candidate) == package:
                return candidate
        return None

    def find_file(self, text: str) -> Path | None:
        """A path typed by a user: absolute, relative to cwd, or relative to a source root."""
        try:
            return self._find_file(text)
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte...
            return None

    def _find_file(self, text: str) -> Path | None:
        path = Path(text).expanduser()
        if path.is_file():
            return path.resolve()
        for root in self.roots:
            if (root / text).is_file():
                return (root / text).resolve()
        name = Path(text).name
        for root in self.roots:
            matches = list(root.rglob(name)) if root != Path(self.cwd or os.getcwd()) else list(root.glob(f"*/{name}")) + list(root.glob(name))
            for m in matches:
                if str(m).endswith(text):
                    return m.resolve()
        return None


def _plain_name(name: str) -> bool:
    """A single path component: no separators, no "..", not absolute, no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0")


def package_of(path: Path) -> str:
    """The package a .java file declares ("" for the default package)."""
    match = _PACKAGE_RE.search(read_text(path))
    return match.group(1) if match else ""


def class_name_for_file(path: Path) -> str:
    """The fully qualified name of the top-level class of a file named Foo.java."""
    package = package_of(path)
    return f"{package}.{path.stem}" if package else path.stem


def declared_types(path: Path) -> list[str]:
    return _TYPE_RE.findall(read_text(path))


@lru_cache(maxsize=256)
def _read_cached(path: str, mtime: float) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


def read_text(path: Path) -> str:
    return _read_cached(str(path), path.stat().st_mtime)


def read_lines(path: Path) -> list[str]:
    return read_text(path).splitlines()
