"""The temporary directory a `launch source=Foo.java` compiles into, and its removal.

The layout is `<tmp>/tracepilot-classes-XXXX/classes/` (the JVM's class path) beside a marker file naming the
processes that use the directory: the debugger that made it, then the JVM that runs from it. The launched
process removes the directory once its JVM is gone (launcher.LaunchedProcess). A debugger that was killed
can't; the next one's launch removes such leftovers, recognised by the marker, once none of the processes the
marker names is alive (a JVM left running by a detach keeps its classes).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "tracepilot-classes-"
MARKER = "tracepilot-owner"  # one pid a line (beside the class path, so the program never sees it)


def new_classes_dir(tmp: Path | None = None) -> Path:
    """A fresh directory for one launch's classes (in `classes/`), marked as this process's; leftovers of
    debuggers that are gone are removed first."""
    sweep_stale(tmp)
    top = Path(tempfile.mkdtemp(prefix=PREFIX, dir=tmp))
    (top / "classes").mkdir()
    (top / MARKER).write_text(f"{os.getpid()}\n")
    return top


def claim(top: Path, pid: int) -> None:
    """Name the JVM that runs from the directory: a later sweep keeps the directory while it lives."""
    with contextlib.suppress(OSError), open(top / MARKER, "a") as marker:
        marker.write(f"{pid}\n")


def remove(top: Path) -> None:
    shutil.rmtree(top, ignore_errors=True)


def sweep_stale(tmp: Path | None = None) -> None:
    """Remove the directories of launches whose debugger and JVM are both gone. Only directories with our
    prefix, our marker and our owner count: anything else is left as it is."""
    folder = Path(tmp) if tmp is not None else Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for top in folder.glob(PREFIX + "*"):
            pids = _marked_pids(top)
            if pids and not any(_alive(pid) for pid in pids):
                remove(top)


def _marked_pids(top: Path) -> list[int]:
    """The pids of a directory's marker; none when it is not a directory of ours (or not readable)."""
    try:
        info = top.lstat()
        if top.is_symlink() or not top.is_dir() or info.st_uid != os.getuid():
            return []
        text = (top / MARKER).read_text()
    except OSError:
        return []
    pids = []
    for line in text.split():
        if not line.isdigit():
            return []  # not a marker we wrote
        pids.append(int(line))
    return pids


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True  # not a pid we wrote: keep the directory
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, but another user's (a reused pid): keep, to be safe
    return True
