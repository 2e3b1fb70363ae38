"""The MCP tools: the names and arguments of ../shared/DESIGN.md, each one call on the core Debugger.

Every tool answers with a compact text rendering (core/render.py) for the model plus the structured
form (`to_dict()` of the core's result). Waiting tools (resume, step, run_to, wait_for_stop) answer with
the stop context when the program stops and a plain "still running" when their timeout passes.
"""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from .app import McpApp, answer
from .arguments import remember_boolean_arguments

if TYPE_CHECKING:
    from ..core.debugger import Debugger

# -- argument types (their descriptions are what the model reads) -----------------------------------------

Thread = Annotated[int | str | None, Field(
    description="thread id or name; default: the thread of the current stop (or all threads)")]
Frame = Annotated[int, Field(ge=0, description="frame index, 0 = top of the stack")]
Location = Annotated[str, Field(
    description='a line as people type it: "com.acme.Foo:42", "Foo:42", "Foo.java:42", '
    '"src/main/java/com/acme/Foo.java:42", or a method "com.acme.Foo.bar"')]
Condition = Annotated[str | None, Field(description='Java expression; stop only when true, e.g. "i > 5 && name != null"')]
LogMessage = Annotated[str | bool | None, Field(
    description='logpoint: do not stop, record a line in events instead (shown in the next stop answer). '
    'true: a line saying where it fired (Class.method:line, thread), plus old -> new for a field write; '
    'or a message with {expression} parts, e.g. "total={total}", followed by the same'),
]
Target = Annotated[str, Field(description='an object handle "@12", a mark "$label", or a Java expression')]


def _wait_timeout(default: float) -> Any:
    return Annotated[float, Field(
        ge=0, le=600, description=f"seconds to wait for the next stop (default {default:g}; 0 = don't wait)")]


ResumeTimeout = _wait_timeout(10)
StepTimeout = _wait_timeout(5)

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
CONTROL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def _thread(thread: int | str | None) -> int | str | None:
    if isinstance(thread, str):
        thread = thread.strip()
        if thread.isdigit():
            return int(thread)
        return thread or None
    return thread


def _log(log: str | bool | None, default: str) -> str | None:
    """`log: true` asks for the line the core writes anyway (where, old -> new): give it a plain message."""
    if log is True:
        return default
    return log or None


def _data(obj: Any, key: str = "result") -> dict[str, Any] | None:
    from ..core.model import to_dict  # noqa: PLC0415

    data = to_dict(obj)
    if isinstance(data, dict):
        return data
    return {key: data}


def _text(obj: Any) -> str:
    from ..core import render  # noqa: PLC0415

    return render.render(obj)


def _describe(fn: Any) -> str:
    return inspect.cleandoc(fn.__doc__ or fn.__name__)


def _agent() -> Any:
    from ..core.model import Actor  # noqa: PLC0415

    return Actor.AGENT


