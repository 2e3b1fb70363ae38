"""The shared model: every result the core returns is one of these dataclasses.

Front ends (TUI, REPL, MCP, watch) render them; `to_dict()` gives the structured form for MCP and the
share protocol.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .frame_names import function_name
from .plain import to_dict


class SessionState(StrEnum):
    DISCONNECTED = "DISCONNECTED"
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    EXITED = "EXITED"


class StopKind(StrEnum):
    BREAKPOINT = "BREAKPOINT"
    STEP = "STEP"
    EXCEPTION = "EXCEPTION"
    WATCHPOINT_ACCESS = "WATCHPOINT_ACCESS"
    WATCHPOINT_MODIFY = "WATCHPOINT_MODIFY"
    METHOD_ENTRY = "METHOD_ENTRY"
    METHOD_EXIT = "METHOD_EXIT"
    VM_START = "VM_START"
    PAUSE = "PAUSE"
    VM_DEATH = "VM_DEATH"


class Actor(StrEnum):
    """Who caused an event: an agent (MCP), a person (TUI/REPL/watch) or the target program itself."""

    AGENT = "agent"
    PERSON = "person"
    TARGET = "target"


OMIT_NONE = {"omit_none": True}  # a field only several targets fill in (core/targets.py): left out while None


class Model:
    def to_dict(self) -> dict[str, Any]:
        return to_dict(self)


class CutList(list):
    """A list answer cut short: `total` items matched, the list holds the first ones. Renderings say how
    many more there are and how to get them; the structured form stays a plain list."""

    def __init__(self, items: Any, total: int) -> None:
        super().__init__(items)
        self.total = total

    @property
    def more(self) -> int:
        return self.total - len(self)


OBSOLETE_NOTE = "runs the old code: its class was redefined since"


@dataclass
class CodeLocation(Model):
    """A place in the program as people read it."""

    class_name: str
    method: str
    line: int  # -1 when the class has no line information
    source_file: str | None = None  # e.g. "Pricing.java" (from the class file)
    source_path: str | None = None  # resolved on the source path, if found
    method_signature: str | None = None
    code_index: int = 0
    obsolete: bool = False  # the frame runs code its class had before a redefinition
    lambda_of: str | None = None  # a JDK-made lambda class's frame: the method whose lambda it runs (from the stack)

    def __str__(self) -> str:
        where = f"{self.source_file}:{self.line}" if self.source_file and self.line >= 0 else (
            f"line {self.line}" if self.line >= 0 else "no line info")
        if self.obsolete:
            where = f"{where}; {OBSOLETE_NOTE}" if self.line >= 0 else f"{OBSOLETE_NOTE}; no line or locals known"
        name = self.function()
        return f"{name} ({where})" if name.startswith("lambda ") else f"{name}({where})"

    def function(self, short: bool = False) -> str:
        """The method as people name it, lambdas by the method that wrote them (see frame_names.py)."""
        return function_name(self.class_name, self.method, self.lambda_of, short)


@dataclass
class ValueView(Model):
    """A value summarised for reading. Objects carry a stable handle (`@12`) for inspect/expansion."""

    type: str  # Java type name: "int", "java.lang.String", "com.acme.Order", "int[]"
    text: str  # the summary: `42`, `"abc"`, `Order{id=7, total=1200}`, `ArrayList(size=3) [1, 2, 3]`
    kind: str = "primitive"  # primitive | null | string | array | object | collection | map | enum | boxed | void
    handle: str | None = None  # "@12" for objects
    size: int | None = None  # array length, collection size, string length
    expandable: bool = False

    def __str__(self) -> str:
        return self.text


@dataclass
class Variable(Model):
    name: str
    value: ValueView
    kind: str = "local"  # local | argument | this | field | static | element | entry | watch | exception
    changed: bool = False  # changed since the last stop in the same frame


@dataclass
class ExceptionCause(Model):  # one link of a cause chain: what Java prints after "Caused by:"
    class_name: str
    message: str | None
    top_frame: str | None  # "com.acme.Shop.city(Shop.java:42)", as a Java stack trace prints it


@dataclass
class ExceptionInfo(Model):
    class_name: str
    message: str | None  # getMessage(): the JDK's helpful NullPointerException text too
    handle: str | None
    thrown_at: CodeLocation | None
    catch_location: CodeLocation | None  # None = uncaught
    caught: bool
    causes: list[ExceptionCause] = field(default_factory=list)  # getCause(), getCause().getCause(), ...


@dataclass
class StopReason(Model):
    kind: StopKind
    thread_id: int | None = None
    thread_name: str | None = None
    location: CodeLocation | None = None
    breakpoint_id: str | None = None
    hit_count: int | None = None
    exception: ExceptionInfo | None = None
    field: str | None = None  # "com.acme.Order.total"
    old_value: ValueView | None = None
    new_value: ValueView | None = None
    return_value: ValueView | None = None
    returned_from: str | None = None  # after a step: the method whose return_value this is ("discount")
    run_to: str | None = None  # run_to's target when this stop is where it ran to
    object: ValueView | None = None  # watchpoint instance
    message: str | None = None  # e.g. why a condition error stopped the thread
    also: list[str] = dataclasses.field(default_factory=list)  # other breakpoint ids hit at the same place
    all_threads: bool = True  # the stop suspended every thread (False: only its own, suspend thread)
    time: float = dataclasses.field(default_factory=time.time)  # (`field` is shadowed by the attribute above)
    target: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)  # its JVM, when there are several

    def headline(self) -> str:
        """One line: 'STOPPED at com.acme.Foo.bar(Foo.java:7) — breakpoint bp-1 (hit 2), thread main'."""
        named = f" [{self.target}]" if self.target else ""
        kind = self.kind
        if kind is StopKind.VM_DEATH:
            return f"EXITED{named} — the VM terminated"
        where = f" at {self.location}" if self.location else ""
        # (only the kind's own text is made: every stop's record is headed with this)
        if kind is StopKind.BREAKPOINT:
            if self.breakpoint_id is None and self.run_to:
                why = f"run to {self.run_to}"
            else:
                why = f"breakpoint {self.breakpoint_id}" + (f" (hit {self.hit_count})" if self.hit_count else "")
                if self.run_to:
                    why += f"; run to {self.run_to} reached"
        elif kind is StopKind.STEP:
            why = "step" + (f"; {self.returned()}" if self.returned_from else "")
        elif kind is StopKind.EXCEPTION:
            exception = self.exception
            why = "exception " + (exception.class_name + (f": {exception.message}" if exception.message else "")
                                  if exception else "")
            if self.breakpoint_id:
                why += f" ({self.breakpoint_id})"
        elif kind is StopKind.WATCHPOINT_ACCESS or kind is StopKind.WATCHPOINT_MODIFY:
            why = f"read of {self.field}" if kind is StopKind.WATCHPOINT_ACCESS else (
                f"write of {self.field}" + (f" ({self.old_value} -> {self.new_value})" if self.new_value is not None else ""))
            if self.breakpoint_id:
                why += f" [{self.breakpoint_id}]"
        elif kind is StopKind.METHOD_ENTRY:
            why = f"method entry ({self.breakpoint_id})"
        elif kind is StopKind.METHOD_EXIT:
            why = f"method exit ({self.breakpoint_id})" + (f", returning {self.return_value}" if self.return_value else "")
        elif kind is StopKind.VM_START:
            why = "VM start (nothing has run yet)"
        elif kind is StopKind.PAUSE:
            why = "paused"
        else:
            why = kind.value
        thread = f", thread {self.thread_name}" if self.thread_name else ""
        extra = f" ({self.message})" if self.message else ""
        return f"STOPPED{named}{where} — {why}{thread}{extra}"

    def returned(self) -> str:
        """'discount() returned 659' after a step that left a method (or over a call)."""
        value = self.return_value.text if self.return_value is not None else "?"
        return f"{self.returned_from}() returned {value}"


@dataclass
class BreakpointInfo(Model):
    id: str
    kind: str  # line | method_entry | method_exit | exception | watchpoint
    spec: str  # what the user asked for: "com.acme.Foo:42", "java.lang.NullPointerException", ...
    enabled: bool = True
    verified: bool = False  # bound to at least one code location / class in the VM
    locations: list[CodeLocation] = field(default_factory=list)
    hits: int = 0
    condition: str | None = None
    hit_count: str | None = None  # "1000" (the 1000th), "%10" (every 10th), ">=5"
    log: str | None = None
    thread: str | None = None
    temporary: bool = False
    suspend: str = "all"
    after: str | None = None  # chained: armed only after this breakpoint fired
    armed: bool = True
    message: str | None = None  # e.g. "line 12 has no code; moved to 13"
    sampled: int | None = None  # a throttled logpoint: the JVM reports 1 hit in this many (in-JVM: the history
    # records about 1 line in this many; the JVM logs and counts them all)
    hits_estimated: bool = False  # hits were extrapolated from sampled events (a throttled round trip)
    mode: str | None = None  # conditions/logpoints: "in-JVM" or "round trip (why)" (core/instrument)
    log_values: str | None = None  # how a template's {parts} read: the program's toString, or the field view
    capture: Any = None  # a capture point: its settings and progress (core/capture/model.py CaptureState)
    # exception breakpoints
    caught: bool | None = None
    uncaught: bool | None = None
    # watchpoints
    access: bool | None = None
    modify: bool | None = None
    instance: str | None = None
    # several targets: where it is bound, target name -> "verified" / "pending" (core/targets.py)
    bound: dict[str, str] | None = field(default=None, metadata=OMIT_NONE)

    def describe(self) -> str:
        state = "enabled" if self.enabled else "disabled"
        done = self.capture is not None and self.capture.done  # (its requests or probe are gone: neither applies)
        if not done:
            state += ", verified" if self.verified else ", pending"
        if not self.armed:
            state += f", waits for {self.after}"
        opts = []
        if self.kind == "exception" and self.caught != self.uncaught:
            opts.append("uncaught only" if self.uncaught else "caught only")
        if self.condition:
            opts.append(f"if {self.condition}")
        if self.hit_count:
            opts.append(f"hit count {self.hit_count}")
        if self.log:
            opts.append(f'log "{self.log}"')
        if self.thread:
            opts.append(f"thread {self.thread}")
        if self.temporary:
            opts.append("temporary")
        if self.sampled and self.mode == "in-JVM":
            opts.append(f"throttled: the history records about 1 line in {self.sampled}")
        elif self.sampled:
            opts.append(f"throttled: {'logs' if self.log else 'evaluates'} 1 hit in {self.sampled}")
        if self.capture is not None:
            opts.append(self.capture.describe())
        if self.mode and not done:
            opts.append(self.mode)
        where = ", ".join(str(loc) for loc in self.locations[:2])
        if len(self.locations) > 2:
            where += f" +{len(self.locations) - 2} more"
        text = f"{self.id} {self.kind} {self.spec} [{state}] hits={self.hits}"
        if self.hits_estimated:
            text += " (an estimate: counted from sampled hits)"
        if opts:
            text += " " + " ".join(opts)
        if where:
            text += f" -> {where}"
        if self.message:
            text += f" ({self.message})"
        if self.bound:
            text += " in " + ", ".join(f"{name} ({state})" for name, state in self.bound.items())
        return text


@dataclass
class EventRecord(Model):
    seq: int
    time: float
    kind: str  # stop, resume, step, log, breakpoint_set, breakpoint_removed, thread_start, thread_death, class_prepare, exception, vm_start, vm_death, output, suppressed, error...
    actor: Actor
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class VmInfo(Model):
    name: str
    version: str
    description: str
    jdwp_version: str
    capabilities: dict[str, bool]
    address: str
    pid: int | None = None  # of a launched target


@dataclass
class SuspendedThread(Model):
    """One thread the debugger holds (or that runs a call for it), and why."""

    id: int
    name: str | None
    state: str  # stopped | paused | held | inside a call
    why: str  # "breakpoint bp-1 (hit 2)", "paused", "held: ...", "inside a call to Ticker.spin() ..."
    location: CodeLocation | None = None
    current: bool = False  # the selected stop
    delivered: bool = True  # already returned to a waiting call


@dataclass
class Status(Model):
    state: SessionState
    target: str | None  # "localhost:5005"
    vm: VmInfo | None
    stop: StopReason | None
    breakpoints: int
    launched: bool = False
    exit_code: int | None = None
    pending_stops: int = 0  # stops of other threads not delivered to a waiting call yet
    last_error: str | None = None
    last_event_seq: int = 0
    suspended: list[SuspendedThread] = field(default_factory=list)  # every thread held, with its reason
    reconnected: str | None = None  # "reconnected to host:port" when this call reconnected after a VM death
    note: str | None = None  # what this call did that the state does not say ("the JVM has exited")
    targets: list[Any] | None = field(default=None, metadata=OMIT_NONE)  # several targets: each (TargetInfo)

    def headline(self) -> str:
        if self.state is SessionState.STOPPED and self.stop:
            return self.stop.headline()
        if self.state is SessionState.RUNNING:
            return f"RUNNING {self.target}"
        if self.state is SessionState.EXITED:
            code = f" (exit code {self.exit_code})" if self.exit_code is not None else ""
            return f"EXITED {self.target or ''}{code}".rstrip()
        return "DISCONNECTED" + (f" (last error: {self.last_error})" if self.last_error else "")


@dataclass
class WaitResult(Model):
    """What a waiting call (resume, step, run_to, wait_for_stop) returns."""

    stopped: bool
    state: SessionState
    stop: StopReason | None
    waited_ms: int
    message: str = ""
    pending: int = 0  # other threads' stops still waiting to be delivered (the next wait returns one)
    reconnected: str | None = None  # "reconnected to host:port" when this call reconnected after a VM death
    note: str | None = None  # what this call did that the state does not say ("the JVM has exited")

    def headline(self) -> str:
        if self.stopped and self.stop:
            return self.stop.headline()
        return self.message or self.state.value


@dataclass
class ThreadInfo(Model):
    id: int
    name: str
    group: str | None
    state: str  # running | sleeping | waiting | blocked | zombie | not started
    suspended: bool
    is_virtual: bool = False
    is_system: bool = False
    location: CodeLocation | None = None
    owned_monitors: list[ValueView] = field(default_factory=list)
    waiting_for: ValueView | None = None
    current: bool = False  # the thread of the current stop
    why: str | None = None  # why the debugger holds it: its stop, "paused", "held ...", "inside a call ..."
    description: str = ""  # the state in words: "suspended at a breakpoint (bp-1, hit 3)", "held by main's stop …"
    waiting: bool = False  # its stop has not been answered yet: the next resume, step or wait hands it out first


@dataclass
class FrameInfo(Model):
    index: int
    location: CodeLocation
    is_native: bool = False
    is_library: bool = False  # JDK / framework code, foldable
    locals: list[Variable] | None = None


@dataclass
class OutputChunk(Model):
    stream: str
    text: str
    start: int  # offset of text in the stream
    end: int  # pass as `since` to continue
    dropped: int = 0  # bytes dropped because the buffer is bounded


# -- inspection results (issue 4) -------------------------------------------------------------------


@dataclass
class MapEntry(Model):
    key: ValueView
    value: ValueView


@dataclass
class Inspection(Model):
    """One value opened up: its fields, elements or entries (paged), or a chunk of a long string."""

    target: str
    value: ValueView
    children: list[Variable] = field(default_factory=list)  # fields, array/collection elements
    entries: list[MapEntry] = field(default_factory=list)  # map entries
    start: int = 0
    total: int | None = None  # how many children/entries/characters exist
    string: str | None = None  # for strings: characters [start, start + len(string))

    @property
    def more(self) -> bool:
        shown = len(self.string) if self.string is not None else len(self.children) + len(self.entries)
        return self.total is not None and self.start + shown < self.total


@dataclass
class SourceLine(Model):
    number: int
    text: str
    current: bool = False
    breakpoints: list[str] = field(default_factory=list)  # breakpoint ids on this line


@dataclass
class SourceView(Model):
    """Lines of a source file around a location, with breakpoint and current-line markers."""

    class_name: str | None
    path: str | None
    line: int | None  # the line asked for (or the current line)
    lines: list[SourceLine] = field(default_factory=list)
    message: str | None = None  # e.g. "source not found on the source path"

    def render(self) -> str:
        if not self.lines:
            return self.message or "no source"
        width = len(str(self.lines[-1].number))
        out = []
        for ln in self.lines:
            mark = ("B" if ln.breakpoints else " ") + ("=>" if ln.current else "  ")
            out.append(f"{mark} {ln.number:>{width}}  {ln.text}")
        return "\n".join(out)


@dataclass
class WatchSample(Model):
    text: str
    time: float
    stop_seq: int  # history sequence number of the stop (0 when evaluated outside a stop)
    error: bool = False


@dataclass
class WatchInfo(Model):
    id: str
    expression: str
    breakpoint: str | None = None  # evaluate only at this breakpoint's stops
    value: ValueView | None = None
    error: str | None = None
    changed: bool = False  # differs from the previous evaluation
    history: list[WatchSample] = field(default_factory=list)


@dataclass
class MarkInfo(Model):
    label: str  # without the "$"
    value: ValueView
    collected: bool = False


@dataclass
class MethodStats(Model):
    method: str  # "com.acme.Foo.bar(int)"
    calls: int
    total_ms: float  # 0 when not measured (round trip): see TraceResult.timing
    mean_us: float
    own_ms: float | None = None  # total less the traced callees' time (in the JVM)
    thrown: int = 0  # calls left by an exception
    sampled: bool = False  # times measured on a sample of the calls (a tiny leaf), counts exact


@dataclass
class CallNode(Model):
    method: str
    calls: int
    total_ms: float
    children: list[CallNode] = field(default_factory=list)


@dataclass
class RecordedCall(Model):
    """One of a traced method's first calls, recorded in the JVM (core/trace/recording.py)."""

    method: str
    thread: str
    arguments: list[str] = field(default_factory=list)  # "name=value", as at the end of the trace
    returned: str | None = None  # the value returned (None: void, threw, or still running)
    ended: str = "returned"  # returned | threw | running


