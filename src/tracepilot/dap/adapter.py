"""The DAP binding: each request calls the `Debugger` facade (or a joined session's `RemoteDebugger`).

No debugger logic lives here: requests are translated to facade calls and the facade's answers (model
objects) to DAP bodies; the core's event history is translated to DAP events (stopped, continued,
thread, output, breakpoint, exited, terminated). What a DAP user does is recorded as the person's.

One piece: `Adapter` answers DAP's request set, a few lines each, over shared id tables (threads, frames,
variable references) that every request reads and a stop invalidates; split, each part would reach into the
others' tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..core.errors import DebuggerError
from ..core.model import Actor, BreakpointInfo, EventRecord, SessionState, ValueView, Variable
from . import auth
from .captured import FrozenValues
from .exception_info import exception_info_body
from .handles import Handles
from .launch_args import attach_kwargs, check_arguments, launch_kwargs
from .outline import outline_text

log = logging.getLogger("tracepilot.dap")

Send = Callable[[dict[str, Any]], None]

# DAP stopped-event reasons for the core's stop kinds.
STOP_REASONS = {
    "BREAKPOINT": "breakpoint", "STEP": "step", "EXCEPTION": "exception", "PAUSE": "pause",
    "WATCHPOINT_ACCESS": "data breakpoint", "WATCHPOINT_MODIFY": "data breakpoint",
    "METHOD_ENTRY": "function breakpoint", "METHOD_EXIT": "function breakpoint", "VM_START": "entry",
}
EXCEPTION_FILTERS = [
    {"filter": "caught", "label": "Caught Exceptions", "default": False, "supportsCondition": True,
     "conditionDescription": "exception class names, comma separated (e.g. java.io.IOException)"},
    {"filter": "uncaught", "label": "Uncaught Exceptions", "default": False, "supportsCondition": True,
     "conditionDescription": "exception class names, comma separated (e.g. java.io.IOException)"},
]
# Everything declared here works and has a test (tests/dap/test_capabilities.py checks that).
CAPABILITIES: dict[str, Any] = {
    "supportsConfigurationDoneRequest": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsFunctionBreakpoints": True,
    "supportsEvaluateForHovers": True,
    "supportsSetVariable": True,
    "supportsSetExpression": True,
    "supportsTerminateRequest": True,
    "supportTerminateDebuggee": True,
    "supportsExceptionFilterOptions": True,
    "supportsDelayedStackTraceLoading": True,
    "supportsRestartFrame": True,
    "supportsDataBreakpoints": True,
    "supportsExceptionInfoRequest": True,
    "exceptionBreakpointFilters": EXCEPTION_FILTERS,
}
# A logpoint's line is the program's output as far as people reading it are concerned (IntelliJ prints it in
# the program's console): "stdout", which VS Code and dap-mode both show by default ("console" is hidden by
# dap-mode's default dap-output-buffer-filter). Its source and line go with it, so the editor links it.
LOGPOINT_CATEGORY = "stdout"
OUTPUT_POLL_SECONDS = 0.1  # program output is captured by the core; forwarded in small batches


class RequestFailed(Exception):
    """A request the adapter itself rejects (bad arguments, wrong order)."""


def _int(args: dict[str, Any], name: str, default: int = 0) -> int:
    """An integer argument (DAP sends numbers; a string of digits is accepted), or a refusal naming it."""
    value = args.get(name)
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, int | str) or (isinstance(value, str) and not
                                                                        value.strip().lstrip("-").isdigit()):
        raise RequestFailed(f"`{name}` must be an integer, got {value!r}")
    return int(value)


class Adapter:
    """One DAP client's connection. `send` writes one message; `handle` processes one incoming message."""

    def __init__(self, debugger: Any, send: Send, *, joined: bool = False, follow_only: bool = False,
                 token: str | None = None) -> None:
        self.debugger = debugger
        self._token = token  # on a TCP port: what a client must present in launch/attach (auth.py)
        self._send = send
        self.joined = joined
        self.follow_only = follow_only
        self._seq = 0
        self.handles = Handles()
        self.frozen = FrozenValues()  # captures' values, kept across resumes (captured.py)
        self._unsubscribe: Callable[[], None] | None = None
        self._launched = False
        self._pid: int | None = None
        self._attached = False  # attach (not --join) to a JVM: a JVM waiting at its start runs after configuration
        self._stop_on_entry = False
        self._configured = False
        self._source_breakpoints: dict[str, list[str]] = {}  # source path -> core breakpoint ids
        self._function_breakpoints: list[str] = []
        self._exception_breakpoints: list[str] = []
        self._data_breakpoints: list[str] = []
        self._sources = Handles()  # sourceReference <-> class name (kept across stops: editors cache them)
        self._bp_numbers = Handles()  # core breakpoint id <-> the number DAP shows
        self._told_bp_numbers: set[int] = set()  # the numbers this client was given (hitBreakpointIds names no other)
        self._thread_stops: dict[int, dict[str, Any]] = {}  # thread -> its stop as last sent (exceptionInfo reads it)
        self._last_stop_thread: int | None = None
        self._hidden_threads: set[int] = set()  # threads `threads` never lists: no thread events for them
        self._output_task: asyncio.Task[None] | None = None
        self._output_since = {"stdout": 0, "stderr": 0}
        self._terminated_sent = False
        self.finished = asyncio.Event()  # set after disconnect: the server stops reading

    # -- sending ---------------------------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"seq": self._next_seq(), "type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self._send(message)

    def _respond(self, request: dict[str, Any], body: dict[str, Any] | None = None, error: str | None = None) -> None:
        message: dict[str, Any] = {"seq": self._next_seq(), "type": "response", "request_seq": request.get("seq", 0),
                                   "command": request.get("command", ""), "success": error is None}
        if error is not None:
            message["message"] = error
            message["body"] = {"error": {"id": 1, "format": error.replace("{", "(").replace("}", ")"),
                                         "showUser": True}}
        elif body is not None:
            message["body"] = body
        self._send(message)

    # -- dispatch --------------------------------------------------------------------------------------

    async def handle(self, message: dict[str, Any]) -> None:
        if message.get("type") != "request":
            return
        command = str(message.get("command", ""))
        arguments = message.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            self._respond(message, error=f"the arguments of '{command}' must be a JSON object, got {arguments!r:.60}")
            return
        if self._token is not None:
            refused = auth.refusal(command, arguments, self._token)
            if refused is not None:
                log.warning("refused %s from an unauthenticated DAP client", command)
                self._respond(message, error=refused)
                if command in auth.PRESENTED_IN:
                    self.finished.set()  # a wrong token: this connection is done
                return
            if command in auth.PRESENTED_IN:
                self._token = None  # presented: this connection is its owner's
            elif command == "disconnect":
                self._respond(message)
                self.finished.set()
                return
        handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = getattr(
            self, f"on_{command}", None)
        if handler is None:
            self._respond(message, error=f"tracepilot does not support the '{command}' request")
            return
        try:
            body = await handler(arguments)
        except (DebuggerError, RequestFailed) as exc:
            self._respond(message, error=str(exc))
            return
        except (TypeError, ValueError, AttributeError) as exc:  # a field of the wrong type (a string for a number)
            log.warning("request %s: bad arguments", command, exc_info=True)  # a bug would show here too
            self._respond(message, error=f"{command}: an argument has the wrong type ({exc}); "
                                         "check the request against the DAP specification")
            return
        except Exception as exc:  # a bug here must not end the editor's session
            log.exception("request %s failed", command)
            self._respond(message, error=f"internal error in {command}: {exc!r}")
            return
        self._respond(message, body)
        after = getattr(self, f"after_{command}", None)
        if after is not None:
            await after(arguments)

    # -- session -------------------------------------------------------------------------------------

    async def on_initialize(self, args: dict[str, Any]) -> dict[str, Any]:
        self._lines_start_at1 = args.get("linesStartAt1", True) is not False
        self._unsubscribe = self.debugger.history.subscribe(self._on_record)
        return dict(CAPABILITIES)

    async def on_launch(self, args: dict[str, Any]) -> None:
        if self.joined:
            raise RequestFailed("this adapter joined a live session: use an \"attach\" configuration, not launch")
        check_arguments(args, "launch")
        kwargs = launch_kwargs(args)
        self._stop_on_entry = bool(args.get("stopOnEntry"))
        await self.debugger.launch(**kwargs, actor=Actor.PERSON)
        self._launched = True
        self._pid = next((r.data.get("pid") for r in reversed(self.debugger.history.since(0)) if r.kind == "launch"),
                         None)
        self._output_task = asyncio.get_running_loop().create_task(self._forward_output())
        return None

    async def after_launch(self, args: dict[str, Any]) -> None:
        if isinstance(self._pid, int):  # editors show it, and can attach other tools to it
            self.event("process", {"name": str(args.get("mainClass") or args.get("jar") or "java"),
                                   "systemProcessId": self._pid, "isLocalProcess": True, "startMethod": "launch"})
        self.event("initialized")

    async def on_attach(self, args: dict[str, Any]) -> None:
        check_arguments(args, "attach")
        if self.joined:  # the session is already live: attaching means following it (joined only now: after
            await self.debugger.connect()  # the token, on a TCP port, so nothing of it reaches a stranger)
            return None
        kwargs = attach_kwargs(args)
        sourcepath = launch_kwargs({"mainClass": "-", "sourcePaths": args.get("sourcePaths")})["sourcepath"]
        try:
            await self.debugger.attach(**kwargs, sourcepath=sourcepath, actor=Actor.PERSON)
        except DebuggerError as exc:
            raise RequestFailed(_attach_failure(exc, kwargs["address"])) from None
        self._attached = True
        return None

    async def after_attach(self, args: dict[str, Any]) -> None:
        self.event("initialized")
        if self.joined:
            status = await self.debugger.status()
            if status.state is SessionState.STOPPED and status.stop is not None:
                self._send_stopped(status.stop.to_dict())

    async def on_configurationDone(self, args: dict[str, Any]) -> None:  # noqa: N802 (DAP's name)
        self._configured = True
        return None

    async def after_configurationDone(self, args: dict[str, Any]) -> None:  # noqa: N802
        if not (self._launched or self._attached):
            return
        status = await self.debugger.status()
        if status.state is not SessionState.STOPPED or status.stop is None or status.stop.kind != "VM_START":
            return
        if self._stop_on_entry:
            self._send_stopped(status.stop.to_dict())
        else:
            await self.debugger.resume(actor=Actor.PERSON)

    async def on_disconnect(self, args: dict[str, Any]) -> None:
        try:
            if self.joined:
                if args.get("terminateDebuggee"):
                    await self.debugger.detach(terminate=True, actor=Actor.PERSON)
            else:
                status = await self.debugger.status()
                terminate = args.get("terminateDebuggee", status.launched)
                if status.state is not SessionState.DISCONNECTED:
                    # terminateDebuggee false on a JVM we launched: detach and leave it running, as asked
                    await self.debugger.detach(terminate=bool(terminate), actor=Actor.PERSON,
                                               keep_running=not terminate)
        finally:
            self._stop_forwarding()
        return None

    async def after_disconnect(self, args: dict[str, Any]) -> None:
        self.finished.set()

    async def on_terminate(self, args: dict[str, Any]) -> None:
        await self.debugger.detach(terminate=True, actor=Actor.PERSON)
        return None

    async def after_terminate(self, args: dict[str, Any]) -> None:
        self._send_terminated()

    def _stop_forwarding(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._output_task is not None:
            self._output_task.cancel()

    # -- breakpoints ---------------------------------------------------------------------------------

    def _bp_number(self, bp_id: str) -> int:
        number = self._bp_numbers.get_id(bp_id)
        self._told_bp_numbers.add(number)
        return number

    def _bp_body(self, info: BreakpointInfo, line: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self._bp_number(info.id), "verified": bool(info.verified)}
        if info.locations and info.locations[0].line > 0:
            body["line"] = info.locations[0].line
        elif line is not None:
            body["line"] = line
        if info.message or not info.verified:
            body["message"] = info.message or "pending: binds when its class is loaded"
        return body

    async def _remove(self, bp_ids: list[str]) -> None:
        """DAP requests replace a whole set: the previous breakpoints of the set go first (gone ones are fine)."""
        for bp_id in bp_ids:
            with contextlib.suppress(DebuggerError):
                await self.debugger.breakpoint_remove(bp_id, actor=Actor.PERSON)

    async def on_setBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        source = args.get("source") or {}
        path = source.get("path") or source.get("name")
        if not path:
            raise RequestFailed("setBreakpoints needs source.path")
        await self._remove(self._source_breakpoints.pop(path, []))
        wanted = args.get("breakpoints")
        if wanted is None:
            wanted = [{"line": line} for line in args.get("lines") or []]
        results, ids = [], []
        for spec in wanted:
            line = _int(spec, "line")
            try:
                info = await self.debugger.breakpoint_set(
                    f"{path}:{line}", condition=spec.get("condition") or None,
                    hit_count=spec.get("hitCondition") or None, log=spec.get("logMessage") or None,
                    actor=Actor.PERSON)
            except DebuggerError as exc:
                results.append({"verified": False, "line": line, "message": str(exc)})
                continue
            ids.append(info.id)
            results.append(self._bp_body(info, line))
        self._source_breakpoints[path] = ids
        return {"breakpoints": results}

    async def on_setFunctionBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        await self._remove(self._function_breakpoints)
        self._function_breakpoints = []
        results = []
        for spec in args.get("breakpoints") or []:
            try:
                info = await self.debugger.method_break(spec.get("name", ""), condition=spec.get("condition") or None,
                                                        actor=Actor.PERSON)
            except DebuggerError as exc:
                results.append({"verified": False, "message": str(exc)})
                continue
            self._function_breakpoints.append(info.id)
            results.append(self._bp_body(info))
        return {"breakpoints": results}

    async def on_setExceptionBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        await self._remove(self._exception_breakpoints)
        self._exception_breakpoints = []
        options = [{"filterId": f} for f in args.get("filters") or []] + list(args.get("filterOptions") or [])
        results = []
        for option in options:
            kind = option.get("filterId")
            if kind not in ("caught", "uncaught"):
                results.append({"verified": False, "message": f"unknown exception filter '{kind}'"})
                continue
            # The condition names exception classes (as java-debug's), several separated by commas.
            classes = [c.strip() for c in (option.get("condition") or "").split(",") if c.strip()] or ["*"]
            for exception in classes:
                try:
                    info = await self.debugger.exception_break(exception, caught=kind == "caught",
                                                               uncaught=kind == "uncaught", actor=Actor.PERSON)
                except DebuggerError as exc:
                    results.append({"verified": False, "message": str(exc)})
                    continue
                self._exception_breakpoints.append(info.id)
                # Its id, so the stops it makes (hitBreakpointIds) name a breakpoint the client knows.
                results.append({"id": self._bp_number(info.id), "verified": True})
        return {"breakpoints": results}

    async def on_dataBreakpointInfo(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        name = str(args.get("name", ""))
        key = self.handles.lookup(args.get("variablesReference")) if args.get("variablesReference") else None
        if key is None or key[0] != "value" or name.startswith("["):
            # JDWP watches fields only: locals, array elements and expressions cannot be watched.
            return {"dataId": None, "description": f"'{name}' is not a field: only fields can be watched"}
        _, handle, thread, frame = key
        holder = await self.debugger.inspect(handle, frame, thread, 0, 1)
        field = f"{holder.value.type}.{name}"
        return {"dataId": f"{field} {handle}", "description": f"{field} of {holder.value.text}",
                "accessTypes": ["write", "read", "readWrite"], "canPersist": False}

    async def on_setDataBreakpoints(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        await self._remove(self._data_breakpoints)
        self._data_breakpoints = []
        results = []
        for spec in args.get("breakpoints") or []:
            field, _, instance = str(spec.get("dataId", "")).partition(" ")
            access = spec.get("accessType") or "write"
            try:
                info = await self.debugger.watchpoint_set(
                    field, access=access in ("read", "readWrite"), modify=access in ("write", "readWrite"),
                    instance=instance or None, condition=spec.get("condition") or None, actor=Actor.PERSON)
                if spec.get("hitCondition"):
                    info = await self.debugger.breakpoint_update(info.id, hit_count=spec["hitCondition"],
                                                                 actor=Actor.PERSON)
            except DebuggerError as exc:
                results.append({"verified": False, "message": str(exc)})
                continue
            self._data_breakpoints.append(info.id)
            results.append(self._bp_body(info))
        return {"breakpoints": results}

    # -- execution -----------------------------------------------------------------------------------

    async def on_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        await self.debugger.resume(actor=Actor.PERSON)
        return {"allThreadsContinued": True}

    async def _step(self, kind: str, args: dict[str, Any]) -> None:
        thread = args.get("threadId")
        await self.debugger.step(kind, thread=thread, timeout=0.0, actor=Actor.PERSON)

    async def on_next(self, args: dict[str, Any]) -> None:
        await self._step("over", args)

    async def on_stepIn(self, args: dict[str, Any]) -> None:  # noqa: N802
        await self._step("into", args)

    async def on_stepOut(self, args: dict[str, Any]) -> None:  # noqa: N802
        await self._step("out", args)

    async def on_pause(self, args: dict[str, Any]) -> None:
        status = await self.debugger.status()
        if status.state is SessionState.STOPPED:
            return None  # already stopped: DAP expects no error
        await self.debugger.pause(actor=Actor.PERSON)
        return None

    async def on_restartFrame(self, args: dict[str, Any]) -> None:  # noqa: N802
        thread, index = self._frame(args.get("frameId"))
        await self.debugger.pop_frames(frame=index, thread=thread, actor=Actor.PERSON)
        return None

    async def after_restartFrame(self, args: dict[str, Any]) -> None:  # noqa: N802
        thread, _index = self._frame(args.get("frameId"), missing_ok=True)
        self.handles.clear()
        self.event("stopped", {"reason": "restart", "threadId": thread, "allThreadsStopped": True})

    async def on_exceptionInfo(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        thread = _int(args, "threadId")
        stop = self._thread_stops.get(thread)
        if stop is None:
            status = await self.debugger.status()
            if status.stop is not None and status.stop.thread_id == thread:
                stop = status.stop.to_dict()
        exception = (stop or {}).get("exception")
        if not isinstance(exception, dict):
            raise RequestFailed(f"thread {thread} is not stopped at an exception")
        with contextlib.suppress(DebuggerError):
            frames = [str(f.location) for f in await self.debugger.stack(thread, 0, 50)]
            return exception_info_body(exception, frames)
        return exception_info_body(exception, [])

    # -- threads and frames --------------------------------------------------------------------------

    async def on_threads(self, args: dict[str, Any]) -> dict[str, Any]:
        status = await self.debugger.status()
        if status.state in (SessionState.DISCONNECTED, SessionState.EXITED):
            return {"threads": []}
        threads = await self.debugger.threads()
        return {"threads": [{"id": t.id, "name": t.name} for t in threads]}

    def _frame(self, frame_id: Any, missing_ok: bool = False) -> tuple[int | None, int]:
        key = self.handles.lookup(frame_id) if isinstance(frame_id, int) else None
        if key is None or key[0] != "frame":
            if missing_ok:
                return None, 0
            raise RequestFailed(f"unknown frameId {frame_id}: the program ran since; ask for the stack again")
        return key[1], key[2]

    async def on_stackTrace(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        thread = args.get("threadId")
        start = max(0, _int(args, "startFrame"))
        levels = _int(args, "levels") or 1000
        # One extra frame tells whether more exist (the core does not report the depth).
        frames = await self.debugger.stack(thread, start, levels + 1)
        more = len(frames) > levels
        frames = frames[:levels]
        out = []
        for frame in frames:
            loc = frame.location
            simple = loc.class_name.rsplit(".", 1)[-1]
            item: dict[str, Any] = {"id": self.handles.get_id(("frame", thread, frame.index)),
                                    "name": loc.function(short=True), "line": max(loc.line, 0), "column": 1}
            if loc.source_path and os.path.isfile(loc.source_path):
                item["source"] = {"name": loc.source_file or simple, "path": loc.source_path}
            elif loc.source_file:
                # No file the editor can open (a JDK or library class, or a source inside a jar): the editor
                # asks for the text by reference (the `source` request).
                item["source"] = {"name": loc.source_file, "presentationHint": "deemphasize",
                                  "sourceReference": self._sources.get_id(loc.class_name)}
            if frame.is_library or frame.is_native:
                item["presentationHint"] = "subtle"
            if loc.obsolete:  # a method version a redefinition replaced (its line and variables if known)
                item["name"] += " (old code: its class was redefined since)"
                item["presentationHint"] = "subtle"
            out.append(item)
        body: dict[str, Any] = {"stackFrames": out}
        if not more:
            body["totalFrames"] = start + len(out)
        return body

    async def on_scopes(self, args: dict[str, Any]) -> dict[str, Any]:
        thread, index = self._frame(args.get("frameId"))
        ref = self.handles.get_id(("locals", thread, index))
        return {"scopes": [{"name": "Locals", "presentationHint": "locals", "variablesReference": ref,
                            "expensive": False}]}

    async def on_source(self, args: dict[str, Any]) -> dict[str, Any]:
        reference = args.get("sourceReference") or (args.get("source") or {}).get("sourceReference")
        class_name = self._sources.lookup(reference) if isinstance(reference, int) else None
        if class_name is None:
            raise RequestFailed(f"unknown sourceReference {reference}: ask for the stack again")
        try:
            view = await self.debugger.source(class_name, context=1_000_000)
        except DebuggerError:
            view = None
        if view is not None and view.lines:
            return {"content": "\n".join(line.text for line in view.lines) + "\n", "mimeType": "text/x-java"}
        summaries = await self.debugger.classes(class_name, members=True)
        summary = next((c for c in summaries if c.name == class_name), None)
        return {"content": outline_text(class_name, summary), "mimeType": "text/x-java"}

    # -- values --------------------------------------------------------------------------------------

    def _value_fields(self, view: ValueView, thread: Any, frame: int) -> dict[str, Any]:
        fields: dict[str, Any] = {"type": view.type, "variablesReference": 0}
        if view.expandable and view.handle:
            fields["variablesReference"] = self.handles.get_id(("value", view.handle, thread, frame))
            if view.kind in ("array", "collection") and view.size is not None:
                fields["indexedVariables"] = view.size
            elif view.kind == "map" and view.size is not None:
                fields["namedVariables"] = view.size
        return fields

    def _variable(self, var: Variable, thread: Any, frame: int, evaluate_name: str | None) -> dict[str, Any]:
        item = {"name": var.name, "value": var.value.text, **self._value_fields(var.value, thread, frame)}
        if evaluate_name:
            item["evaluateName"] = evaluate_name
        return item

    async def on_variables(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.frozen.owns(args.get("variablesReference")):  # a capture's values: as they were at the hit
            return {"variables": self.frozen.variables(args["variablesReference"])}
        key = self.handles.lookup(args.get("variablesReference"))
        if key is None:
            raise RequestFailed("unknown variablesReference: the program ran since; expand the value again")
        start = max(0, _int(args, "start"))
        count = _int(args, "count")
        if key[0] == "locals":
            _, thread, frame = key
            variables = await self.debugger.locals(frame, thread)
            if count:
                variables = variables[start:start + count]
            return {"variables": [self._variable(v, thread, frame, v.name) for v in variables]}
        _, handle, thread, frame = key
        inspection = await self.debugger.inspect(handle, frame, thread, start, count or 1000)
        out = []
        for child in inspection.children:
            name = child.name
            path = f"{handle}{name}" if name.startswith("[") else f"{handle}.{name}"
            out.append(self._variable(child, thread, frame, path))
        for entry in inspection.entries:
            out.append({"name": entry.key.text, "value": entry.value.text,
                        **self._value_fields(entry.value, thread, frame)})
        if inspection.string is not None:
            out.append({"name": "value", "value": inspection.string, "variablesReference": 0})
        return {"variables": out}

    async def on_evaluate(self, args: dict[str, Any]) -> dict[str, Any]:
        expression = str(args.get("expression", "")).strip()
        if not expression:
            raise RequestFailed("nothing to evaluate")
        thread, frame = (self._frame(args["frameId"]) if args.get("frameId") is not None else (None, 0))
        view = await self.debugger.evaluate(expression, frame=frame, thread=thread, actor=Actor.PERSON)
        fields = self._value_fields(view, thread, frame)
        return {"result": view.text, **fields}

    async def on_setVariable(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        if not args.get("variablesReference"):
            raise RequestFailed(
                "setVariable needs the variablesReference of the scope or the expanded value that holds the "
                f"variable, got {args.get('variablesReference')!r} (0 marks a value with no children); "
                "use setExpression to set a value by its expression")
        key = self.handles.lookup(args.get("variablesReference"))
        if key is None:
            raise RequestFailed("unknown variablesReference: the program ran since; expand the value again")
        name = str(args.get("name", ""))
        if key[0] == "locals":
            _, thread, frame = key
            target = name
        else:
            _, handle, thread, frame = key
            target = f"{handle}{name}" if name.startswith("[") else f"{handle}.{name}"
        view = await self.debugger.set_value(target, str(args.get("value", "")), frame=frame, thread=thread,
                                             actor=Actor.PERSON)
        return {"value": view.text, **self._value_fields(view, thread, frame)}

    async def on_setExpression(self, args: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        thread, frame = (self._frame(args["frameId"]) if args.get("frameId") is not None else (None, 0))
        view = await self.debugger.set_value(str(args.get("expression", "")), str(args.get("value", "")),
                                             frame=frame, thread=thread, actor=Actor.PERSON)
        return {"value": view.text, **self._value_fields(view, thread, frame)}

    # -- events from the core ------------------------------------------------------------------------

    def _on_record(self, record: EventRecord) -> None:
        kind = record.kind
        if kind == "stop":
            stop = record.data.get("stop") or {}
            if stop.get("kind") == "VM_START" and not self.joined:
                return  # the launch's own suspension: configurationDone decides (stopOnEntry)
            self.handles.clear()
            self._send_stopped(stop)
        elif kind == "stop_queued":
            self._send_stopped(record.data.get("stop") or {}, queued=True)
        elif kind in ("resume", "step"):
            self.handles.clear()
            self._continued(kind, record.data)
        elif kind in ("thread_start", "thread_death") and isinstance(record.data.get("thread"), int):
            self._thread_event(kind, record.data)
        elif kind == "log":
            self.event("output", self._log_output(record))
        elif kind == "capture":
            asyncio.get_running_loop().create_task(self._announce_capture(record))
        elif kind == "breakpoint_verified":
            asyncio.get_running_loop().create_task(self._announce_breakpoint(record.data.get("breakpoint")))
        elif kind == "vm_death":
            asyncio.get_running_loop().create_task(self._announce_exit())
        elif kind == "session_ended":
            asyncio.get_running_loop().create_task(self._announce_exit(session_ended=True))

    def _continued(self, kind: str, data: dict[str, Any]) -> None:
        """`continued` with the thread that runs on: the one resumed or stepped, or (all resumed) the thread of
        the last stop. Nothing when the client was never told of a stop (the run after configurationDone)."""
        thread = data.get("thread")
        if isinstance(thread, int):  # one thread resumed, or stepped (a step releases all when its stop held all)
            all_threads = bool(data.get("all_threads")) if kind == "step" else False
        else:
            thread, all_threads = self._last_stop_thread, True
        if all_threads:
            self._thread_stops.clear()
        elif isinstance(thread, int):
            self._thread_stops.pop(thread, None)
        if isinstance(thread, int):
            self.event("continued", {"threadId": thread, "allThreadsContinued": all_threads})

    def _thread_event(self, kind: str, data: dict[str, Any]) -> None:
        """Thread events for the threads `threads` lists (not the JVM's own: Common-Cleaner, Attach Listener...)."""
        thread = data["thread"]
        if data.get("system"):
            self._hidden_threads.add(thread)
        if thread in self._hidden_threads:
            if kind == "thread_death":
                self._hidden_threads.discard(thread)
            return
        if kind == "thread_death":
            self._thread_stops.pop(thread, None)
        self.event("thread", {"reason": "started" if kind == "thread_start" else "exited", "threadId": thread})

    def _log_output(self, record: EventRecord) -> dict[str, Any]:
        body: dict[str, Any] = {"category": LOGPOINT_CATEGORY, "output": record.text + "\n"}
        # The file is the one this client set the logpoint in; the line is where it fired.
        bp_id = record.data.get("breakpoint")
        path = next((p for p, ids in self._source_breakpoints.items() if bp_id in ids), None)
        location = record.data.get("location")
        line = location.get("line") if isinstance(location, dict) else None
        if path is not None:
            body["source"] = {"name": os.path.basename(path), "path": path}
            if isinstance(line, int) and line > 0:
                body["line"] = line
        return body

    async def _announce_capture(self, record: EventRecord) -> None:
        """A capture point's capture: a line in the console that expands into its frames and values."""
        seq = record.data.get("capture")
        found = await self.debugger.captures(since=seq - 1, limit=1) if isinstance(seq, int) else []
        body: dict[str, Any] = {"category": "console", "output": record.text + "\n"}
        if found:
            body["variablesReference"] = self.frozen.capture(found[0])
        self.event("output", body)

    def _send_stopped(self, stop: dict[str, Any], queued: bool = False) -> None:
        kind = str(stop.get("kind", ""))
        thread = stop.get("thread_id")
        if isinstance(thread, int) and thread:
            self._thread_stops[thread] = stop
            if not queued:
                self._last_stop_thread = thread
        # A suspend-thread stop leaves the other threads running: the editor must not show them all stopped.
        body: dict[str, Any] = {"reason": STOP_REASONS.get(kind, "pause"),
                                "allThreadsStopped": bool(stop.get("all_threads", True))}
        if stop.get("thread_id"):
            body["threadId"] = stop["thread_id"]
        if queued:
            body["preserveFocusHint"] = True
        if stop.get("breakpoint_id"):
            # Only breakpoints this client set (another front end's, in a shared session, mean nothing to it).
            ids = [stop["breakpoint_id"], *(stop.get("also") or [])]
            known = [n for n in (self._bp_numbers.get_id(i) for i in ids) if n in self._told_bp_numbers]
            if known:
                body["hitBreakpointIds"] = known
        exception = stop.get("exception")
        if exception:
            body["description"] = f"{exception.get('class_name')}" + (
                f": {exception['message']}" if exception.get("message") else "")
            body["text"] = exception.get("class_name")
        elif stop.get("message"):
            body["description"] = stop["message"]
        self.event("stopped", body)

    async def _announce_breakpoint(self, bp_id: Any) -> None:
        if not bp_id:
            return
        with contextlib.suppress(DebuggerError):
            for info in await self.debugger.breakpoint_list():
                if info.id == bp_id:
                    self.event("breakpoint", {"reason": "changed", "breakpoint": self._bp_body(info)})

    async def _announce_exit(self, session_ended: bool = False) -> None:
        if not session_ended:
            try:
                status = await self.debugger.status()
            except DebuggerError:
                status = None
            if status is not None and status.state is not SessionState.EXITED:
                return  # "the VM is terminating": the end itself follows (with the exit code)
            await self._drain_output()
            if status is not None and status.exit_code is not None:
                self.event("exited", {"exitCode": status.exit_code})
        self._send_terminated()

    def _send_terminated(self) -> None:
        if not self._terminated_sent:
            self._terminated_sent = True
            self.event("terminated")

    # -- program output ------------------------------------------------------------------------------

    async def _forward_output(self) -> None:
        while True:
            await self._drain_output()
            await asyncio.sleep(OUTPUT_POLL_SECONDS)

    async def _drain_output(self) -> None:
        if not self._launched:
            return
        for stream, since in list(self._output_since.items()):
            try:
                chunks = await self.debugger.output(stream, since)
            except DebuggerError:
                return
            for chunk in chunks:
                self._output_since[stream] = max(since, chunk.end)
                if chunk.text:
                    self.event("output", {"category": stream, "output": chunk.text})

    async def close(self) -> None:
        self._stop_forwarding()



def _attach_failure(exc: DebuggerError, address: str) -> str:
    """A failed attach in an editor's words: what to put in the attach configuration, no MCP tool names."""
    return (f"{exc.message}. Start the JVM with -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=*:PORT "
            f"and set \"hostName\" and \"port\" of the attach configuration to it (now {address}); `jps -lv` "
            "lists the local JVMs with their -agentlib options")
