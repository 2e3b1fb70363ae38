"""The trace probe's classes built once per probe source and JDK, then renamed for each trace.

javac takes a second or two; a trace should not. The hub's source (probe.py) and the marker's (here) are
compiled once,
under placeholder names in a placeholder package, into a cache directory under the user's cache
($XDG_CACHE_HOME/tracepilot or ~/.cache/tracepilot), keyed by a hash of the source text and of the javac used
(a JDK without javac uses a build of the same source by another: `--release 11` class files load in any).
Each trace renames the cached bytes to its own class names in the traced classes' package: every name a class
file holds (its own, its nested classes', in descriptors) sits in a Utf8 constant, rewritten in the constant
pool. Nothing depends on what the probe's source says: a new source is a new key.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..instrument.classfile import UTF8, ClassFile
from . import probe
from .probe import NoJavac

log = logging.getLogger(__name__)

PACKAGE = "tracepilot/probecache"
HUB = "TracepilotTraceHub__TracepilotProbe"
MARKER = "TracepilotTraceMarker__TracepilotProbe"
FORMAT = "2"  # bump when what is cached changes shape

# One class per trace that reads the traced classes' files through their loader in one call, and keeps
# them for a later session should this one die before restoring them (instrument/leftovers.py reads
# TARGETS, ORIGINALS and STAMP). One call instead of a few JDWP calls and a class definition per class.
MARKER_SOURCE = """\
package %(package)s;

public final class %(name)s {
    public static String[] TARGETS;
    public static byte[][] ORIGINALS;
    public static long STAMP;

    public static byte[][] read(ClassLoader loader, String names, long stamp) {
        String[] each = names.split("\\n");
        byte[][] out = new byte[each.length][];
        for (int i = 0; i < each.length; i++) {
            try (java.io.InputStream in = loader.getResourceAsStream(each[i] + ".class")) {
                out[i] = in == null ? null : in.readAllBytes();
            } catch (java.io.IOException e) {
                out[i] = null;
            }
        }
        ORIGINALS = out;
        STAMP = stamp;
        TARGETS = each;
        return out;
    }
}
"""


class _Names(dict):
    """Template values; a placeholder this module does not know is left to fail in javac, loudly."""

    def __missing__(self, key: str) -> str:
        raise NoJavac(f"the trace probe's source has a placeholder %({key})s this cache does not fill")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tracepilot" / "probes"


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def source_key() -> str:
    """The hash of the probe's sources (and of this cache's format)."""
    return _hash(FORMAT, probe.HUB_SOURCE, MARKER_SOURCE)


def cache_key(tool: str) -> str:
    """`source_key()-javac`: the javac binary's real path, size and time hashed."""
    real = os.path.realpath(tool)
    try:
        st = os.stat(real)
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        stamp = ""
    return f"{source_key()}-{_hash(real, stamp)}"


def _any_build() -> Path | None:
    """A build of these sources by any javac (`--release 11` bytes load in every JVM that traces)."""
    with contextlib.suppress(OSError):
        for entry in sorted(cache_root().glob(f"{source_key()}-*")):
            if (entry / f"{HUB}.class").is_file():
                return entry
    return None


def _compile(tool: str, out: Path) -> None:
    """javac the hub and one marker under the placeholder names into `out` (class files, flat)."""
    dotted = PACKAGE.replace("/", ".")
    with tempfile.TemporaryDirectory(prefix="tracepilot-probe-") as tmp:
        src, classes = Path(tmp) / "src", Path(tmp) / "classes"
        src.mkdir()
        files = []
        for name, template in ((HUB, probe.HUB_SOURCE), (MARKER, MARKER_SOURCE)):
            path = src / f"{name}.java"
            path.write_text(template % _Names(package=dotted, name=name), encoding="utf-8")
            files.append(str(path))
        done = subprocess.run([tool, "--release", "11", "-nowarn", "-d", str(classes), *files],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise NoJavac(f"javac could not build the trace probe: {done.stderr.strip()[:300]}")
        for path in classes.rglob("*.class"):
            shutil.copyfile(path, out / path.name)


def cached_classes(java_home: str | None) -> dict[str, bytes]:
    """Simple name (e.g. `TracepilotTraceHub__TracepilotProbe$State`) -> class bytes under the placeholder
    names: from the cache, or built now (and kept, when the cache directory is writable)."""
    tool = probe.javac(java_home)
    if tool is None:
        built = _any_build()
        if built is None:
            raise NoJavac("no javac found (next to the target's java, or on PATH) to build the trace probe")
        return {p.stem: p.read_bytes() for p in built.glob("*.class")}
    entry = cache_root() / cache_key(tool)
    if not (entry / f"{HUB}.class").is_file():
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            building = Path(tempfile.mkdtemp(prefix=".building-", dir=entry.parent))
        except OSError as exc:  # no cache to keep it in: built for this trace alone
            log.info("trace probe cache not writable (%s): building in a temporary directory", exc)
            with tempfile.TemporaryDirectory(prefix="tracepilot-probe-") as tmp:
                _compile(tool, Path(tmp))
                return {p.stem: p.read_bytes() for p in Path(tmp).glob("*.class")}
        try:
            _compile(tool, building)
            try:
                building.rename(entry)  # atomic: a reader sees all the files or none
            except OSError:
                pass  # another process cached it meanwhile: theirs is the same
        finally:
            shutil.rmtree(building, ignore_errors=True)
    return {p.stem: p.read_bytes() for p in entry.glob("*.class")}


def rename(data: bytes, renames: dict[str, str]) -> bytes:
    """The class file with every occurrence of each old internal name (keys) in its Utf8 constants replaced."""
    cf = ClassFile.parse(data)
    entries = cf.pool.entries
    for i, entry in enumerate(entries):
        if entry is None or entry[0] != UTF8:
            continue
        text = entry[1][2:]
        new = text
        for old, to in renames.items():
            new = new.replace(old.encode("ascii"), to.encode("ascii"))
        if new != text:
            entries[i] = (UTF8, len(new).to_bytes(2, "big") + new)
    return cf.to_bytes()


def probe_classes(package: str, hub: str, markers: list[str], java_home: str | None) -> dict[str, bytes]:
    """Internal name -> class bytes of the hub (with its nested classes) and the markers (MARKER_SOURCE),
    named `hub` and `markers` in `package` (internal form, "" for the unnamed package)."""
    cached = cached_classes(java_home)
    prefix = f"{package}/" if package else ""
    old_hub, old_marker = f"{PACKAGE}/{HUB}", f"{PACKAGE}/{MARKER}"
    out: dict[str, bytes] = {}
    for stem, data in cached.items():
        if stem == HUB or stem.startswith(HUB + "$"):
            new = prefix + hub + stem[len(HUB):]
            out[new] = rename(data, {old_hub: prefix + hub, HUB: hub})  # (then its source file's name)
    marker = cached[MARKER]
    for name in markers:
        out[prefix + name] = rename(marker, {old_marker: prefix + name, MARKER: name})
    return out