@dataclass
class TraceResult(Model):
    pattern: str
    calls: int  # method entries seen
    duration_ms: float
    methods: list[MethodStats] = field(default_factory=list)  # busiest first
    busiest_thread: str | None = None
    call_tree: list[CallNode] = field(default_factory=list)  # of the busiest thread
    stopped_by: str = "duration"  # duration | stop (the program stopped) | vm_death
    dropped: int = 0  # distinct methods or tree nodes not kept (memory bound)
    mode: str = "round trip"  # "in-JVM" or "round trip"
    mode_reason: str = ""  # why the round trip was used
    timing: str = ""  # what the times measure, or why there are none
    folded: str | None = None  # the folded stack file written
    note: str = ""  # e.g. the stop that ended the trace
    held_ms: float | None = field(default=None, metadata=OMIT_NONE)  # in-JVM: the program held to instrument
    first_calls: list[RecordedCall] | None = field(default=None, metadata=OMIT_NONE)  # in the JVM only
    # duration_ms is the counting window; the call also spent setup_ms before it (instrumenting, or setting
    # the requests; setup_held_ms of it with the program held) and read_ms after it (reading the probes
    # with the program held, read_held_ms; restoring the classes).
    setup_ms: float | None = field(default=None, metadata=OMIT_NONE)
    setup_held_ms: float | None = field(default=None, metadata=OMIT_NONE)
    read_ms: float | None = field(default=None, metadata=OMIT_NONE)
    read_held_ms: float | None = field(default=None, metadata=OMIT_NONE)  # of read_ms, the program held


