"""Operations on breakpoints of every kind: line breakpoints, exception breaks, watchpoints, method breaks."""

from __future__ import annotations

from typing import Any, Literal

from . import params
from .spec import Arguments, Effect, Param, Spec, log_arg, thread_arg


def _update(d: Any, a: Arguments) -> Any:
    log = ("logged" if a.log else "") if isinstance(a.log, bool) else a.log
    options = {k: v for k, v in {
        "sample": a.sample, "condition": a.condition, "hit_count": a.hit_count, "log": log,
        "thread": thread_arg(a.thread), "temporary": a.temporary, "suspend": a.suspend, "after": a.after,
        "enabled": a.enabled,
    }.items() if v is not None}
    return d.breakpoint_update(a.id, actor=a.actor, **options)


SPECS = (
    Spec(
        "breakpoint_set", "Set a line breakpoint (pending until the class loads). Conditions, hit counts, logpoints.\n\n"
        "A condition or log {expression} is Java evaluated in the hitting frame: locals, `this`, fields,\n"
        "statics, method calls. A logpoint line also says where it fired (Class.method:line, thread) and\n"
        "shows in the next stop answer; log=true needs no message.",
        Effect.CONTROL, tool="breakpoint_set", method="breakpoint_set",
        commands=("stop", "stop at", "stop in", "tbreak", "logpoint", "capture"),
        call=lambda d, a: d.breakpoint_set(
            a.location, condition=a.condition, hit_count=a.hit_count, log=log_arg(a.log, "reached"),
            thread=thread_arg(a.thread), temporary=a.temporary, suspend=a.suspend, after=a.after,
            enabled=a.enabled, **_capture(a), actor=a.actor),
        params=(
            params.location(), params.condition(),
            Param("hit_count", int | str | None, None,
                  'stop on the Nth hit (1000), every Nth ("%10") or from the Nth (">=5")'),
            params.log(), params.thread(),
            Param("temporary", bool, False, "remove after the first stop"),
            Param("suspend", Literal["thread", "all"], "all", "suspend only the hitting thread, or all"),
            Param("after", str | None, None, "id of a breakpoint that must fire first (chained)"),
            Param("enabled", bool, True),
            *params.capture_params(),
        )),
    Spec(
        "breakpoint_list", "Every breakpoint, exception break, watchpoint and method break with its id, state and hits.",
        tool="breakpoint_list", method="breakpoint_list", render="breakpoints", data_key="breakpoints",
        commands=("info breakpoints",), call=lambda d, a: d.breakpoint_list()),
    Spec(
        "breakpoint_update",
        'Change options of a breakpoint; only the arguments given change ("" clears a text option).',
        Effect.CONTROL, tool="breakpoint_update", method="breakpoint_update", call=_update,
        commands=("enable", "disable", "condition", "ignore-count", "hitcount"),
        params=(
            Param("id", str, description='breakpoint id, e.g. "bp-1"'),
            params.condition(),
            Param("hit_count", int | str | None, None, '"1000", "%10", ">=5"; "" clears it'),
            params.log(), params.thread(),
            Param("temporary", bool | None, None),
            Param("suspend", Literal["thread", "all"] | None, None),
            Param("after", str | None, None, "id of a breakpoint that must fire first"),
            Param("enabled", bool | None, None, "false disables it without removing it"),
            Param("sample", int | None, None, "throttle a hot condition: the JVM reports 1 hit in N and only those "
                  "are evaluated (a hit in between is missed); 1 reports every hit again", ge=1),
        )),
    Spec(
        "breakpoint_remove", "Remove a breakpoint (any kind), or all of them.",
        Effect.CONTROL, tool="breakpoint_remove", method="breakpoint_remove", render="removed", data_key="removed",
        commands=("clear", "delete", "ignore", "unwatch"),
        call=lambda d, a: d.breakpoint_remove(a.id, actor=a.actor),
        params=(Param("id", str, description='breakpoint id ("bp-1"), or "all"'),)),
    Spec(
        "exception_break", "Stop when an exception is thrown (subclasses included), where it is thrown.\n\n"
        "In condition and log, `$exception` is the exception object (\"$exception.getMessage()\",\n"
        "\"$exception instanceof java.io.IOException\"); `this` is the throwing frame's object.",
        Effect.CONTROL, tool="exception_break", method="exception_break", commands=("catch",),
        call=lambda d, a: d.exception_break(
            a.exception, caught=a.caught, uncaught=a.uncaught, condition=a.condition, log=log_arg(a.log, "thrown"),
            thread=thread_arg(a.thread), **_capture(a), actor=a.actor),
        params=(
            Param("exception", str, "*", 'exception class, e.g. "java.lang.NullPointerException" or '
                  '"NullPointerException"; "*" for every exception'),
            Param("caught", bool, True, "stop when it will be caught"),
            Param("uncaught", bool, True, "stop when nothing catches it"),
            params.condition(), params.log(), params.thread(), *params.capture_params(),
        )),
    Spec(
        "watchpoint_set", "Stop when a field is read and/or written (shows old and new values).\n\n"
        "In condition and log: `$old` and `$new` are the value before and after a write (\"$new < 0\"),\n"
        "`this` (or a bare field name) is the object whose field is accessed, not the writer's frame.\n"
        "log=true records each write with where it happened (Class.method:line, thread) and\n"
        "object.field: old -> new, without stopping; the lines show in the next stop answer.",
        Effect.CONTROL, tool="watchpoint_set", method="watchpoint_set", commands=("watch",),
        call=lambda d, a: d.watchpoint_set(
            a.field, access=a.access, modify=a.modify, instance=a.instance, condition=a.condition,
            log=log_arg(a.log, "write" if a.modify else "read"), thread=thread_arg(a.thread), **_capture(a),
            actor=a.actor),
        params=(
            Param("field", str, description='"com.acme.Order.totalCents" (class.field)'),
            Param("access", bool, False, "stop when the field is read"),
            Param("modify", bool, True, "stop when the field is written"),
            Param("instance", str | None, None, 'only for this object: "@12" or "$mark"'),
            params.condition(), params.log(), params.thread(), *params.capture_params(),
        )),
    Spec(
        "method_break", "Stop when a method is entered or exits.\n\n"
        "In condition and log: the method's arguments and `this`; on exit also `$return`, the value being\n"
        "returned (\"$return == null\"). log=true records each call with where it happened, without stopping.",
        Effect.CONTROL, tool="method_break", method="method_break", commands=("break-entry", "break-exit"),
        call=lambda d, a: d.method_break(
            a.method, on=a.on, condition=a.condition, log=log_arg(a.log, "entered" if a.on == "entry" else "returned"),
            thread=thread_arg(a.thread), **_capture(a), actor=a.actor),
        params=(
            Param("method", str, description='"com.acme.Foo.bar" (every overload) or "com.acme.Foo.bar(int)"'),
            Param("on", Literal["entry", "exit"], "entry", "stop on entry, or on exit (shows the return value)"),
            params.condition(), params.log(), params.thread(), *params.capture_params(),
        )),
    Spec(
        "captures", "Captures taken by capture points (capture=true/N on a breakpoint), oldest first: each\n"
        "the thread, its frames, the top frames' arguments and locals and the expressions, as they were at\n"
        "the hit. The program never stopped for them.",
        tool="captures", method="captures", render="captures", data_key="captures", commands=("captures",),
        call=lambda d, a: d.captures(a.id, a.wait, a.limit, a.since),
        params=(
            Param("id", str | None, None, 'a capture point\'s breakpoint id ("bp-3"); default: every point'),
            Param("wait", float, 0.0, "seconds to wait for the next capture when there is none yet", ge=0, le=600),
            Param("limit", int, 20, "at most this many", ge=1, le=1000),
            Param("since", int, 0, "only captures after this capture number (the last one's `seq`)", ge=0),
        )),
)


def _capture(a: Arguments) -> dict[str, Any]:
    return {"capture": a.capture, "expressions": a.expressions, "capture_limits": a.capture_limits}
