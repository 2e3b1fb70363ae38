"""The JDWP front end: IntelliJ, Eclipse, jdb and any JDI program join a live tracepilot session.

A guest debugger speaks JDWP to this front end as it would to a JVM; its commands go to the real JVM over the
session's one connection, its event requests and their events are its own, its suspensions are counted apart
from the session's (holds.py), and what it must not do or see is decided in policy.py. Core support: a guest
is a `core.foreign.ForeignClient`.
"""

from typing import Any

__all__ = ["JdwpFrontEnd"]


def __getattr__(name: str) -> Any:
    # Lazily: the command line installs the publish hook (hosting.py) without loading the core on its start path.
    if name == "JdwpFrontEnd":
        from .server import JdwpFrontEnd  # noqa: PLC0415

        return JdwpFrontEnd
    raise AttributeError(name)