@dataclass
class HotswapResult(Model):
    redefined: list[str] = field(default_factory=list)
    not_loaded: list[str] = field(default_factory=list)  # class files of classes the VM has not loaded
    errors: dict[str, str] = field(default_factory=dict)  # class -> why it was refused
    breakpoints_reinstalled: list[str] = field(default_factory=list)

    def headline(self) -> str:
        parts = [f"redefined {len(self.redefined)} class(es)"]
        if self.not_loaded:
            parts.append(f"{len(self.not_loaded)} not loaded (skipped)")
        if self.errors:
            parts.append("refused: " + "; ".join(f"{k}: {v}" for k, v in self.errors.items()))
        return ", ".join(parts)


@dataclass
class FrameChange(Model):
    """Result of pop_frames / force_return."""

    thread: str
    message: str
    location: CodeLocation | None = None
    value: ValueView | None = None


@dataclass
class Snapshot(Model):
    """Everything about the current stop in one answer: reason, thread, stack with top locals, watches."""

    state: SessionState
    stop: StopReason | None
    thread: ThreadInfo | None = None
    frames: list[FrameInfo] = field(default_factory=list)  # frame 0 carries its locals
    watches: list[WatchInfo] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # names of locals and watches changed since the last stop
    source: SourceView | None = None
    suspended: list[SuspendedThread] = field(default_factory=list)  # every thread the debugger holds, and why