def register(server: MCPServer, app: McpApp) -> None:  # noqa: C901  (one closure per tool, flat on purpose)
    def tool(annotations: ToolAnnotations) -> Any:
        def decorate(fn: Any) -> Any:
            server.add_tool(fn, description=_describe(fn), annotations=annotations)
            remember_boolean_arguments(fn)  # so `thread: true` is refused, not taken as thread 1
            return fn

        return decorate

    async def reply(name: str, fn: Any, key: str = "result", as_list: str | None = None) -> CallToolResult:
        result = await app.call(name, fn)
        if as_list is not None:  # lists name their renderer, so an empty one still reads right
            from ..core import render  # noqa: PLC0415

            return answer(getattr(render, as_list)(result), _data(result, key))
        return answer(_text(result), _data(result, key))

    async def stop_context(name: str, ctx: Context | None, timeout: float, fn: Any) -> CallToolResult:
        """Run a waiting core call; on a stop, add the snapshot so one call shows everything."""
        from ..core import render  # noqa: PLC0415
        from ..core.model import SessionState, StopKind  # noqa: PLC0415

        async def work(d: Debugger) -> Any:
            return await app.waiting(ctx, timeout, fn(d))

        result = await app.call(name, work)
        snap = None
        if result.stopped and result.state is SessionState.STOPPED and result.stop is not None \
                and result.stop.kind is not StopKind.VM_DEATH:
            try:
                snap = await app.debugger().snapshot()
            except Exception:  # the stop itself is the answer; the picture around it is a bonus
                snap = None
        data = _data(result) or {}
        if snap is not None:
            data["snapshot"] = _data(snap)
        text = render.wait_result(result, snap)
        if result.stopped or result.state is SessionState.RUNNING:  # what was logged and happened meanwhile
            start, news = app.debugger().history.unseen("mcp")
            if news:
                text += "\n" + render.since_last_answer(start, news)
                data["since_last_answer"] = [_data(e) for e in news]
        return answer(text, data)

    # -- connection -------------------------------------------------------------------------------------

    @tool(annotations=CONTROL)
    async def attach(
        address: Annotated[str, Field(description='"host:port" of a JVM started with '
                                      '-agentlib:jdwp=transport=dt_socket,server=y,address=PORT')] = "localhost:5005",
        timeout: Annotated[float, Field(ge=0, le=600, description="seconds to wait for the JVM to listen")] = 10.0,
        sourcepath: Annotated[list[str] | None, Field(description="directories holding the program's .java sources")] = None,
    ) -> CallToolResult:
        """Attach to a running JVM that listens for a debugger. Then set breakpoints and resume."""

        async def attach_to(d: Debugger) -> Any:
            if sourcepath:
                d.session.sources.add(*sourcepath)  # the facade's attach has no sourcepath argument yet
            return await d.attach(address, timeout, actor=_agent())

        return await reply("attach", attach_to)

    @tool(annotations=CHANGE)
    async def launch(
        main: Annotated[str | None, Field(description="main class, e.g. com.acme.Main (with classpath)")] = None,
        classpath: Annotated[list[str] | str | None, Field(description="class path entries, list or a path string")] = None,
        jar: Annotated[str | None, Field(description="an executable jar to run (instead of main)")] = None,
        source: Annotated[str | None, Field(description="a single .java file: compiled with javac -g, then run")] = None,
        args: Annotated[list[str] | None, Field(description="program arguments")] = None,
        jvm_args: Annotated[list[str] | None, Field(description='JVM options, e.g. ["-Xmx256m"]')] = None,
        cwd: Annotated[str | None, Field(description="working directory of the program")] = None,
        env: Annotated[dict[str, str] | None, Field(description="extra environment variables")] = None,
        sourcepath: Annotated[list[str] | None, Field(description="directories holding .java sources")] = None,
        suspend: Annotated[bool, Field(description="stay suspended at VM start so breakpoints can be set first")] = True,
    ) -> CallToolResult:
        """Start a JVM under the debugger (main+classpath, jar, or one .java file). Its output is kept: see output.

        With suspend=true (default) it stops at VM start: set breakpoints, then resume."""
        return await reply("launch", lambda d: d.launch(
            main=main, classpath=classpath, jar=jar, source=source, args=args or (), jvm_args=jvm_args or (),
            cwd=cwd, env=env, sourcepath=sourcepath or (), suspend=suspend, actor=_agent()))

    @tool(annotations=CONTROL)
    async def detach(
        terminate: Annotated[bool, Field(description="also end the JVM (a launched one always ends)")] = False,
    ) -> CallToolResult:
        """Disconnect from the JVM (clean slate: breakpoints, watchers and history are dropped). With
        terminate, answers once the JVM has exited. Object handles (@12) start again at @1 in the next
        session; event numbers keep counting, so `events since=N` never skips a new session's events."""
        return await reply("detach", lambda d: d.detach(terminate, actor=_agent()))

    @tool(annotations=READ)
    async def status() -> CallToolResult:
        """State (DISCONNECTED, RUNNING, STOPPED, EXITED), why and where it stopped, the target, counts."""
        return await reply("status", lambda d: d.status())

    @tool(annotations=CONTROL)
    async def reset() -> CallToolResult:
        """Clear breakpoints, watchers and the event history; keep the connection and marks."""
        return await reply("reset", lambda d: d.reset(actor=_agent()))

    @tool(annotations=READ)
    async def diagnose() -> CallToolResult:
        """Server version and log file, the last connection attempt and its error, and local JVMs that
        run a JDWP agent with the ports they listen on. Use when attach fails or a port is unknown."""
        return await _diagnose(app)

    # -- execution --------------------------------------------------------------------------------------

    @tool(annotations=CONTROL)
    async def resume(thread: Thread = None, timeout: ResumeTimeout = 10.0, ctx: Context | None = None) -> CallToolResult:
        """Resume the program (or one thread) and wait for the next stop: answers with the stop context
        (reason, source, stack, locals), or "still running" when the timeout passes. Each stop is answered
        once: with several threads stopped, each resume answers the next one."""
        return await stop_context("resume", ctx, timeout,
                                  lambda d: d.resume(_thread(thread), timeout, actor=_agent()))

    @tool(annotations=CONTROL)
    async def pause(thread: Thread = None) -> CallToolResult:
        """Suspend the program (or one thread) now; works while another call is waiting."""
        async def pause_thread(d: Debugger) -> Any:
            if _thread(thread) is not None:  # a thread that does not exist is an error, even when already stopped
                await d.session.resolve_thread(_thread(thread))
            return await d.pause(_thread(thread), actor=_agent())

        return await stop_context("pause", None, 0, pause_thread)

    @tool(annotations=CONTROL)
    async def step(
        kind: Annotated[Literal["over", "into", "out"], Field(description="over the next line, into the call, or out")] = "over",
        thread: Thread = None,
        count: Annotated[int, Field(ge=1, le=10_000, description="how many steps")] = 1,
        timeout: StepTimeout = 5.0,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Step the stopped thread and answer with the new stop context."""
        return await stop_context("step", ctx, timeout,
                                  lambda d: d.step(kind, _thread(thread), count, timeout, actor=_agent()))

    @tool(annotations=CONTROL)
    async def run_to(location: Location, thread: Thread = None, timeout: ResumeTimeout = 10.0,
                     ctx: Context | None = None) -> CallToolResult:
        """Resume until a line is reached (a one-shot breakpoint), then answer with the stop context."""
        return await stop_context("run_to", ctx, timeout,
                                  lambda d: d.run_to(location, _thread(thread), timeout, actor=_agent()))

    @tool(annotations=READ)
    async def wait_for_stop(timeout: ResumeTimeout = 10.0, ctx: Context | None = None) -> CallToolResult:
        """Wait for the next stop (a stop of another thread not answered yet comes at once; when every thread
        is already suspended, the current stop); "still running" on timeout."""
        return await stop_context("wait_for_stop", ctx, timeout, lambda d: d.wait_for_stop(timeout))

    # -- breakpoints ----------------------------------------------------------------------------------------

    @tool(annotations=CONTROL)
    async def breakpoint_set(
        location: Location,
        condition: Condition = None,
        hit_count: Annotated[int | str | None, Field(
            description='stop on the Nth hit (1000), every Nth ("%10") or from the Nth (">=5")')] = None,
        log: LogMessage = None,
        thread: Thread = None,
        temporary: Annotated[bool, Field(description="remove after the first stop")] = False,
        suspend: Annotated[Literal["thread", "all"], Field(description="suspend only the hitting thread, or all")] = "all",
        after: Annotated[str | None, Field(description="id of a breakpoint that must fire first (chained)")] = None,
        enabled: bool = True,
    ) -> CallToolResult:
        """Set a line breakpoint (pending until the class loads). Conditions, hit counts, logpoints.

        A condition or log {expression} is Java evaluated in the hitting frame: locals, `this`, fields,
        statics, method calls. A logpoint line also says where it fired (Class.method:line, thread) and
        shows in the next stop answer; log=true needs no message."""
        return await reply("breakpoint_set", lambda d: d.breakpoint_set(
            location, condition=condition, hit_count=hit_count, log=_log(log, "reached"), thread=_thread(thread),
            temporary=temporary, suspend=suspend, after=after, enabled=enabled, actor=_agent()))

    @tool(annotations=READ)
    async def breakpoint_list() -> CallToolResult:
        """Every breakpoint, exception break, watchpoint and method break with its id, state and hits."""
        return await reply("breakpoint_list", lambda d: d.breakpoint_list(), key="breakpoints", as_list="breakpoints")

    @tool(annotations=CONTROL)
    async def breakpoint_update(
        id: Annotated[str, Field(description='breakpoint id, e.g. "bp-1"')],  # noqa: A002
        condition: Condition = None,
        hit_count: Annotated[int | str | None, Field(description='"1000", "%10", ">=5"; "" clears it')] = None,
        log: LogMessage = None,
        thread: Thread = None,
        temporary: bool | None = None,
        suspend: Literal["thread", "all"] | None = None,
        after: Annotated[str | None, Field(description="id of a breakpoint that must fire first")] = None,
        enabled: Annotated[bool | None, Field(description="false disables it without removing it")] = None,
        sample: Annotated[int | None, Field(
            ge=1, description="throttle a hot condition: the JVM reports 1 hit in N and only those are "
            "evaluated (a hit in between is missed); 1 reports every hit again")] = None,
    ) -> CallToolResult:
        """Change options of a breakpoint; only the arguments given change ("" clears a text option)."""
        options = {k: v for k, v in {
            "sample": sample, "condition": condition, "hit_count": hit_count, "log": ("logged" if log else "") if isinstance(log, bool) else log,
            "thread": _thread(thread),
            "temporary": temporary, "suspend": suspend, "after": after, "enabled": enabled,
        }.items() if v is not None}
        return await reply("breakpoint_update", lambda d: d.breakpoint_update(id, actor=_agent(), **options))

    @tool(annotations=CONTROL)
    async def breakpoint_remove(
        id: Annotated[str, Field(description='breakpoint id ("bp-1"), or "all"')],  # noqa: A002
    ) -> CallToolResult:
        """Remove a breakpoint (any kind), or all of them."""

        async def remove(d: Debugger) -> Any:
            removed = await d.breakpoint_remove(id, actor=_agent())
            return removed

        result = await app.call("breakpoint_remove", remove)
        text = ("removed " + ", ".join(result)) if result else "nothing removed"
        return answer(text, {"removed": list(result)})

    @tool(annotations=CONTROL)
    async def exception_break(
        exception: Annotated[str, Field(
            description='exception class, e.g. "java.lang.NullPointerException" or "NullPointerException"; '
            '"*" for every exception')] = "*",
        caught: Annotated[bool, Field(description="stop when it will be caught")] = True,
        uncaught: Annotated[bool, Field(description="stop when nothing catches it")] = True,
        condition: Condition = None,
        log: LogMessage = None,
        thread: Thread = None,
    ) -> CallToolResult:
        """Stop when an exception is thrown (subclasses included), where it is thrown.

        In condition and log, `$exception` is the exception object ("$exception.getMessage()",
        "$exception instanceof java.io.IOException"); `this` is the throwing frame's object."""
        return await reply("exception_break", lambda d: d.exception_break(
            exception, caught=caught, uncaught=uncaught, condition=condition, log=_log(log, "thrown"),
            thread=_thread(thread),
            actor=_agent()))

    @tool(annotations=CONTROL)
    async def watchpoint_set(
        field: Annotated[str, Field(description='"com.acme.Order.totalCents" (class.field)')],
        access: Annotated[bool, Field(description="stop when the field is read")] = False,
        modify: Annotated[bool, Field(description="stop when the field is written")] = True,
        instance: Annotated[str | None, Field(description='only for this object: "@12" or "$mark"')] = None,
        condition: Condition = None,
        log: LogMessage = None,
        thread: Thread = None,
    ) -> CallToolResult:
        """Stop when a field is read and/or written (shows old and new values).

        In condition and log: `$old` and `$new` are the value before and after a write ("$new < 0"),
        `this` (or a bare field name) is the object whose field is accessed, not the writer's frame.
        log=true records each write with where it happened (Class.method:line, thread) and
        object.field: old -> new, without stopping; the lines show in the next stop answer."""
        return await reply("watchpoint_set", lambda d: d.watchpoint_set(
            field, access=access, modify=modify, instance=instance, condition=condition,
            log=_log(log, "write" if modify else "read"),
            thread=_thread(thread), actor=_agent()))

    @tool(annotations=CONTROL)
    async def method_break(
        method: Annotated[str, Field(description='"com.acme.Foo.bar" (every overload) or "com.acme.Foo.bar(int)"')],
        on: Annotated[Literal["entry", "exit"], Field(description="stop on entry, or on exit (shows the return value)")] = "entry",
        condition: Condition = None,
        log: LogMessage = None,
        thread: Thread = None,
    ) -> CallToolResult:
        """Stop when a method is entered or exits.

        In condition and log: the method's arguments and `this`; on exit also `$return`, the value being
        returned ("$return == null"). log=true records each call with where it happened, without stopping."""
        return await reply("method_break", lambda d: d.method_break(
            method, on=on, condition=condition, log=_log(log, "entered" if on == "entry" else "returned"),
            thread=_thread(thread), actor=_agent()))

    # -- observation ----------------------------------------------------------------------------------------

    @tool(annotations=READ)
    async def events(
        since: Annotated[int, Field(ge=0, description="only events after this sequence number")] = 0,
        kinds: Annotated[list[str] | None, Field(
            description='only these kinds, e.g. ["stop", "log", "thread_start", "exception", "output"]')] = None,
        limit: Annotated[int, Field(ge=1, le=10_000, description="at most this many")] = 100,
    ) -> CallToolResult:
        """The event history (stops, logpoints, thread starts, class loads, ...) with who caused each."""
        return await reply("events", lambda d: d.events(since, kinds, limit), key="events", as_list="events")

    @tool(annotations=READ)
    async def output(
        stream: Literal["stdout", "stderr", "both"] = "both",
        since: Annotated[int, Field(ge=0, description="character offset to read from (the last `end`)")] = 0,
    ) -> CallToolResult:
        """Output of a launched program (stdout/stderr), read from an offset."""
        return await reply("output", lambda d: d.output(stream, since), key="chunks", as_list="output")

    @tool(annotations=READ)
    async def trace(
        pattern: Annotated[str, Field(description='classes to trace, e.g. "com.acme.*"')],
        duration: Annotated[float, Field(gt=0, le=600, description="seconds to trace")] = 5.0,
        max_calls: Annotated[int, Field(ge=1, description="stop after this many calls")] = 100_000,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Count method calls in matching classes for a while without stopping the program: calls and
        time per method, and the call tree of the busiest thread."""
        return await reply("trace", lambda d: app.waiting(
            ctx, duration, d.trace(pattern, duration, max_calls, actor=_agent()), what="tracing"))

    # -- inspection --------------------------------------------------------------------------------------------

    @tool(annotations=READ)
    async def snapshot(thread: Thread = None) -> CallToolResult:
        """Everything about the current stop in one call: reason, source around the line, stack, locals
        of the top frame, watchers, and what changed since the last stop."""
        return await reply("snapshot", lambda d: d.snapshot(_thread(thread)))

    @tool(annotations=READ)
    async def threads(
        thread: Thread = None,
        include_system: Annotated[bool, Field(description="also JVM system threads")] = False,
    ) -> CallToolResult:
        """Threads with state, suspended or not, location, locks held and awaited."""

        async def list_threads(d: Debugger) -> Any:
            found = await d.threads(include_system, with_locks=True)
            wanted = _thread(thread)
            if wanted is not None:
                found = [t for t in found if t.id == wanted or t.name == wanted]
            return found

        return await reply("threads", list_threads, key="threads", as_list="threads")

    @tool(annotations=READ)
    async def stack(
        thread: Thread = None,
        start: Annotated[int, Field(ge=0, description="first frame index")] = 0,
        count: Annotated[int, Field(ge=1, le=1000, description="how many frames")] = 20,
        locals: Annotated[bool, Field(description="include each frame's locals")] = False,  # noqa: A002
        all_frames: Annotated[bool, Field(
            description="show JDK and library frames one by one (default: each run of them is one line)")] = False,
    ) -> CallToolResult:
        """The call stack of a suspended thread (frame 0 = top): the program's frames, with each run of
        JDK / library frames folded into one line ("… 6 frames in java.util.concurrent") unless all_frames."""
        from ..core import render  # noqa: PLC0415

        result = await app.call("stack", lambda d: d.stack(_thread(thread), start, count, locals))
        return answer(render.frames(result, fold_library=not all_frames), _data(result, "frames"))

    @tool(annotations=READ)
    async def locals(frame: Frame = 0, thread: Thread = None) -> CallToolResult:  # noqa: A001
        """Arguments, locals and `this` of a frame, with object handles to inspect further."""
        return await reply("locals", lambda d: d.locals(frame, _thread(thread)), key="variables",
                           as_list="all_variables")

    @tool(annotations=READ)
    async def inspect(
        target: Target,
        frame: Frame = 0,
        thread: Thread = None,
        start: Annotated[int, Field(ge=0, description="first field/element/char to show (paging)")] = 0,
        count: Annotated[int, Field(ge=1, le=10_000, description="how many to show")] = 50,
    ) -> CallToolResult:
        """Open a value: an object's fields, an array's or collection's elements, a map's entries, a
        long string's characters (paged with start/count)."""
        return await reply("inspect", lambda d: d.inspect(target, frame, _thread(thread), start, count))

    @tool(annotations=CONTROL)
    async def evaluate(
        expression: Annotated[str, Field(description='a Java expression: "order.items.size()", "a + b * 2", "$m.f"')],
        frame: Frame = 0,
        thread: Thread = None,
    ) -> CallToolResult:
        """Evaluate a Java expression in a frame (locals, this, fields, statics, method calls)."""
        return await reply("evaluate", lambda d: d.evaluate(expression, frame, _thread(thread), actor=_agent()))

    @tool(annotations=CHANGE)
    async def set_value(
        target: Annotated[str, Field(description='what to assign: "x", "this.count", "arr[3]", "$m.f"')],
        value: Annotated[str, Field(description='new value as a Java expression: "42", "\\"abc\\"", "null", "y + 1"')],
        frame: Frame = 0,
        thread: Thread = None,
    ) -> CallToolResult:
        """Change a local, field, static or array element in the stopped program."""
        return await reply("set_value", lambda d: d.set_value(target, value, frame, _thread(thread), actor=_agent()))

    @tool(annotations=READ)
    async def source(
        location: Annotated[str | None, Field(
            description='"Foo:42", "com.acme.Foo", "Foo.java", "com.acme.Foo.bar"; default: the current line')] = None,
        context: Annotated[int, Field(ge=0, le=500, description="lines shown around the line")] = 5,
    ) -> CallToolResult:
        """Source lines around a location, with breakpoint and current-line markers."""
        return await reply("source", lambda d: d.source(location, context))

    @tool(annotations=READ)
    async def classes(
        pattern: Annotated[str, Field(description='loaded classes matching, e.g. "com.acme.*" or "*Order*"')] = "*",
        members: Annotated[bool, Field(description="with methods and fields and their lines")] = False,
    ) -> CallToolResult:
        """Search loaded classes (with "did you mean" for near misses); optionally their members."""
        return await reply("classes", lambda d: d.classes(pattern, members), key="classes")

    @tool(annotations=READ)
    async def locks() -> CallToolResult:
        """Who holds and who waits for which monitor or java.util.concurrent lock; deadlock cycles."""
        return await reply("locks", lambda d: d.locks())

    @tool(annotations=READ)
    async def heap(
        pattern: Annotated[str, Field(description='classes to count instances of, e.g. "com.acme.Order" or "com.acme.*"')],
    ) -> CallToolResult:
        """Live instance counts of classes."""
        return await reply("heap", lambda d: d.heap(pattern), key="counts", as_list="heap")

    @tool(annotations=READ)
    async def referrers(
        target: Target,
        limit: Annotated[int, Field(ge=1, le=1000, description="at most this many referrers")] = 20,
    ) -> CallToolResult:
        """Objects that hold a reference to the given object (and through which field)."""
        return await reply("referrers", lambda d: d.referrers(target, limit))

    # -- watchers and marks ---------------------------------------------------------------------------------------

    @tool(annotations=CONTROL)
    async def watch_add(
        expression: Annotated[str | None, Field(
            description="Java expression evaluated at every stop; omit to list the watchers")] = None,
        breakpoint: Annotated[str | None, Field(description="evaluate only at this breakpoint's stops")] = None,
    ) -> CallToolResult:
        """Add a watcher (its value at each stop, with history); without an expression, list them."""
        if expression is None:
            return await reply("watch_add", lambda d: d.watches(), key="watches")
        return await reply("watch_add", lambda d: d.watch_add(expression, breakpoint, actor=_agent()))

    @tool(annotations=CONTROL)
    async def watch_remove(
        id: Annotated[str, Field(description='watcher id, e.g. "w-1"')],  # noqa: A002
    ) -> CallToolResult:
        """Remove a watcher."""
        return await reply("watch_remove", lambda d: d.watch_remove(id, actor=_agent()))

    @tool(annotations=CONTROL)
    async def mark(
        target: Annotated[str | None, Field(
            description='object to pin: handle "@12" or an expression; omit to list the marks')] = None,
        label: Annotated[str | None, Field(description='name to use in expressions as "$label"')] = None,
    ) -> CallToolResult:
        """Pin an object under a label ($label), kept alive and usable in any expression; without
        arguments, list the marks."""
        if target is None:
            return await reply("mark", lambda d: d.marks(), key="marks")
        if not label:
            from mcp.server.mcpserver.exceptions import ToolError  # noqa: PLC0415

            raise ToolError("mark needs a label: mark(target='@12', label='order'), then use $order")
        return await reply("mark", lambda d: d.mark(target, label.lstrip("$"), actor=_agent()))

    @tool(annotations=CONTROL)
    async def unmark(label: Annotated[str, Field(description='the label, with or without "$"')]) -> CallToolResult:
        """Remove a mark (the object may be garbage collected again)."""
        return await reply("unmark", lambda d: d.unmark(label.lstrip("$"), actor=_agent()))

    # -- changing code ---------------------------------------------------------------------------------------------

    @tool(annotations=CHANGE)
    async def hotswap(
        path: Annotated[str, Field(description="a classes directory or .class file(s) compiled with -g")],
        since: Annotated[float | None, Field(
            description="only class files modified after this Unix time (default: all)")] = None,
    ) -> CallToolResult:
        """Redefine loaded classes from new class files (method bodies only); breakpoints re-installed."""
        return await reply("hotswap", lambda d: d.hotswap(os.path.expanduser(path), since, actor=_agent()))

    @tool(annotations=CHANGE)
    async def pop_frames(frame: Frame = 0, thread: Thread = None) -> CallToolResult:
        """Drop frames up to and including `frame`, so the method is re-entered from its call."""
        return await reply("pop_frames", lambda d: d.pop_frames(frame, _thread(thread), actor=_agent()))

    @tool(annotations=CHANGE)
    async def force_return(
        value: Annotated[str, Field(description='return value as a Java expression ("0", "null", "x + 1"); "" for void')],
        thread: Thread = None,
    ) -> CallToolResult:
        """Return from the top frame now with the given value, skipping the rest of the method."""
        return await reply("force_return", lambda d: d.force_return(value, _thread(thread), actor=_agent()))


# -- diagnose -----------------------------------------------------------------------------------------------------


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("tracepilot")
    except PackageNotFoundError:
        return "unknown"


async def _diagnose(app: McpApp) -> CallToolResult:
    import sys  # noqa: PLC0415

    from ..core.discovery import discover  # noqa: PLC0415

    session: dict[str, Any] = {}
    try:
        session = await app.call("diagnose", lambda d: d.diagnose()) or {}
    except Exception as e:  # diagnose must answer even when the session part is broken
        session = {"error": str(e)}
    jvms = session.pop("local_jvms", None) if isinstance(session, dict) else None
    if not jvms:
        jvms = await discover()
    server = {
        "name": "tracepilot", "version": _version(), "pid": os.getpid(), "python": sys.version.split()[0],
        "log_file": app.log_file, "read_only": app.read_only, "redact": app.redact, "join": app.join,
    }
    data = {"server": server, "session": _data(session), "local_jvms": _data(jvms, "items")["items"]}
    lines = [f"tracepilot {server['version']} (pid {server['pid']}, Python {server['python']})"
             + (" read-only" if app.read_only else ""),
             f"log file: {app.log_file or 'none (stderr only)'}"]
    for key, val in (session or {}).items():
        if val in (None, "", [], {}):
            continue
        lines.append(f"{key}: {_text(val) if not isinstance(val, str | int | float | bool) else val}")
    if jvms:
        lines.append("local JVMs with a JDWP agent:")
        lines.extend("  " + (p.describe() if hasattr(p, "describe") else str(p)) for p in jvms)
        ports = [port for p in jvms for port in getattr(p, "jdwp_ports", ())]
        maybe = [port for p in jvms for port in getattr(p, "unverified_ports", ())]
        if ports:
            lines.append(f"attach with attach(address='localhost:{ports[0]}')")
        elif maybe:
            lines.append(f"no port is verified as JDWP; try attach(address='localhost:{maybe[0]}') (not verified)")
    else:
        lines.append("no local JVM runs a JDWP agent (start one with "
                     "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=5005, or use launch)")
    return answer("\n".join(lines), data)
