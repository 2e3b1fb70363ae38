"""Arguments several operations share, each described once in the words the model reads."""

from __future__ import annotations

from typing import Any

from .spec import Param


def thread(default: Any = None) -> Param:
    return Param("thread", int | str | None, default,
                 "thread id or name; default: the thread of the current stop (or all threads)")


def frame() -> Param:
    return Param("frame", int, 0, "frame index, 0 = top of the stack", ge=0)


def location() -> Param:
    return Param("location", str, description='a line as people type it: "com.acme.Foo:42", "Foo:42", "Foo.java:42", '
                 '"src/main/java/com/acme/Foo.java:42", or a method "com.acme.Foo.bar"')


def condition() -> Param:
    return Param("condition", str | None, None, 'Java expression; stop only when true, e.g. "i > 5 && name != null"')


def log() -> Param:
    return Param("log", str | bool | None, None,
                 'logpoint: do not stop, record a line in events instead (shown in the next stop answer). '
                 'true: a line saying where it fired (Class.method:line, thread), plus old -> new for a field write; '
                 'or a message with {expression} parts, e.g. "total={total}", followed by the same')


def target() -> Param:
    return Param("target", str, description='an object handle "@12", a mark "$label", or a Java expression')


def wait_timeout(default: float) -> Param:
    return Param("timeout", float, float(default),
                 f"seconds to wait for the next stop (default {default:g}; 0 = don't wait)", ge=0, le=600)


def capture_params() -> tuple[Param, ...]:
    """A capture point: takes the stack and values at a hit and lets the thread go on (never a stop)."""
    return (
        Param("capture", bool | int | None, None,
              "capture instead of stopping: true = one capture, N = up to N; each holds the thread, frames "
              "(Class.method:line), arguments and locals of the top frames with `this`'s fields, as they were at "
              "the hit; the program never stops (captures lists them)"),
        Param("expressions", list[str] | None, None, 'Java expressions a capture also records, e.g. ["order.id"]'),
        Param("capture_limits", dict[str, float | bool] | None, None,
              'raise or lower what a capture reads: {"depth": 2, "items": 20, "chars": 200, "fields": 20, '
              '"frames": 1, "rate": 100, "jdk_internals": false} (levels opened, elements, string chars, fields, '
              "frames with locals: more than 1 holds the thread at each capture, captures/s; jdk_internals: open "
              "the fields of JDK classes such as a ClassLoader's, otherwise one cut -- those captures hold the "
              "thread)"),
    )
