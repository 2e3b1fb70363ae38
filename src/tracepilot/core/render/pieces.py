"""Small pieces every rendering uses: limits, a location, a value, a variable, an exception, a stop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import (
    CodeLocation,
    ExceptionInfo,
    StopKind,
    StopReason,
    ValueView,
    Variable,
)

MAX_LOCALS = 12
MAX_FRAMES = 6
MAX_EVENTS = 50
MAX_VALUE = 200
STILL_RUNNING = "still running"


def clip(text: str, limit: int = MAX_VALUE) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- small pieces ------------------------------------------------------------------------------------


def location(loc: CodeLocation | None) -> str:
    return str(loc) if loc is not None else "?"


def value(v: ValueView | Any) -> str:
    if isinstance(v, ValueView):
        text = clip(v.text)
        if v.handle and v.handle not in text:
            text += f" {v.handle}"
        return text
    return clip(str(v))


def variable(var: Variable) -> str:
    mark = " (changed)" if var.changed else ""
    return f"{var.name} = {value(var.value)}{mark}"


def variables(vars_: Sequence[Variable], limit: int = MAX_LOCALS) -> str:
    if not vars_:
        return "(no variables)"
    lines = [variable(v) for v in vars_[:limit]]
    if len(vars_) > limit:
        lines.append(f"... {len(vars_) - limit} more: locals lists them all")
    return "\n".join(lines)


def all_variables(vars_: Sequence[Variable]) -> str:
    """Every variable (the answer of `locals`, which is where a cut list of them points)."""
    return variables(vars_, limit=max(len(vars_), 1))


def exception(exc: ExceptionInfo) -> str:
    text = exc.class_name + (f": {exc.message}" if exc.message else "")
    if exc.handle:
        text += f" {exc.handle}"
    if exc.thrown_at:
        text += f"\n  thrown at {exc.thrown_at}"
    text += f"\n  caught at {exc.catch_location}" if exc.catch_location else "\n  not caught (uncaught)"
    for cause in exc.causes:  # as Java prints "Caused by:", with the cause's top frame
        text += f"\n  caused by {cause.class_name}" + (f": {cause.message}" if cause.message else "") + (
            f" at {cause.top_frame}" if cause.top_frame else "")
    return text


def stop(reason: StopReason | None) -> str:
    """The headline of a stop plus its details (exception, watchpoint values, return value)."""
    if reason is None:
        return "not stopped"
    lines = [reason.headline()]
    if reason.exception is not None and reason.kind is StopKind.EXCEPTION:
        lines.append("exception " + exception(reason.exception))
    if reason.object is not None:
        lines.append(f"object {value(reason.object)}")
    if reason.also:
        lines.append("also hit: " + ", ".join(reason.also))
    if reason.returned_from and reason.kind is not StopKind.STEP:
        lines.append(reason.returned())
    return "\n".join(lines)


