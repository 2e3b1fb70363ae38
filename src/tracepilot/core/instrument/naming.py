"""The probe classes' names: unique per debugger session, and recognisable wherever they could show.

A probe is named ``<package>/<Simple>_<session>_<serial>__TracepilotProbe``:
- the session token makes a name no earlier session used, so a JVM that another tracepilot process
  instrumented and left (detached, or killed) accepts this session's probes (a class name can be defined only
  once per loader: "attempted duplicate class definition");
- the fixed suffix lets one JDWP class-exclusion pattern (``*__TracepilotProbe``: patterns may only begin or
  end with ``*``) keep steps and method exits out of every probe, of this session and of earlier ones.

No imports: the lowest layers (the VM's class list) use ``is_probe_class`` too.
"""

from __future__ import annotations

import secrets

MARK = "TracepilotProbe"  # in every probe class name, also those an older tracepilot made
SUFFIX = "__" + MARK
EXCLUDE_PATTERN = "*" + SUFFIX  # JDWP ClassExclude: steps and method exits never stop in a probe


def session_token() -> str:
    return secrets.token_hex(4)


def probe_name(internal: str, token: str, serial: int) -> str:
    """The internal name of a new probe for class `internal` (in its package: it may use package members)."""
    package, _, simple = internal.rpartition("/")
    name = f"{simple.replace('$', '_')}_{token}_{serial}{SUFFIX}"
    return f"{package}/{name}" if package else name


def variant(name: str, n: int) -> str:
    """The n-th further probe of one breakpoint (its line in a second method, e.g. a lambda's)."""
    if name.endswith(SUFFIX):
        return f"{name[:-len(SUFFIX)]}_{n}{SUFFIX}"
    return f"{name}_{n}"


def is_probe_class(name: str) -> bool:
    """A probe class, by any spelling of its name (dotted, internal or a JNI signature)."""
    return MARK in name.rpartition("/")[2].rpartition(".")[2]
