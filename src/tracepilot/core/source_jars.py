"""Sources of library classes from `*-sources.jar` files: next to a jar on the target's class path, or in
the local Maven repository (found through the jar's own META-INF/maven/.../pom.properties).

A file found in a sources jar is extracted once into a per-user cache directory and shown from there,
so every front end reads it like any other source file; only the entry a class names is extracted.

A sources jar is input from the target's class path, so extraction is bounded (issue 25, point 6): an entry
is streamed, counting the bytes it really decompresses to (a zip's size fields may lie), and given up past
MAX_ENTRY_BYTES; a class path's sources jars write at most MAX_TOTAL_BYTES into the cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import zipfile
import zlib
from pathlib import Path

log = logging.getLogger(__name__)

MAX_ENTRY_BYTES = 4 * 1024 * 1024  # no hand-written source file comes near this; a bomb's entry does
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # what one class path's sources jars may write into the cache
_MAX_POM_PROPERTIES = 64 * 1024
_CHUNK = 64 * 1024


class EntryTooLarge(Exception):
    """An archive entry decompresses to more than it may."""


def read_bounded(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The bytes of entry `name`, refusing (EntryTooLarge) once more than `limit` came out."""
    data = bytearray()
    with archive.open(name) as entry:
        while chunk := entry.read(_CHUNK):
            data += chunk
            if len(data) > limit:
                raise EntryTooLarge(f"{name} decompresses to more than {limit // 1024} KiB")
    return bytes(data)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tracepilot" / "sources"


def maven_repository() -> Path:
    return Path(os.environ.get("TRACEPILOT_MAVEN_REPO") or Path.home() / ".m2" / "repository")


def sources_jar_for(jar: Path) -> Path | None:
    """The sources jar of a class-path jar: `foo-1.0-sources.jar` beside `foo-1.0.jar`, else the one the
    jar's Maven coordinates name in the local Maven repository."""
    beside = jar.with_name(jar.name.removesuffix(".jar") + "-sources.jar")
    if beside.is_file():
        return beside
    coordinates = _maven_coordinates(jar)
    if coordinates is None:
        return None
    group, artifact, version = coordinates
    in_repo = maven_repository().joinpath(*group.split("."), artifact, version, f"{artifact}-{version}-sources.jar")
    return in_repo if in_repo.is_file() else None


def _maven_coordinates(jar: Path) -> tuple[str, str, str] | None:
    try:
        with zipfile.ZipFile(jar) as archive:
            for name in archive.namelist():
                if name.startswith("META-INF/maven/") and name.endswith("/pom.properties"):
                    text = read_bounded(archive, name, _MAX_POM_PROPERTIES).decode("utf-8", "replace")
                    props = dict(line.split("=", 1) for line in text.splitlines()
                                 if "=" in line and not line.startswith("#"))
                    group, artifact, version = (props.get(k, "").strip() for k in ("groupId", "artifactId", "version"))
                    if group and artifact and version and all(_plain(p) for p in (*group.split("."), artifact, version)):
                        return group, artifact, version
    except (OSError, zipfile.BadZipFile, ValueError, EntryTooLarge):
        return None
    return None


def _plain(part: str) -> bool:
    return bool(part) and part not in (".", "..") and not any(c in part for c in "/\\\0")


class SourceJars:
    """The sources jars of a class path, opened lazily; `find` extracts one entry into the cache."""

    def __init__(self, classpath: list[str]) -> None:
        self.classpath = [Path(p) for p in classpath if p.endswith(".jar")]
        self._jars: list[tuple[Path, frozenset[str]]] | None = None
        self.extracted_bytes = 0  # written into the cache by this class path's jars (MAX_TOTAL_BYTES)
        self.refused: dict[str, str] = {}  # entry -> why it was not extracted

    def _index(self) -> list[tuple[Path, frozenset[str]]]:
        if self._jars is None:
            found: list[tuple[Path, frozenset[str]]] = []
            seen: set[Path] = set()
            for jar in self.classpath:
                sources = sources_jar_for(jar) if jar.is_file() else None
                if sources is None or sources in seen:
                    continue
                seen.add(sources)
                try:
                    with zipfile.ZipFile(sources) as archive:
                        found.append((sources, frozenset(archive.namelist())))
                except (OSError, zipfile.BadZipFile):
                    continue
            self._jars = found
        return self._jars

    def find(self, relative: str) -> Path | None:
        """`relative` ("org/eclipse/jetty/server/Server.java") from the first sources jar holding it,
        extracted into the cache; None if no sources jar has it."""
        for jar, names in self._index():
            if relative in names:
                return self._extract(jar, relative)
        return None

    def _extract(self, jar: Path, relative: str) -> Path | None:
        stat = jar.stat()
        key = hashlib.sha256(f"{jar.resolve()}:{stat.st_mtime_ns}:{stat.st_size}".encode()).hexdigest()[:20]
        target = cache_dir() / key / relative
        if target.is_file():
            return target
        if relative in self.refused:
            return None
        budget = min(MAX_ENTRY_BYTES, MAX_TOTAL_BYTES - self.extracted_bytes)
        try:
            with zipfile.ZipFile(jar) as archive:
                data = read_bounded(archive, relative, budget)
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            partial = target.with_name(target.name + ".part")
            partial.write_bytes(data)
            partial.replace(target)
        except EntryTooLarge as exc:
            why = (f"{exc} in {jar.name}" if budget == MAX_ENTRY_BYTES else
                   f"the sources jars of this class path already filled their {MAX_TOTAL_BYTES // 2**20} MiB "
                   "share of the cache")
            log.warning("not extracting %s: %s", relative, why)
            self.refused[relative] = why
            return None
        except (OSError, KeyError, EOFError, RuntimeError, NotImplementedError, zlib.error, zipfile.BadZipFile):
            return None  # missing, truncated, encrypted, an unknown compression, a lying size field
        self.extracted_bytes += len(data)
        return target

    @staticmethod
    def holds(path: Path) -> bool:
        """Is `path` a file this class extracted (inside the cache directory)?"""
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(cache_dir()))
