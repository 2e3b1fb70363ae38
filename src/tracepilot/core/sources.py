"""Source mapping: find the .java file of a class on the source path and read its lines.

The default path is the working directory's Maven/Gradle layouts (src/main/java, src/test/java, the same
in every module pom.xml or settings.gradle names and in any directory one level down), the working
directory itself (unless it is / or the home directory), whatever --sourcepath adds, and, once attached,
the same layouts in the target JVM's own working directory. Library classes are read from `*-sources.jar`
files next to the jars on the target's class path or in the local Maven repository (source_jars.py).

Confinement: the source path is also the one place files may be read from for display. A path someone
types (`source /etc/shadow:1`, REPL `list`, the TUI's file finder) or the target names (a class's SourceFile)
is read only when it is a source file inside a source root, after following symlinks: `SourcePath.refusal`
is the single check every lookup and front end goes through.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import InvalidArgument
from .source_jars import SourceJars

# What may be shown as source: JVM languages' source files, nothing else (no keys, no configuration).
SOURCE_SUFFIXES = (".java", ".kt", ".kts", ".groovy", ".scala")

_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_TYPE_RE = re.compile(r"\b(?:class|interface|enum|record|@interface)\s+([A-Za-z_$][\w$]*)")


_LAYOUT = ("src/main/java", "src/test/java")
_MAVEN_MODULE = re.compile(r"<module>\s*([^<]+?)\s*</module>")
_GRADLE_INCLUDE = re.compile(r"^\s*include\b(.*)$", re.MULTILINE)


def default_roots(cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    base = Path(cwd or os.getcwd())
    roots = project_roots(base)
    if base.resolve() not in (Path("/"), Path.home().resolve()):  # too broad to be a source root
        roots.append(base)
    return roots


_ROOTS_FRESH_FOR = 2.0  # seconds: roots are asked for at every lookup; the layout rarely changes
_roots_seen: dict[Path, tuple[float, list[Path]]] = {}


def project_roots(base: Path) -> list[Path]:
    """The Maven/Gradle source directories of a project: its own, its modules' (as pom.xml and
    settings.gradle name them, nested modules too) and those of any directory one level down."""
    now = time.monotonic()
    seen = _roots_seen.get(base)
    if seen is not None and now - seen[0] < _ROOTS_FRESH_FOR:
        return list(seen[1])
    if len(_roots_seen) > 64:
        _roots_seen.clear()
    _roots_seen[base] = (now, _project_roots(base))
    return list(_roots_seen[base][1])


def _project_roots(base: Path) -> list[Path]:
    roots: list[Path] = []
    for folder in [base, *_modules(base, depth=3)]:
        roots += [folder / layout for layout in _LAYOUT]
    for folder in _folders_one_level_down(base):
        roots += [folder / layout for layout in _LAYOUT]
    unique: list[Path] = []
    for root in roots:
        if root not in unique and root.is_dir():
            unique.append(root)
    return unique


# A directory with more entries than this is no parent of projects (/tmp, a download folder): the projects one
# level down are not looked for there. Looking cost a stop ~0.5 s every few seconds in a /tmp of 20,000 entries
# (a glob reads every subdirectory); a parent of a few dozen repositories is read in well under a millisecond.
MAX_PARENT_ENTRIES = 1_000


def _folders_one_level_down(base: Path) -> list[Path]:
    """The visible subdirectories of `base`, sorted by name; none when `base` holds too much to be a parent of
    projects (MAX_PARENT_ENTRIES)."""
    folders: list[Path] = []
    try:
        with os.scandir(base) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_PARENT_ENTRIES:
                    return []
                if not entry.name.startswith(".") and entry.is_dir():
                    folders.append(Path(entry.path))
    except OSError:
        return []
    return sorted(folders)


def _modules(base: Path, depth: int) -> list[Path]:
    if depth <= 0:
        return []
    names: list[str] = []
    try:
        pom = base / "pom.xml"
        if pom.is_file():
            names += _MAVEN_MODULE.findall(pom.read_text(encoding="utf-8", errors="replace"))
        for settings in (base / "settings.gradle", base / "settings.gradle.kts"):
            if settings.is_file():
                for args in _GRADLE_INCLUDE.findall(settings.read_text(encoding="utf-8", errors="replace")):
                    names += [n.strip(":").replace(":", "/") for n in re.findall(r"[\"']([^\"']+)[\"']", args)]
    except OSError:
        return []
    found: list[Path] = []
    for name in names:
        folder = base / name
        if ".." not in Path(name).parts and folder.is_dir():
            found += [folder, *_modules(folder, depth - 1)]
    return found


class SourceOutsideRoots(InvalidArgument):
    """A file that exists but is not a source file inside a source root: it is not read."""


class SourcePath:
    def __init__(self, extra: list[str] | tuple[str, ...] = (), cwd: str | None = None) -> None:
        self.extra: list[Path] = [Path(p).expanduser().resolve() for p in extra]
        self.target_dir: Path | None = None  # the target JVM's working directory, once known
        self.jars = SourceJars([])
        self.classpath: list[str] = []  # the target's, once known (program_classes.py lists what it holds)
        self.cwd = cwd

    @property
    def roots(self) -> list[Path]:
        roots = self.extra + default_roots(self.cwd)
        if self.target_dir is not None:
            roots += [r for r in project_roots(self.target_dir) if r not in roots]
        return roots

    def learn_target(self, working_dir: str | None, classpath: list[str]) -> None:
        """What the target JVM says about itself: its working directory (its project's source layouts join
        the path) and its class path (sources jars of its jars are read for library classes)."""
        if working_dir:
            self.target_dir = Path(working_dir)
        self.classpath = [p if os.path.isabs(p) or not working_dir else os.path.join(working_dir, p) for p in classpath]
        self.jars = SourceJars(self.classpath)

    async def learn_from_vm(self, vm: Any) -> None:
        """`learn_target` from a connected VM (VirtualMachine.ClassPaths); a VM that cannot tell changes nothing."""
        from ..jdwp import JdwpError, VirtualMachine  # noqa: PLC0415

        try:
            reply = await vm.send(VirtualMachine.ClassPaths)
        except JdwpError:
            return
        self.learn_target(reply.base_dir, [str(getattr(entry, "path", entry)) for entry in reply.classpaths])

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
        # package with path parts, must not lead outside the source roots, nor name a file that is no source.
        if not _plain_name(file_name) or not all(_plain_name(p) for p in package.split(".") if package):
            return None
        if not file_name.endswith(SOURCE_SUFFIXES):  # a SourceFile of ".env" or "id_rsa" names no source
            return None
        relative = Path(*package.split(".")) / file_name if package else Path(file_name)
        for root in self.roots:
            candidate = root / relative
            if candidate.is_file() and self.allows(candidate):
                return candidate
        # Flat layouts (sources not in package directories): accept a file whose package matches.
        for root in self.roots:
            candidate = root / file_name
            if candidate.is_file() and self.allows(candidate) and package_of(candidate) == package:
                return candidate
        return self.jars.find(relative.as_posix())

    def not_shown_because(self, class_name: str) -> str | None:
        """Why a class's source in a sources jar was not extracted (too large: see source_jars.py), if so."""
        outer = class_name.split("$", 1)[0]
        prefix = outer.rpartition(".")[0].replace(".", "/")
        for entry, why in self.jars.refused.items():
            if entry.rpartition("/")[0] == prefix and Path(entry).stem == outer.rpartition(".")[2]:
                return f"the source of {outer} is not shown: {why}"
        return None

    def allows(self, path: str | os.PathLike[str]) -> bool:
        """May this file be read for display: a source file inside a source root?"""
        return self.refusal(path) is None

    def refusal(self, path: str | os.PathLike[str]) -> str | None:
        """Why `path` may not be read (None: it may). The file actually read counts: symlinks are followed
        (in the path and in the roots) and the real file must be a source file inside a real root, so a link
        in a checkout (`src/Evil.java -> /etc/passwd`, a package directory linked elsewhere) shows nothing
        outside the roots. ".." is refused outright so a typed path cannot climb out of a root that way."""
        text = os.fspath(path)
        if ".." in Path(text).parts:
            return f"{text} contains '..'"
        if not text.endswith(SOURCE_SUFFIXES):
            return f"{text} is not a source file ({', '.join(SOURCE_SUFFIXES)})"
        real = Path(os.path.realpath(Path(text).expanduser()))
        linked = real != Path(os.path.abspath(Path(text).expanduser()))
        if not real.name.endswith(SOURCE_SUFFIXES):
            return f"{text} is a link to a file that is not a source file"
        if SourceJars.holds(real):  # extracted from a sources jar of the target's class path
            return None
        for root in self.roots:
            if real.is_relative_to(os.path.realpath(root)):
                return None
        if linked:
            return f"{text} is a link leading outside the source path"
        return f"{text} is outside the source path"

    def check(self, path: str | os.PathLike[str]) -> Path:
        """`path` if it may be read for display, else SourceOutsideRoots saying what to add to the source path."""
        why = self.refusal(path)
        if why is None:
            return Path(path)
        return self._refuse(why, Path(path))

    def _refuse(self, why: str, path: Path) -> Path:
        roots = ", ".join(str(r) for r in self.roots) or "(empty)"
        folder = path.expanduser().parent
        raise SourceOutsideRoots(
            f"not reading {path}: {why} (source roots: {roots})",
            f"only source files under a source root are shown; add its root to the source path "
            f"(--sourcepath {folder}, the sourcepath argument of attach/launch, or `use {folder}` in the REPL)")

    def files_named(self, name: str, limit: int = 2) -> list[Path]:
        """Up to `limit` source files called `name` ("Foo.java") under the source roots (the working
        directory itself only one level deep): enough to tell whether a simple name is unambiguous."""
        if not _plain_name(name):
            return []
        found: list[Path] = []
        here = Path(self.cwd or os.getcwd())
        for root in self.roots:
            try:
                matches = root.rglob(name) if root != here else [*root.glob(name), *root.glob(f"*/{name}")]
                for match in matches:
                    if match.is_file() and match.absolute() not in found and self.allows(match):
                        found.append(match.absolute())
                        if len(found) >= limit:
                            return found
            except OSError:
                continue
        return found

    def find_file(self, text: str) -> Path | None:
        """A path typed by a user: absolute, relative to cwd, or relative to a source root. A file that
        exists but may not be read (see `check`) raises SourceOutsideRoots instead of being returned."""
        try:
            return self._find_file(text)
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte...
            return None

    def _find_file(self, text: str) -> Path | None:
        if ".." in Path(text).parts:
            self.check(text)  # refuses: no climbing out of a root
        path = Path(text).expanduser().absolute()
        refused = path if path.is_file() and not self.allows(path) else None
        if path.is_file() and refused is None:
            return path
        for root in self.roots:
            if (root / text).is_file() and self.allows(root / text):
                return (root / text).absolute()
        name = Path(text).name
        for root in self.roots:
            matches = list(root.rglob(name)) if root != Path(self.cwd or os.getcwd()) else list(root.glob(f"*/{name}")) + list(root.glob(name))
            for m in matches:
                if str(m).endswith(text) and self.allows(m):
                    return m.absolute()
        if refused is not None:
            self.check(refused)  # raises: the file exists but is not ours to show
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


