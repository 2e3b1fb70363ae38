"""Operations that look at a stopped program: snapshot, threads, stack, locals, values, source, classes,
locks, the heap; and the frame and thread selection only a person at a prompt has."""

from __future__ import annotations

from typing import Any

from . import params
from .spec import Arguments, Effect, Param, Spec, person_only, thread_arg


async def _threads(d: Any, a: Arguments) -> Any:
    found = await d.threads(a.include_system, with_locks=True)
    wanted = thread_arg(a.thread)
    if wanted is not None:
        found = [t for t in found if t.id == wanted or t.name == wanted]
    return found


_SELECTION = ("the current thread and frame belong to one prompt; every MCP tool takes thread and frame "
              "arguments instead")

SPECS = (
    Spec(
        "snapshot", "Everything about the current stop in one call: reason, source around the line, stack, locals\n"
        "of the top frame, watchers, and what changed since the last stop.",
        tool="snapshot", method="snapshot", commands=("snapshot",),
        call=lambda d, a: d.snapshot(thread_arg(a.thread)), params=(params.thread(),)),
    Spec(
        "threads", "Threads with state, suspended or not, location, locks held and awaited.",
        tool="threads", method="threads", render="threads", data_key="threads", call=_threads,
        commands=("threads",),
        params=(params.thread(), Param("include_system", bool, False, "also JVM system threads"))),
    Spec(
        "stack", "The call stack of a suspended thread (frame 0 = top): the program's frames, with each run of\n"
        "JDK / library frames folded into one line (\"… 6 frames in java.util.concurrent\") unless all_frames.",
        tool="stack", method="stack", render="frames", data_key="frames", commands=("where",),
        render_options=lambda a: {"fold_library": not a.all_frames},
        call=lambda d, a: d.stack(thread_arg(a.thread), a.start, a.count, a.locals),
        params=(
            params.thread(),
            Param("start", int, 0, "first frame index", ge=0),
            Param("count", int, 20, "how many frames", ge=1, le=1000),
            Param("locals", bool, False, "include each frame's locals"),
            Param("all_frames", bool, False,
                  "show JDK and library frames one by one (default: each run of them is one line)"),
        )),
    Spec(
        "locals", "Arguments, locals and `this` of a frame, with object handles to inspect further.",
        tool="locals", method="locals", render="all_variables", data_key="variables", commands=("locals",),
        call=lambda d, a: d.locals(a.frame, thread_arg(a.thread)), params=(params.frame(), params.thread())),
    Spec(
        "inspect", "Open a value: an object's fields, an array's or collection's elements, a map's entries, a\n"
        "long string's characters (paged with start/count).",
        tool="inspect", method="inspect", commands=("dump",),
        call=lambda d, a: d.inspect(a.target, a.frame, thread_arg(a.thread), a.start, a.count),
        params=(
            params.target(), params.frame(), params.thread(),
            Param("start", int, 0, "first field/element/char to show (paging)", ge=0),
            Param("count", int, 50, "how many to show", ge=1, le=10_000),
        )),
    Spec(
        "evaluate", "Evaluate a Java expression in a frame (locals, this, fields, statics, method calls).",
        Effect.CONTROL, tool="evaluate", method="evaluate", commands=("print",),
        call=lambda d, a: d.evaluate(a.expression, a.frame, thread_arg(a.thread), actor=a.actor),
        params=(
            Param("expression", str, description='a Java expression: "order.items.size()", "a + b * 2", "$m.f"'),
            params.frame(), params.thread(),
        )),
    Spec(
        "set_value", "Change a local, field, static or array element in the stopped program.",
        Effect.CHANGE, tool="set_value", method="set_value", commands=("set",),
        call=lambda d, a: d.set_value(a.target, a.value, a.frame, thread_arg(a.thread), actor=a.actor),
        params=(
            Param("target", str, description='what to assign: "x", "this.count", "arr[3]", "$m.f"'),
            Param("value", str, description='new value as a Java expression: "42", "\\"abc\\"", "null", "y + 1"'),
            params.frame(), params.thread(),
        )),
    Spec(
        "source", "Source lines around a location, with breakpoint and current-line markers.",
        tool="source", method="source", commands=("list",),
        call=lambda d, a: d.source(a.location, a.context),
        params=(
            Param("location", str | None, None,
                  '"Foo:42", "com.acme.Foo", "Foo.java", "com.acme.Foo.bar"; default: the current line'),
            Param("context", int, 5, "lines shown around the line", ge=0, le=500),
        )),
    Spec(
        "classes", "Search loaded classes (with \"did you mean\" for near misses); optionally their members.",
        tool="classes", method="classes", data_key="classes", commands=("classes", "class", "methods", "fields"),
        call=lambda d, a: d.classes(a.pattern, a.members),
        params=(
            Param("pattern", str, "*", 'loaded classes matching, e.g. "com.acme.*" or "*Order*"'),
            Param("members", bool, False, "with methods and fields and their lines"),
        )),
    Spec(
        "locks", "Who holds and who waits for which monitor or java.util.concurrent lock; deadlock cycles.",
        tool="locks", method="locks", commands=("locks", "lock"), call=lambda d, a: d.locks()),
    Spec(
        "heap", "Live instance counts of classes.",
        tool="heap", method="heap", render="heap", data_key="counts", commands=("heap",),
        call=lambda d, a: d.heap(a.pattern),
        params=(Param("pattern", str, description='classes to count instances of, e.g. "com.acme.Order" or '
                      '"com.acme.*"'),)),
    Spec(
        "referrers", "Objects that hold a reference to the given object (and through which field).",
        tool="referrers", method="referrers", commands=("referrers",),
        call=lambda d, a: d.referrers(a.target, a.limit),
        params=(params.target(), Param("limit", int, 20, "at most this many referrers", ge=1, le=1000))),
    person_only("select_frame", _SELECTION, ("up", "down", "frame")),
    person_only("select_thread", _SELECTION, ("thread",)),
)
