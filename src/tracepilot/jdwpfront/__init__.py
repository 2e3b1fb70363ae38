"""The JDWP front end: IntelliJ, Eclipse, jdb and any JDI program join a live tracepilot session.

A guest debugger speaks JDWP to this front end as it would to a JVM; its commands go to the real JVM over the
session's one connection, its event requests and their events are its own, its suspensions are counted apart
from the session's (holds.py), and what it must not do or see is decided in policy.py. Core support: a guest
is a `core.foreign.ForeignClient`.
"""

from .server import JdwpFrontEnd

__all__ = ["JdwpFrontEnd"]