MAX_READ_BYTES = 8 * 1024 * 1024  # of one source file: a bigger one is shown up to here
MAX_CACHED_CHARS = 32 * 1024 * 1024  # what the cache of read files keeps in all
_texts: OrderedDict[tuple[str, int, int], str] = OrderedDict()  # (path, mtime, size) -> text, least recent first
_cached_chars = 0
_texts_lock = threading.Lock()


def read_text(path: Path) -> str:
    """The text of a source file (its first MAX_READ_BYTES), from a cache bounded by MAX_CACHED_CHARS."""
    global _cached_chars
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _texts_lock:
        text = _texts.get(key)
        if text is not None:
            _texts.move_to_end(key)
            return text
    with open(path, "rb") as file:
        text = file.read(MAX_READ_BYTES).decode("utf-8", errors="replace")
    with _texts_lock:  # (front ends read from worker threads too)
        if key not in _texts:
            _texts[key] = text
            _cached_chars += len(text)
        while _cached_chars > MAX_CACHED_CHARS and len(_texts) > 1:
            _cached_chars -= len(_texts.popitem(last=False)[1])
    return text


def read_lines(path: Path) -> list[str]:
    return read_text(path).splitlines()


def shown_source_path(debugger: Any, fallback: Iterable[str | os.PathLike[str]] = ()) -> SourcePath:
    """The source path a front end may show files from: the debugger session's own (it grows with `use`
    and launch), or, for a front end without one, a path over `fallback` with the same confinement."""
    sources = getattr(getattr(debugger, "session", None), "sources", None)
    return sources if isinstance(sources, SourcePath) else SourcePath([os.fspath(p) for p in fallback])
