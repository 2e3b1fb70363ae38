"""Operations on watchers (expressions shown at every stop) and marks (objects pinned under a label)."""

from __future__ import annotations

from typing import Any

from .spec import ArgumentError, Arguments, Effect, Param, Spec, person_only


def _watch_add(d: Any, a: Arguments) -> Any:
    if a.expression is None:
        return d.watches()
    return d.watch_add(a.expression, a.breakpoint, actor=a.actor)


def _mark(d: Any, a: Arguments) -> Any:
    if a.target is None:
        return d.marks()
    if not a.label:
        raise ArgumentError("mark needs a label: mark(target='@12', label='order'), then use $order")
    return d.mark(a.target, a.label.lstrip("$"), actor=a.actor)


SPECS = (
    Spec(
        "watch_add", "Add a watcher (its value at each stop, with history); without an expression, list them.",
        Effect.CONTROL, tool="watch_add", method="watch_add", data_key="watches", call=_watch_add,
        commands=("display", "watchers"),
        params=(
            Param("expression", str | None, None, "Java expression evaluated at every stop; omit to list the watchers"),
            Param("breakpoint", str | None, None, "evaluate only at this breakpoint's stops"),
        )),
    Spec(
        "watch_remove", "Remove a watcher.", Effect.CONTROL, tool="watch_remove", method="watch_remove",
        commands=("undisplay",), call=lambda d, a: d.watch_remove(a.id, actor=a.actor),
        params=(Param("id", str, description='watcher id, e.g. "w-1"'),)),
    Spec(
        "mark", "Pin an object under a label ($label), kept alive and usable in any expression; without\n"
        "arguments, list the marks.",
        Effect.CONTROL, tool="mark", method="mark", data_key="marks", call=_mark,
        commands=("mark", "marks", "disablegc"),
        params=(
            Param("target", str | None, None, 'object to pin: handle "@12" or an expression; omit to list the marks'),
            Param("label", str | None, None, 'name to use in expressions as "$label"'),
        )),
    Spec(
        "unmark", "Remove a mark (the object may be garbage collected again).", Effect.CONTROL, tool="unmark",
        method="unmark", commands=("unmark", "enablegc"),
        call=lambda d, a: d.unmark(a.label.lstrip("$"), actor=a.actor),
        params=(Param("label", str, description='the label, with or without "$"'),)),
    person_only("monitor", "runs prompt commands at each stop of that prompt; an agent gets the snapshot of "
                "every stop and can add watchers", ("monitor", "unmonitor")),
)
