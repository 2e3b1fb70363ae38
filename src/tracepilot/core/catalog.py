"""The command catalog: every user action named once, and the jdb/gdb command-line parser over it.

A `Command` has a name, aliases, typed arguments, help, completion hints and a handler that calls the
`Debugger` facade; `Command.spec` is the operation it runs (tracepilot/commands), which the MCP server
offers as a tool, or says why only a person at a prompt uses it. Line interfaces (REPL, TUI command line) and the share protocol bind to it:

    catalog = default_catalog()
    result = await catalog.execute(debugger, "stop at Foo:12 if x > 3", actor, selection)
    start, words = await catalog.completions(debugger, "stop at fixtures.Pla", selection)

The current thread and frame (`thread 3`, `up`, `frame 2`) belong to a front end, not to the debugger:
each front end keeps one `Selection` and passes it to every call.

This module never imports a UI toolkit; `CommandResult.text` is plain text, `.data` the model objects.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..commands import by_command, by_tool
from ..commands.syntax import (  # noqa: F401  (importable from here too, as before)
    ARG_KINDS,
    BREAK_OPTIONS,
    Arg,
    Token,
    breakpoint_id,
    split_commands,
    thread_word,
    tokenize,
)
from ..version import package_version
from . import render as shared_render
from .errors import DebuggerError, InvalidArgument, NotFound
from .launcher import launch_options
from .model import (
    Actor,
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    FrameInfo,
    SessionState,
    Status,
    StopKind,
    StopReason,
    ThreadInfo,
    ValueView,
    Variable,
    WaitResult,
)
from .render import command_text as render
from .render import source_line

if TYPE_CHECKING:
    from ..commands import Spec
    from .debugger import Debugger

DEFAULT_WAIT = 30.0  # seconds cont/step/run-to wait for the next stop before saying "still running"


class CommandError(InvalidArgument):
    """A command line that does not parse: unknown command, missing or malformed argument."""


# --- the pieces of a command ---------------------------------------------------------------------------

Handler = Callable[..., Awaitable["CommandResult"]]
ArgParser = Callable[[str], dict[str, Any]]


@dataclass
class Command:
    name: str  # canonical, may be two words ("stop at", "info locals")
    handler: Handler
    help: str
    aliases: tuple[str, ...] = ()
    args: tuple[Arg, ...] = ()
    category: str = "misc"
    waits: bool = False  # waits for the next stop (cont, step, run-to): front ends show a spinner / allow Ctrl+C
    mutates: bool = False  # changes the target or the debugger state
    parser: ArgParser | None = None  # custom argument syntax; default: positional args from `args`
    syntax: str = ""  # usage override for custom parsers
    examples: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def spec(self) -> Spec | None:
        """The operation this command runs (tracepilot/commands): its MCP tool, or why it has none."""
        return by_command().get(self.name)

    def usage(self) -> str:
        return self.syntax or " ".join([self.name, *(a.usage() for a in self.args)])

    def describe(self) -> str:
        text = f"{self.usage()}\n    {self.help}"
        if self.aliases:
            text += f"\n    aliases: {', '.join(self.aliases)}"
        for example in self.examples:
            text += f"\n    e.g. {example}"
        return text


@dataclass
class Selection:
    """One front end's current thread and frame, plus its per-stop monitor commands (jdb `monitor`)."""

    thread: str | int | None = None  # None = the thread of the current stop
    frame: int = 0
    wait_timeout: float = DEFAULT_WAIT
    monitors: list[str] = field(default_factory=list)
    gc_pins: dict[str, str] = field(default_factory=dict)  # disablegc target -> mark label
    # Asks the person a yes/no question (gdb's "Delete all breakpoints? (y or n)"); None where nobody can
    # answer (scripts, -c, agents): commands that would ask then want an explicit -y instead.
    confirm: Callable[[str], Awaitable[bool]] | None = None

    def on_stop(self) -> None:
        """A new stop: follow its thread, back to the top frame (what jdb and gdb do)."""
        self.thread = None
        self.frame = 0


@dataclass
class CommandResult:
    ok: bool
    text: str
    data: Any = None  # the model object(s) the command produced (to_dict() for structured output)
    command: str = ""  # canonical command name
    stop: StopReason | None = None  # the stop this command reached (cont, step, run-to...)
    exit: bool = False  # the user asked to leave (exit/quit)

    def __bool__(self) -> bool:
        return self.ok


@dataclass
class Invocation:
    command: Command
    args: dict[str, Any]
    line: str


@dataclass
class Context:
    """What a handler gets: the debugger, the front end's selection, who is acting, the catalog."""

    debugger: Debugger
    selection: Selection
    actor: Actor | None
    catalog: Catalog

    @property
    def thread(self) -> str | int | None:
        return self.selection.thread

    @property
    def frame(self) -> int:
        return self.selection.frame


_TAKES_A_WORD = {"suspend", "thread"}


def _keyword_split(text: str, keywords: Iterable[str]) -> tuple[str, dict[str, str]]:
    """`Foo:12 if x > 3 hit 5` -> ("Foo:12", {"if": "x > 3", "hit": "5"}); keywords only at depth 0."""
    keys = set(keywords)
    tokens = tokenize(text)
    cuts = [(i, t) for i, t in enumerate(tokens) if t.depth == 0 and not t.quoted and t.text in keys
            and not (i > 0 and tokens[i - 1].text in _TAKES_A_WORD)]  # `suspend thread`: a value, not a keyword
    head_end = cuts[0][1].start if cuts else len(text)
    head = text[:head_end].strip()
    options: dict[str, str] = {}
    for n, (_, token) in enumerate(cuts):
        end = cuts[n + 1][1].start if n + 1 < len(cuts) else len(text)
        value = text[token.end:end].strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if token.text in options:
            raise CommandError(f"option {token.text!r} given twice")
        options[token.text] = value
    return head, options


# --- the catalog -----------------------------------------------------------------------------------------


class Catalog:
    def __init__(self) -> None:
        self.commands: list[Command] = []
        self._by_name: dict[str, Command] = {}

    # registration

    def add(self, command: Command) -> Command:
        for name in command.names:
            if name in self._by_name:
                raise ValueError(f"command name {name!r} registered twice")
            self._by_name[name] = command
        self.commands.append(command)
        return command

    def command(self, name: str, help: str, *, aliases: Sequence[str] = (), args: Sequence[Arg] = (),  # noqa: A002
                category: str = "misc", waits: bool = False, mutates: bool = False, parser: ArgParser | None = None,
                syntax: str = "", examples: Sequence[str] = ()) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.add(Command(name, handler, help, tuple(aliases), tuple(args), category, waits, mutates, parser,
                             syntax, tuple(examples)))
            return handler
        return register

    def get(self, name: str) -> Command | None:
        return self._by_name.get(name)

    def names(self) -> list[str]:
        return sorted(self._by_name)

    # parsing

    def lookup(self, line: str) -> tuple[Command, str]:
        """The command a line starts with (two-word names first) and the rest of the line."""
        stripped = line.strip()
        words = stripped.split(None, 2)
        if not words:
            raise CommandError("empty command", "type `help` for the list of commands")
        if len(words) >= 2:
            two = f"{words[0]} {words[1]}"
            if two in self._by_name:
                rest = stripped.split(None, 2)[2] if len(words) > 2 else ""
                return self._by_name[two], rest
        first = words[0]
        if first in self._by_name:
            return self._by_name[first], stripped[len(first):].strip()
        candidates = difflib.get_close_matches(first, self.names(), n=3, cutoff=0.6)
        two_word = [n for n in self.names() if " " in n and n.split()[0] == first]
        hint = ("did you mean " + " or ".join(two_word or candidates) + "?") if (two_word or candidates) else (
            "type `help` for the list of commands")
        raise CommandError(f"unknown command {stripped.split()[0]!r}", hint)

    def parse(self, line: str) -> Invocation:
        command, rest = self.lookup(line)
        args = command.parser(rest) if command.parser is not None else _parse_positional(command, rest)
        return Invocation(command, args, line.strip())

    # executing

    async def execute(self, debugger: Debugger, line: str, actor: Actor | None = None,
                      selection: Selection | None = None) -> CommandResult:
        """Parse and run one command line. Never raises for user errors: `ok=False` and a message instead."""
        selection = selection if selection is not None else Selection()
        try:
            invocation = self.parse(line)
        except DebuggerError as e:
            return CommandResult(False, str(e), command="")
        return await self.run(debugger, invocation, actor, selection)

    async def run(self, debugger: Debugger, invocation: Invocation, actor: Actor | None,
                  selection: Selection) -> CommandResult:
        command = invocation.command
        ctx = Context(debugger, selection, actor, self)
        try:
            result = await command.handler(ctx, **invocation.args)
        except DebuggerError as e:
            return CommandResult(False, str(e), command=command.name)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug must not kill the front end; say what broke
            return CommandResult(False, f"{command.name} failed: {type(e).__name__}: {e}", command=command.name)
        result.command = result.command or command.name
        if result.stop is not None:
            selection.on_stop()
        return result

    async def execute_script(self, debugger: Debugger, text: str, actor: Actor | None = None,
                             selection: Selection | None = None, *, stop_on_error: bool = False
                             ) -> list[CommandResult]:
        selection = selection if selection is not None else Selection()
        results = []
        for line in split_commands(text):
            result = await self.execute(debugger, line, actor, selection)
            results.append(result)
            if result.exit or (stop_on_error and not result.ok):
                break
        return results

    # help

    def help(self, topic: str | None = None) -> str:
        if topic:
            try:
                command, _ = self.lookup(topic)
            except CommandError as e:
                return str(e)
            return command.describe()
        by_category: dict[str, list[Command]] = {}
        for command in self.commands:
            by_category.setdefault(command.category, []).append(command)
        lines = []
        for category in CATEGORY_ORDER:
            commands = by_category.pop(category, [])
            if not commands:
                continue
            lines.append(f"{category}:")
            for c in commands:
                names = c.usage() + (f"  ({', '.join(c.aliases)})" if c.aliases else "")
                lines.append(f"  {names:<48} {c.help.splitlines()[0]}")
        lines.append("help COMMAND for details. Several commands on one line: stop at Foo:12; cont; where")
        return "\n".join(lines)

    # completion

    async def complete(self, debugger: Debugger | None, line: str, selection: Selection | None = None) -> list[str]:
        """Candidates for the word being typed at the end of `line` (each replaces line[start:], see completions)."""
        return (await self.completions(debugger, line, selection))[1]

    async def completions(self, debugger: Debugger | None, line: str,
                          selection: Selection | None = None) -> tuple[int, list[str]]:
        from .completion import complete_line  # noqa: PLC0415 (keeps this module small to read)

        return await complete_line(self, debugger, line, selection or Selection())


CATEGORY_ORDER = ["connection", "execution", "breakpoints", "stack", "data", "threads", "classes", "source",
                  "watchers", "code", "observation", "session", "misc"]


def _parse_positional(command: Command, rest: str) -> dict[str, Any]:
    tokens = tokenize(rest)
    args: dict[str, Any] = {}
    i = 0
    for spec in command.args:
        if i >= len(tokens):
            if spec.required:
                raise CommandError(f"{command.name}: missing {spec.name}", f"usage: {command.usage()}")
            continue
        if spec.rest:
            args[spec.name] = rest[tokens[i].start:].strip()
            i = len(tokens)
            continue
        text = tokens[i].text
        if spec.choices and text not in spec.choices:
            if spec.required:
                raise CommandError(f"{command.name}: {spec.name} must be one of {', '.join(spec.choices)}",
                                   f"usage: {command.usage()}")
            continue  # an optional keyword that is absent: the token belongs to the next argument
        args[spec.name] = _convert(command, spec, text)
        i += 1
    if i < len(tokens):
        raise CommandError(f"{command.name}: unexpected {rest[tokens[i].start:].strip()!r}", f"usage: {command.usage()}")
    return args


def _convert(command: Command, spec: Arg, text: str) -> Any:
    if spec.kind in ("int", "frame"):
        try:
            return int(text, 0)
        except ValueError:
            raise CommandError(f"{command.name}: {spec.name} must be an integer, not {text!r}") from None
    if spec.kind == "number":
        try:
            return float(text)
        except ValueError:
            raise CommandError(f"{command.name}: {spec.name} must be a number, not {text!r}") from None
    if spec.kind == "thread":
        return thread_word(text)
    if spec.kind == "breakpoint":
        return breakpoint_id(text)
    return text


# --- the commands ----------------------------------------------------------------------------------------

_catalog = Catalog()
cmd = _catalog.command


def default_catalog() -> Catalog:
    """The catalog with every command of tracepilot."""
    return _catalog


def ok(text: str, data: Any = None, **kw: Any) -> CommandResult:
    return CommandResult(True, text, data, **kw)


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def _waited(ctx: Context, result: WaitResult) -> CommandResult:
    text = render(result)
    returned = returned_text(result.stop) if result.stopped else None
    if returned and returned not in text:
        text += f"\n{returned}"
    return CommandResult(True, text, result, stop=result.stop if result.stopped else None)


def returned_text(stop: StopReason | None) -> str | None:
    """'discount() returned 659' when a step left a method and the JVM told its return value (IntelliJ shows
    the same after step out / step over a call); None otherwise."""
    value = getattr(stop, "return_value", None)
    method = getattr(stop, "returned_from", None)
    if stop is None or value is None or not method or stop.kind is not StopKind.STEP:
        return None
    name = method if method.endswith(")") else f"{method}()"
    return f"{name} returned {value.text}"


# connection ---------------------------------------------------------------------------------------------


@cmd("attach", "Attach to a JVM listening for a debugger (started with -agentlib:jdwp=...,server=y).",
     args=[Arg("address", "word", "host:port", required=False), Arg("timeout", "number", required=False)],
     category="connection", mutates=True, examples=("attach localhost:5005",))
async def _attach(ctx: Context, address: str = "localhost:5005", timeout: float = 10.0) -> CommandResult:
    status = await ctx.debugger.attach(address, timeout, actor=ctx.actor)
    return ok(render(status), status, stop=status.stop)


@cmd("launch", "Start a JVM under the debugger: launch [-cp PATH] MAIN [ARGS...] or launch Foo.java.",
     args=[Arg("java_args", "text", "java arguments", rest=True)], category="connection", mutates=True,
     examples=("launch -cp build/classes com.acme.Main", "launch Hello.java"))
async def _launch(ctx: Context, java_args: str) -> CommandResult:
    options = launch_options([t.text for t in tokenize(java_args)])
    status = await ctx.debugger.launch(actor=ctx.actor, **options)
    return ok(render(status), status, stop=status.stop)


@cmd("restart", "Launch the program again with the same command line; breakpoints and watchers carry over.",
     aliases=("rerun",), category="connection", mutates=True)
async def _restart(ctx: Context) -> CommandResult:
    status = await ctx.debugger.restart(actor=ctx.actor)
    ctx.selection.on_stop()
    return ok(render(status) + "\n(restarted: `cont` runs it to the first breakpoint)", status, stop=status.stop)


@cmd("detach", "Detach from the JVM (it keeps running); `detach kill` terminates it.",
     args=[Arg("how", "word", required=False, choices=("kill", "terminate"))], category="connection", mutates=True)
async def _detach(ctx: Context, how: str | None = None) -> CommandResult:
    status = await ctx.debugger.detach(terminate=how is not None, actor=ctx.actor)
    return ok(render(status), status)


@cmd("status", "Connection state, target VM and the current stop.", aliases=("info program",), category="connection")
async def _status(ctx: Context) -> CommandResult:
    status = await ctx.debugger.status()
    return ok(render(status), status)


@cmd("version", "Versions of tracepilot and of the target VM.", category="connection")
async def _version(ctx: Context) -> CommandResult:
    status = await ctx.debugger.status()
    lines = [f"tracepilot {package_version()}"]
    if status.vm:
        lines.append(f"{status.vm.name} {status.vm.version} (JDWP {status.vm.jdwp_version})")
        lines.append(status.vm.description)
    else:
        lines.append("no VM attached")
    return ok("\n".join(lines), status.vm)


@cmd("reset", by_tool()["reset"].help, category="connection", mutates=True)
async def _reset(ctx: Context) -> CommandResult:
    status = await ctx.debugger.reset(actor=ctx.actor)
    ctx.selection.on_stop()
    return ok("reset: breakpoints, watchers and history cleared\n" + render(status), status)


@cmd("diagnose", "What the debugger knows about its connection (for bug reports).", category="connection")
async def _diagnose(ctx: Context) -> CommandResult:
    info = await ctx.debugger.diagnose()
    return ok(render(info), info)


# execution ----------------------------------------------------------------------------------------------


def _timeout_arg() -> Arg:
    return Arg("timeout", "number", "seconds to wait for the next stop", required=False)


@cmd("run", "Start or continue the program (after attach the VM waits at VM start) and wait for a stop.",
     category="execution", waits=True, mutates=True)
async def _run(ctx: Context) -> CommandResult:
    return await _waited(ctx, await ctx.debugger.resume(None, ctx.selection.wait_timeout, actor=ctx.actor))


@cmd("cont", "Resume all threads and wait for the next stop (Ctrl+C stops waiting, not the program).",
     aliases=("c", "continue"), args=[_timeout_arg()], category="execution", waits=True, mutates=True)
async def _cont(ctx: Context, timeout: float | None = None) -> CommandResult:
    timeout = ctx.selection.wait_timeout if timeout is None else timeout
    return await _waited(ctx, await ctx.debugger.resume(None, timeout, actor=ctx.actor))


def _step_command(name: str, kind: str, help: str, aliases: Sequence[str] = ()) -> None:  # noqa: A002
    async def handler(ctx: Context, count: int = 1) -> CommandResult:
        result = await ctx.debugger.step(kind, ctx.thread, count, ctx.selection.wait_timeout, actor=ctx.actor)
        return await _waited(ctx, result)

    _catalog.add(Command(name, handler, help, tuple(aliases), (Arg("count", "int", "how many steps", required=False),),
                         "execution", waits=True, mutates=True))


_step_command("step", "into", "Step into: run to the next line, entering calls.", ("s", "stepinto"))
_step_command("next", "over", "Step over: run to the next line of this method.", ("n", "over"))
_step_command("step up", "out", "Step out: run until the current method returns.", ("finish", "stepout", "up-step"))
_step_command("stepi", "stepi", "Step one bytecode instruction.", ("si",))


@cmd("run-to", "Run until a location is reached (a one-shot breakpoint), then stop there.",
     aliases=("until", "advance"), args=[Arg("location", "location")], category="execution", waits=True,
     mutates=True, examples=("run-to Foo:42",))
async def _run_to(ctx: Context, location: str) -> CommandResult:
    location = await _resolve_location(ctx, location)
    return await _waited(ctx, await ctx.debugger.run_to(location, ctx.thread, ctx.selection.wait_timeout,
                                                        actor=ctx.actor))


@cmd("wait", "Wait for the next stop without resuming anything.", args=[_timeout_arg()], category="execution",
     waits=True)
async def _wait(ctx: Context, timeout: float | None = None) -> CommandResult:
    timeout = ctx.selection.wait_timeout if timeout is None else timeout
    return await _waited(ctx, await ctx.debugger.wait_for_stop(timeout))


@cmd("suspend", "Suspend all threads (or one) and make it the current stop.", aliases=("pause", "interrupt-vm"),
     args=[Arg("thread", "thread", required=False)], category="execution", mutates=True)
async def _suspend(ctx: Context, thread: str | int | None = None) -> CommandResult:
    return await _waited(ctx, await ctx.debugger.pause(thread, actor=ctx.actor))


@cmd("resume", "Resume all threads (or one) without waiting for a stop.", args=[Arg("thread", "thread", required=False)],
     category="execution", mutates=True)
async def _resume(ctx: Context, thread: str | int | None = None) -> CommandResult:
    result = await ctx.debugger.resume(thread, 0.0, actor=ctx.actor)
    return CommandResult(True, result.headline() if result.stopped else ("resumed" + (f" thread {thread}" if thread else "")),
                         result, stop=result.stop if result.stopped else None)


@cmd("interrupt", "Interrupt a thread (Thread.interrupt()): wakes it from sleep/wait with InterruptedException.",
     args=[Arg("thread", "thread", required=False)], category="threads", mutates=True)
async def _interrupt(ctx: Context, thread: str | int | None = None) -> CommandResult:
    return ok(await ctx.debugger.interrupt(thread if thread is not None else ctx.thread, actor=ctx.actor))


@cmd("timeout", "Show or set how long cont/step/run-to wait for the next stop (seconds).",
     args=[Arg("seconds", "number", required=False)], category="session")
async def _timeout(ctx: Context, seconds: float | None = None) -> CommandResult:
    if seconds is not None:
        ctx.selection.wait_timeout = seconds
    return ok(f"waiting up to {ctx.selection.wait_timeout:g}s for a stop")


# breakpoints --------------------------------------------------------------------------------------------


def _breakpoint_options(options: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key == "if":
            if not value:
                raise CommandError("`if` needs a condition", "e.g. stop at Foo:12 if x > 3")
            out["condition"] = value
        elif key in ("hit", "hits", "count"):
            if not value:
                raise CommandError("`hit` needs a count", "e.g. hit 5, hit %10, hit >=5")
            out["hit_count"] = value
        elif key == "log":
            if not value:
                raise CommandError("`log` needs a message", 'e.g. log "x={x}"')
            out["log"] = value
        elif key == "thread":
            out["thread"] = thread_word(value)
        elif key == "after":
            out["after"] = breakpoint_id(value)
        elif key in ("temporary", "temp", "once"):
            if value:
                raise CommandError(f"unexpected {value!r} after {key}")
            out["temporary"] = True
        elif key == "disabled":
            out["enabled"] = False
        elif key == "suspend":
            if value not in ("thread", "all"):
                raise CommandError("suspend must be `thread` or `all`")
            out["suspend"] = value
    return out


def parse_break(rest: str, mode: str | None = None) -> dict[str, Any]:
    """`LOCATION [if EXPR] [hit N] [log "MSG"] [thread T] [after bp-N] [once] [suspend thread]`."""
    head, options = _keyword_split(rest, BREAK_OPTIONS)
    args = _breakpoint_options(options)
    if mode == "thread":  # jdb `stop thread at ...`: suspend only the thread that hits it
        args["suspend"] = "thread"
    elif mode == "go":  # jdb `stop go at ...`: do not suspend at all, just report
        args.setdefault("log", "hit {location}")
    if not head:
        raise CommandError("missing location", "e.g. stop at com.acme.Foo:42 or stop in com.acme.Foo.bar")
    if len(head.split()) > 1 and "(" not in head:
        raise CommandError(f"unexpected {head.split(None, 1)[1]!r} after the location",
                           "options are: " + ", ".join(["if", "hit", "log", "thread", "after", "once", "suspend"]))
    args["location"] = head
    return args


def parse_stop(rest: str) -> dict[str, Any]:
    """`stop` alone lists; `stop [thread|go] at|in ...` sets (jdb)."""
    words = rest.split(None, 1)
    if not words:
        return {}
    mode = None
    if words[0] in ("thread", "go") and len(words) > 1:
        mode = words[0]
        words = words[1].split(None, 1)
    if words[0] in ("at", "in"):
        return parse_break(words[1] if len(words) > 1 else "", mode)
    return parse_break(" ".join(words), mode)


async def _resolve_location(ctx: Context, location: str) -> str:
    """gdb's `b 42`: a bare line number means that line of the class of the current frame."""
    if location.isdigit():
        frame = await _current_location(ctx)
        if frame is None:
            raise CommandError(f"`{location}` needs a class", "no current frame; use Class:LINE")
        return f"{frame.class_name.split('$', 1)[0]}:{location}"
    return location


async def _current_location(ctx: Context) -> CodeLocation | None:
    try:
        frames = await ctx.debugger.stack(ctx.thread, ctx.frame, 1)
    except DebuggerError:
        return None
    return frames[0].location if frames else None


async def _set_breakpoint(ctx: Context, location: str | None = None, **options: Any) -> CommandResult:
    if location is None:
        return await _list_breakpoints(ctx)
    location = await _resolve_location(ctx, location)
    info = await ctx.debugger.breakpoint_set(location, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


cmd("stop", "List breakpoints, or set one: stop at CLASS:LINE / stop in CLASS.METHOD, with options.",
    category="breakpoints", mutates=True, parser=parse_stop,
    syntax='stop [at|in] LOCATION [if EXPR] [hit N|%N|>=N] [log "MSG {expr}"] [thread T] [after bp-N] [once]',
    examples=("stop at com.acme.Foo:42 if total > 100", "stop in Foo.bar", 'stop at Foo:12 log "x={x}"'),
    )(_set_breakpoint)
_catalog.add(Command("stop at", _set_breakpoint, "Set a line breakpoint (same options as `stop`).", ("break", "b"),
                     (Arg("location", "location"),), "breakpoints", mutates=True, parser=parse_break,
                     syntax='stop at LOCATION [if EXPR] [hit N] [log "MSG"] [thread T] [after bp-N] [once]',
                     examples=("b Foo:12", "b 42", "stop at Foo.java:12 hit %10")))
_catalog.add(Command("stop in", _set_breakpoint, "Break at the first line of a method.", (),
                     (Arg("location", "method"),), "breakpoints", mutates=True, parser=parse_break,
                     syntax="stop in CLASS.METHOD[(TYPES)] [if EXPR] [hit N] [log \"MSG\"]",
                     examples=("stop in com.acme.Foo.bar(int,String)",)))


@cmd("tbreak", "Set a one-shot breakpoint (removed after its first hit).", args=[Arg("location", "location")],
     category="breakpoints", mutates=True, parser=parse_break, syntax="tbreak LOCATION [if EXPR]")
async def _tbreak(ctx: Context, location: str, **options: Any) -> CommandResult:
    options["temporary"] = True
    return await _set_breakpoint(ctx, location, **options)


def parse_logpoint(rest: str) -> dict[str, Any]:
    tokens = tokenize(rest)
    if len(tokens) < 2:
        raise CommandError("usage: log LOCATION \"MESSAGE {expr}\" [if EXPR]")
    location = tokens[0].text
    tail = rest[tokens[0].end:].strip()
    message, options = _keyword_split(tail, ("if", "hit", "thread", "after"))
    if len(message) >= 2 and message[0] == message[-1] and message[0] in "\"'":
        message = message[1:-1]
    args = _breakpoint_options(options)
    args.update(location=location, log=message)
    return args


@cmd("logpoint", "Log a message when a line runs, without stopping ({expr} parts are evaluated).",
     aliases=("log", "dprintf"), category="breakpoints", mutates=True, parser=parse_logpoint,
     syntax='logpoint LOCATION "MESSAGE {expr}" [if EXPR] [hit N]', examples=('log Foo:12 "i={i} total={o.total}"',))
async def _logpoint(ctx: Context, location: str, **options: Any) -> CommandResult:
    return await _set_breakpoint(ctx, location, **options)


async def _list_breakpoints(ctx: Context) -> CommandResult:
    infos = await ctx.debugger.breakpoint_list()
    return ok(render(infos) if infos else "No breakpoints set.", infos)


cmd("info breakpoints", "List breakpoints with their state, options and hit counts.",
    aliases=("breakpoints", "info b", "info break", "info watchpoints"), category="breakpoints")(_list_breakpoints)


async def _remove_matching(ctx: Context, spec: str, kinds: Iterable[str] | None = None) -> CommandResult:
    """Remove by id ("bp-3", "3", "all") or by what was asked for ("Foo:12", "java.lang.NPE")."""
    spec = breakpoint_id(spec)
    if spec == "all" or re.fullmatch(r"bp-\d+", spec):
        removed = await ctx.debugger.breakpoint_remove(spec, actor=ctx.actor)
        return ok(f"Removed {', '.join(removed)}" if removed else "No breakpoints to remove.", removed)
    infos = await ctx.debugger.breakpoint_list()
    wanted = set(kinds) if kinds else None
    matches = [b for b in infos if (wanted is None or b.kind in wanted) and _spec_matches(b.spec, spec)]
    if not matches:
        known = ", ".join(f"{b.id} {b.spec}" for b in infos) or "none set"
        raise NotFound(f"no breakpoint at {spec}", hint=f"breakpoints: {known}")
    removed: list[str] = []
    for b in matches:
        removed += await ctx.debugger.breakpoint_remove(b.id, actor=ctx.actor)
    return ok(f"Removed {', '.join(removed)} ({spec})", removed)


def _spec_matches(spec: str, asked: str) -> bool:
    if spec == asked:
        return True
    # "Foo:12" matches "com.acme.Foo:12"; "NullPointerException" matches "java.lang.NullPointerException"
    return spec.endswith("." + asked) or spec.endswith("/" + asked) or asked.endswith("." + spec)


@cmd("clear", "Remove a breakpoint by id or location (jdb `clear Foo:12`); without argument list them.",
     args=[Arg("breakpoint", "breakpoint", required=False)], category="breakpoints", mutates=True)
async def _clear(ctx: Context, breakpoint: str | None = None) -> CommandResult:
    if breakpoint is None:
        return await _list_breakpoints(ctx)
    return await _remove_matching(ctx, breakpoint)


@cmd("delete", "Delete breakpoints by id (gdb numbers work: `delete 2`); with no id all of them, after asking "
     "(-y: without asking).", aliases=("d",),
     args=[Arg("breakpoints", "breakpoint", "ids, all or -y", required=False, rest=True)], category="breakpoints",
     mutates=True, examples=("delete 2 3", "delete -y"))
async def _delete(ctx: Context, breakpoints: str | None = None) -> CommandResult:
    items = (breakpoints or "").replace(",", " ").split()
    yes = any(i in ("-y", "--yes") for i in items)
    items = [i for i in items if i not in ("-y", "--yes")]
    if not items:
        infos = await ctx.debugger.breakpoint_list()
        if not infos:
            return ok("No breakpoints to remove.", [])
        if not yes:
            question = f"Delete all {len(infos)} breakpoints?"
            if ctx.selection.confirm is None:
                raise InvalidArgument(f"delete with no id removes every breakpoint ({len(infos)})",
                                      "give ids (delete 2 3), or confirm with `delete -y` or `delete all`")
            if not await ctx.selection.confirm(question):
                return ok("Nothing deleted.", [])
        items = ["all"]
    removed: list[str] = []
    for item in items:
        removed += (await _remove_matching(ctx, item)).data
    return ok(f"Removed {', '.join(removed)}" if removed else "No breakpoints to remove.", removed)


def _toggle(enabled: bool) -> Handler:
    async def handler(ctx: Context, breakpoints: str) -> CommandResult:
        infos = []
        for item in breakpoints.replace(",", " ").split():
            ids = [b.id for b in await ctx.debugger.breakpoint_list()] if item == "all" else [breakpoint_id(item)]
            for bp in ids:
                infos.append(await ctx.debugger.breakpoint_update(bp, actor=ctx.actor, enabled=enabled))
        return ok("\n".join(i.describe() for i in infos) or "No breakpoints.", infos)
    return handler


_catalog.add(Command("enable", _toggle(True), "Enable breakpoints.", (), (Arg("breakpoints", "breakpoint", rest=True),),
                     "breakpoints", mutates=True))
_catalog.add(Command("disable", _toggle(False), "Disable breakpoints (they stay listed).", (),
                     (Arg("breakpoints", "breakpoint", rest=True),), "breakpoints", mutates=True))


@cmd("condition", "Set (or with no expression remove) the condition of a breakpoint.",
     args=[Arg("breakpoint", "breakpoint"), Arg("expression", "expr", required=False, rest=True)],
     category="breakpoints", mutates=True, examples=("condition 1 i % 100 == 0",))
async def _condition(ctx: Context, breakpoint: str, expression: str | None = None) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor, condition=expression or None)
    return ok(info.describe(), info)


@cmd("ignore-count", "Ignore the next COUNT hits of a breakpoint (gdb `ignore`).",
     args=[Arg("breakpoint", "breakpoint"), Arg("count", "int")], category="breakpoints", mutates=True)
async def _ignore_count(ctx: Context, breakpoint: str, count: int) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor,
                                                hit_count=f">={count + 1}" if count > 0 else None)
    return ok(info.describe(), info)


@cmd("hitcount", "Stop only at a given hit: N (the Nth), %N (every Nth), >=N; none removes it.",
     aliases=("hit",), args=[Arg("breakpoint", "breakpoint"), Arg("count", "word")], category="breakpoints",
     mutates=True)
async def _hitcount(ctx: Context, breakpoint: str, count: str) -> CommandResult:
    info = await ctx.debugger.breakpoint_update(breakpoint, actor=ctx.actor,
                                                hit_count=None if count in ("none", "0") else count)
    return ok(info.describe(), info)


def parse_catch(rest: str) -> dict[str, Any]:
    """jdb: `catch [uncaught|caught|all] CLASS`; plus `if EXPR`, `log "MSG"`."""
    head, options = _keyword_split(rest, ("if", "log", "thread"))
    words = head.split()
    args: dict[str, Any] = {}
    if words and words[0] in ("uncaught", "caught", "all"):
        mode = words.pop(0)
        args["caught"] = mode in ("caught", "all")
        args["uncaught"] = mode in ("uncaught", "all")
    if len(words) > 1:
        raise CommandError(f"catch: unexpected {' '.join(words[1:])!r}", "usage: catch [uncaught|caught|all] CLASS")
    args["exception"] = words[0] if words else "*"
    for key, value in _breakpoint_options(options).items():
        if key in ("condition", "log", "thread"):
            args[key] = value
    return args


@cmd("catch", "Stop when an exception is thrown (caught and uncaught unless told); * = any exception.",
     category="breakpoints", mutates=True, parser=parse_catch,
     syntax='catch [uncaught|caught|all] CLASS [if EXPR] [log "MSG"]',
     examples=("catch java.lang.NullPointerException", "catch uncaught *"))
async def _catch(ctx: Context, exception: str, **options: Any) -> CommandResult:
    if exception == "*" and not options:
        # jdb `catch` with no class lists what is caught
        infos = [b for b in await ctx.debugger.breakpoint_list() if b.kind == "exception"]
        if infos and not options:
            pass
    info = await ctx.debugger.exception_break(exception, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


@cmd("ignore", "Stop catching an exception (jdb); `ignore *` removes every exception breakpoint.",
     args=[Arg("exception", "class")], category="breakpoints", mutates=True)
async def _ignore(ctx: Context, exception: str) -> CommandResult:
    if exception in ("*", "all"):
        infos = [b for b in await ctx.debugger.breakpoint_list() if b.kind == "exception"]
        removed = []
        for b in infos:
            removed += await ctx.debugger.breakpoint_remove(b.id, actor=ctx.actor)
        return ok(f"Removed {', '.join(removed)}" if removed else "No exception breakpoints.", removed)
    return await _remove_matching(ctx, exception, kinds=("exception",))


def parse_watch(rest: str) -> dict[str, Any]:
    """jdb: `watch [access|all] CLASS.FIELD`; plus `if EXPR`, `log "MSG"`, `instance @12`."""
    head, options = _keyword_split(rest, ("if", "log", "thread", "instance"))
    words = head.split()
    args: dict[str, Any] = {"access": False, "modify": True}
    if words and words[0] in ("access", "all", "modify", "read", "write"):
        mode = words.pop(0)
        args["access"] = mode in ("access", "all", "read")
        args["modify"] = mode in ("all", "modify", "write")
    if len(words) != 1:
        raise CommandError("watch needs one CLASS.FIELD", "usage: watch [access|all] com.acme.Order.total")
    args["field"] = words[0]
    for key, value in _breakpoint_options({k: v for k, v in options.items() if k != "instance"}).items():
        if key in ("condition", "log", "thread"):
            args[key] = value
    if "instance" in options:
        args["instance"] = options["instance"]
    return args


@cmd("watch", "Stop when a field is written (or read: access, both: all).", aliases=("watchpoint",),
     category="breakpoints", mutates=True, parser=parse_watch,
     syntax='watch [access|all] CLASS.FIELD [if EXPR] [log "MSG"] [instance @12]',
     examples=("watch com.acme.Order.total", "watch access Foo.counter"))
async def _watch(ctx: Context, field: str, **options: Any) -> CommandResult:
    info = await ctx.debugger.watchpoint_set(field, actor=ctx.actor, **options)
    return ok(f"Set {info.describe()}", info)


@cmd("unwatch", "Remove a field watchpoint (by CLASS.FIELD or id).", args=[Arg("field", "field"),],
     category="breakpoints", mutates=True, parser=lambda rest: {"field": rest.split()[-1]} if rest.split() else
     (_ for _ in ()).throw(CommandError("usage: unwatch [access|all] CLASS.FIELD")))
async def _unwatch(ctx: Context, field: str) -> CommandResult:
    return await _remove_matching(ctx, field, kinds=("watchpoint",))


def _method_break(on: str) -> Handler:
    async def handler(ctx: Context, method: str, **options: Any) -> CommandResult:
        info = await ctx.debugger.method_break(method, on=on, actor=ctx.actor, **options)
        return ok(f"Set {info.describe()}", info)
    return handler


def _parse_method_break(rest: str) -> dict[str, Any]:
    head, options = _keyword_split(rest, ("if", "log", "thread"))
    if len(head.split()) != 1:
        raise CommandError("needs one CLASS.METHOD", "e.g. break-exit com.acme.Foo.bar")
    args = {k: v for k, v in _breakpoint_options(options).items() if k in ("condition", "log", "thread")}
    args["method"] = head
    return args


_catalog.add(Command("break-entry", _method_break("entry"), "Stop on entry to a method (every overload).",
                     ("stop-entry",), (Arg("method", "method"),), "breakpoints", mutates=True,
                     parser=_parse_method_break, syntax='break-entry CLASS.METHOD [if EXPR] [log "MSG"]'))
_catalog.add(Command("break-exit", _method_break("exit"), "Stop when a method returns, showing the return value.",
                     ("stop-exit",), (Arg("method", "method"),), "breakpoints", mutates=True,
                     parser=_parse_method_break, syntax='break-exit CLASS.METHOD [if EXPR] [log "MSG"]'))


# stack and selection ------------------------------------------------------------------------------------


def parse_where(rest: str) -> dict[str, Any]:
    words = rest.split()
    if not words:
        return {}
    if words[0] == "all":
        return {"all_threads": True}
    if words[0] in ("full", "locals"):
        return {"with_locals": True, **({"thread": thread_word(words[1])} if len(words) > 1 else {})}
    if len(words) == 1:
        try:
            return {"count": int(words[0])}
        except ValueError:
            return {"thread": thread_word(words[0])}
    raise CommandError(f"where: unexpected {rest!r}", "usage: where [all|THREAD|COUNT|full]")


@cmd("where", "The stack of the current thread (all: every thread; full: with locals).",
     aliases=("bt", "backtrace", "wherei"), category="stack", parser=parse_where, syntax="where [all|THREAD|N|full]")
async def _where(ctx: Context, all_threads: bool = False, thread: str | int | None = None, count: int = 50,
                 with_locals: bool = False) -> CommandResult:
    if all_threads:
        threads = await ctx.debugger.threads()
        blocks, data = [], {}
        for t in threads:
            try:
                frames = await ctx.debugger.stack(t.id, 0, count)
            except DebuggerError as e:
                blocks.append(f"{t.name} ({t.state}): {e}")
                continue
            data[t.name] = frames
            blocks.append(f"{t.name} ({t.state}{', suspended' if t.suspended else ''}):\n" + render(frames))
        return ok("\n".join(blocks), data)
    target = thread if thread is not None else ctx.thread
    frames = await ctx.debugger.stack(target, 0, count, locals=with_locals)
    selected = ctx.frame if thread is None else -1
    return ok(render_frames(frames, selected), frames)


def render_frames(frames: list[FrameInfo], selected: int = -1) -> str:
    if not frames:
        return "No frames."
    lines = []
    for f in frames:
        marker = "*" if f.index == selected else " "  # (">" reads as an echoed command in a transcript)
        lines.append(f"{marker} [{f.index}] {f.location}" + (" (native)" if f.is_native else ""))
        for v in f.locals or []:
            lines.append(f"        {v.name} = {v.value.text}")
    return "\n".join(lines)


async def _select_frame(ctx: Context, index: int) -> CommandResult:
    frames = await ctx.debugger.stack(ctx.thread, index, 1)
    if not frames:
        raise InvalidArgument(f"no frame {index}", "use `where` to see the frames of this thread")
    ctx.selection.frame = index
    location = frames[0].location
    text = f"[{index}] {location}"
    line = source_line(location, getattr(ctx.debugger.session, "sources", None))
    if line:
        text += f"\n{line}"
    return ok(text, frames[0])


@cmd("up", "Select the caller's frame (N frames up).", args=[Arg("count", "int", required=False)], category="stack")
async def _up(ctx: Context, count: int = 1) -> CommandResult:
    return await _select_frame(ctx, ctx.frame + count)


@cmd("down", "Select the callee's frame (N frames down).", args=[Arg("count", "int", required=False)], category="stack")
async def _down(ctx: Context, count: int = 1) -> CommandResult:
    if ctx.frame - count < 0:
        raise InvalidArgument("already at the top frame (0)", "use `up` to go to callers")
    return await _select_frame(ctx, ctx.frame - count)


@cmd("frame", "Select a frame by index (0 = top), or show the selected one.", aliases=("f",),
     args=[Arg("index", "frame", required=False)], category="stack")
async def _frame(ctx: Context, index: int | None = None) -> CommandResult:
    return await _select_frame(ctx, ctx.frame if index is None else index)


@cmd("locals", "Local variables (and arguments) of the selected frame.", aliases=("info locals", "info args"),
     category="stack")
async def _locals(ctx: Context) -> CommandResult:
    variables = await ctx.debugger.locals(ctx.frame, ctx.thread)
    return ok(render(variables) if variables else "No local variables.", variables)


@cmd("snapshot", "Everything about the current stop at once: reason, stack, locals, watchers.",
     args=[Arg("thread", "thread", required=False)], category="stack")
async def _snapshot(ctx: Context, thread: str | int | None = None) -> CommandResult:
    snap = await ctx.debugger.snapshot(thread if thread is not None else ctx.thread)
    return ok(render(snap), snap)


@cmd("pop", "Pop frames up to and including the selected one (the caller re-executes the call).",
     aliases=("popframes",), category="code", mutates=True)
async def _pop(ctx: Context) -> CommandResult:
    result = await ctx.debugger.pop_frames(ctx.frame, ctx.thread, actor=ctx.actor)
    ctx.selection.frame = 0
    return ok(render(result), result, stop=getattr(result, "stop", None) if isinstance(getattr(result, "stop", None), StopReason) else None)


@cmd("reenter", "Pop the selected frame and step into the call again.", category="code", mutates=True, waits=True)
async def _reenter(ctx: Context) -> CommandResult:
    await ctx.debugger.pop_frames(ctx.frame, ctx.thread, actor=ctx.actor)
    ctx.selection.frame = 0
    return await _waited(ctx, await ctx.debugger.step("into", ctx.thread, 1, ctx.selection.wait_timeout,
                                                      actor=ctx.actor))


@cmd("return", "Return from the current method at once with a value (force early return).",
     aliases=("force-return",), args=[Arg("value", "expr", required=False, rest=True)], category="code", mutates=True)
async def _force_return(ctx: Context, value: str = "") -> CommandResult:
    result = await ctx.debugger.force_return(value, ctx.thread, actor=ctx.actor)
    return ok(render(result), result)


# data ---------------------------------------------------------------------------------------------------


@cmd("print", "Evaluate a Java expression in the selected frame; at a stop $return, $exception, $old, $new are the event's values, $label a mark.", aliases=("p", "eval", "call", "inspect-value"),
     args=[Arg("expression", "expr", rest=True)], category="data", examples=("p order.total * 2", "print $order.id"))
async def _print(ctx: Context, expression: str) -> CommandResult:
    value = await ctx.debugger.evaluate(expression, ctx.frame, ctx.thread, actor=ctx.actor)
    return ok(f"{expression} = {value.text}", value)


@cmd("dump", "Show an object's fields (or an array's elements): a handle (@12), a mark ($x) or an expression.",
     aliases=("inspect", "x"), args=[Arg("target", "target", rest=True)], category="data")
async def _dump(ctx: Context, target: str) -> CommandResult:
    view = await ctx.debugger.inspect(target, ctx.frame, ctx.thread)
    return ok(render(view), view)


def parse_set(rest: str) -> dict[str, Any]:
    depth, quote = 0, None
    for i, ch in enumerate(rest):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0 and rest[i + 1:i + 2] != "=" and rest[i - 1:i] not in ("=", "!", "<", ">"):
            target, value = rest[:i].strip(), rest[i + 1:].strip()
            target = target.removeprefix("var ").strip()
            if target and value:
                return {"target": target, "value": value}
            break
    raise CommandError("usage: set TARGET = VALUE", "e.g. set x = 5, set this.count = count + 1, set arr[3] = 0")


@cmd("set", "Assign a value to a local, field or array element.", aliases=("set var",), category="data", mutates=True,
     parser=parse_set, syntax="set TARGET = EXPR", examples=("set x = 5", "set this.name = \"bob\""))
async def _set(ctx: Context, target: str, value: str) -> CommandResult:
    view = await ctx.debugger.set_value(target, value, ctx.frame, ctx.thread, actor=ctx.actor)
    return ok(f"{target} = {view.text}", view)


@cmd("mark", "Pin an object under a label ($label) usable in any expression; kept alive until unmark.",
     args=[Arg("label", "word"), Arg("target", "target", rest=True)], category="data", mutates=True,
     examples=("mark order this.order", "mark first @12"))
async def _mark(ctx: Context, label: str, target: str) -> CommandResult:
    result = await ctx.debugger.mark(target, label.lstrip("$"), actor=ctx.actor)
    return ok(render(result) if result is not None else f"${label.lstrip('$')} = {target}", result)


@cmd("unmark", "Remove a mark.", args=[Arg("label", "mark")], category="data", mutates=True)
async def _unmark(ctx: Context, label: str) -> CommandResult:
    result = await ctx.debugger.unmark(label.lstrip("$"), actor=ctx.actor)
    return ok(render(result) if result is not None else f"unmarked ${label.lstrip('$')}", result)


@cmd("marks", "List marked objects.", aliases=("info marks",), category="data")
async def _marks(ctx: Context) -> CommandResult:
    result = await ctx.debugger.marks()
    return ok(render(result) if result else "No marks.", result)


@cmd("disablegc", "Keep an object from being garbage collected (pins it as a mark).", args=[Arg("target", "target", rest=True)],
     category="data", mutates=True)
async def _disablegc(ctx: Context, target: str) -> CommandResult:
    label = ctx.selection.gc_pins.get(target) or f"gc{len(ctx.selection.gc_pins) + 1}"
    await ctx.debugger.mark(target, label, actor=ctx.actor)
    ctx.selection.gc_pins[target] = label
    return ok(f"{target} will not be collected (pinned as ${label}; enablegc {target} releases it)")


@cmd("enablegc", "Let an object pinned by disablegc be collected again.", args=[Arg("target", "target", rest=True)],
     category="data", mutates=True)
async def _enablegc(ctx: Context, target: str) -> CommandResult:
    label = ctx.selection.gc_pins.pop(target, None) or target.lstrip("$")
    await ctx.debugger.unmark(label, actor=ctx.actor)
    return ok(f"{target} may be collected again")


@cmd("referrers", "Objects that refer to an object (who keeps it alive).", args=[Arg("target", "target"),
     Arg("limit", "int", required=False)], category="data")
async def _referrers(ctx: Context, target: str, limit: int = 20) -> CommandResult:
    result = await ctx.debugger.referrers(target, limit)
    return ok(render(result), result)


@cmd("heap", "Count live instances of the classes matching a pattern.", aliases=("instances",),
     args=[Arg("pattern", "class")], category="data", examples=("heap com.acme.*",))
async def _heap(ctx: Context, pattern: str) -> CommandResult:
    result = await ctx.debugger.heap(pattern)
    return ok(render(result), result)


# watchers -----------------------------------------------------------------------------------------------


def parse_display(rest: str) -> dict[str, Any]:
    expression, options = _keyword_split(rest, ("at",))
    if not expression:
        raise CommandError("usage: display EXPR [at bp-N]")
    args: dict[str, Any] = {"expression": expression}
    if "at" in options:
        args["breakpoint"] = breakpoint_id(options["at"])
    return args


@cmd("display", "Add a watcher: an expression evaluated at every stop (or at one breakpoint), with its history.",
     aliases=("watch-expr",), category="watchers", mutates=True, parser=parse_display,
     syntax="display EXPR [at bp-N]", examples=("display order.total", "display i at bp-1"))
async def _display(ctx: Context, expression: str, breakpoint: str | None = None) -> CommandResult:
    result = await ctx.debugger.watch_add(expression, breakpoint, actor=ctx.actor)
    return ok(render(result), result)


@cmd("undisplay", "Remove a watcher.", args=[Arg("id", "watch")], category="watchers", mutates=True)
async def _undisplay(ctx: Context, id: str) -> CommandResult:  # noqa: A002
    result = await ctx.debugger.watch_remove(id, actor=ctx.actor)
    return ok(render(result) if result is not None else f"removed watcher {id}", result)


@cmd("watchers", "Watchers with their current values and history.", aliases=("info display", "displays"),
     category="watchers")
async def _watchers(ctx: Context) -> CommandResult:
    result = await ctx.debugger.watches()
    return ok(render(result) if result else "No watchers.", result)


@cmd("monitor", "Run a command at every stop in this front end (jdb); without argument list them.",
     args=[Arg("command", "command", required=False, rest=True)], category="watchers")
async def _monitor(ctx: Context, command: str | None = None) -> CommandResult:
    if command:
        ctx.catalog.lookup(command)  # reject unknown commands now, not at every stop
        ctx.selection.monitors.append(command)
        return ok(f"monitor {len(ctx.selection.monitors)}: {command}")
    if not ctx.selection.monitors:
        return ok("No monitors.")
    return ok("\n".join(f"{i}: {c}" for i, c in enumerate(ctx.selection.monitors, 1)), list(ctx.selection.monitors))


@cmd("unmonitor", "Remove a monitor by number.", args=[Arg("number", "int")], category="watchers")
async def _unmonitor(ctx: Context, number: int) -> CommandResult:
    if not 1 <= number <= len(ctx.selection.monitors):
        raise InvalidArgument(f"no monitor {number}", "`monitor` lists them")
    removed = ctx.selection.monitors.pop(number - 1)
    return ok(f"removed monitor {number}: {removed}")


# threads ------------------------------------------------------------------------------------------------


@cmd("threads", "List threads with state and location (* = current).", aliases=("info threads",),
     args=[Arg("which", "word", required=False, choices=("all", "system"))], category="threads")
async def _threads(ctx: Context, which: str | None = None) -> CommandResult:
    threads = await ctx.debugger.threads(include_system=which is not None)
    text = render_threads(threads, ctx.thread)
    if which is None:
        everything = await ctx.debugger.threads(include_system=True)
        hidden = len(everything) - len(threads)
        if hidden > 0:
            text += f"\n({hidden} system thread{'s' if hidden != 1 else ''} hidden: `threads all` lists them)"
    return ok(text, threads)


def render_threads(threads: list[ThreadInfo], selected: str | int | None = None) -> str:
    if not threads:
        return "No threads."
    lines = []
    for t in threads:
        is_selected = (selected is None and t.current) or selected in (t.id, t.name)
        state = t.state + (", suspended" if t.suspended else "")
        where = f" at {t.location}" if t.location else ""
        lines.append(f"{'*' if is_selected else ' '} {t.id:<6} {t.name:<24} {state}{where}")
    return "\n".join(lines)


@cmd("thread", "Select the current thread (by id or name) for stack, locals, print and stepping.",
     args=[Arg("thread", "thread", required=False)], category="threads")
async def _thread(ctx: Context, thread: str | int | None = None) -> CommandResult:
    threads = await ctx.debugger.threads(include_system=True)
    if thread is None:
        current = [t for t in threads if (ctx.thread is None and t.current) or ctx.thread in (t.id, t.name)]
        return ok(render_threads(current, ctx.thread) if current else "No current thread.", current)
    found = [t for t in threads if thread in (t.id, t.name)]
    if not found:
        names = [t.name for t in threads]
        raise NotFound(f"no thread {thread}", difflib.get_close_matches(str(thread), names, 3),
                       hint="" if difflib.get_close_matches(str(thread), names, 3) else "`threads` lists them")
    ctx.selection.thread = found[0].id
    ctx.selection.frame = 0
    return ok(f"current thread: {found[0].name} (id {found[0].id}, {found[0].state})", found[0])


@cmd("lock", "Monitor info of an object: owner, entry count, waiting threads.", args=[Arg("target", "target", rest=True)],
     category="threads")
async def _lock(ctx: Context, target: str) -> CommandResult:
    view = await ctx.debugger.inspect(target, ctx.frame, ctx.thread, 0, 0)
    handle = view.value.handle
    if handle is None:
        raise InvalidArgument(f"{target} is not an object ({view.value.text}): only objects have a monitor",
                              "give an object: lock this, lock @12, lock $order")
    report = await ctx.debugger.locks()
    owners = [t.thread for t in report.threads if any(h.handle == handle for h in t.holds)]
    entering = [t.thread for t in report.threads
                if t.waits_for is not None and t.waits_for.handle == handle and t.wait_kind == "monitor"]
    waiting = [t.thread for t in report.threads
               if t.waits_for is not None and t.waits_for.handle == handle and t.wait_kind != "monitor"]
    lines = [f"monitor of {target} = {view.value.text}",
             f"  owner: {', '.join(owners) or 'none (unlocked)'}",
             f"  waiting to enter: {', '.join(entering) or 'none'}",
             f"  waiting for notify (Object.wait): {', '.join(waiting) or 'none'}"]
    data = {"object": view.value, "owners": owners, "entering": entering, "waiting": waiting}
    return ok("\n".join(lines), data)


@cmd("locks", "Every thread's owned monitors and what it waits for; reports deadlocks.",
     aliases=("threadlocks", "deadlocks", "info locks"), args=[Arg("thread", "thread", required=False)],
     category="threads")
async def _locks(ctx: Context, thread: str | int | None = None) -> CommandResult:
    locks = await ctx.debugger.locks()
    return ok(render(locks), locks)


# classes and source -------------------------------------------------------------------------------------


@cmd("classes", "Loaded classes matching a pattern (com.acme.*).", args=[Arg("pattern", "class", required=False)],
     category="classes")
async def _classes(ctx: Context, pattern: str = "*") -> CommandResult:
    result = await ctx.debugger.classes(pattern, False)
    return ok(render(result), result)


def _members(which: str) -> Handler:
    async def handler(ctx: Context, name: str) -> CommandResult:
        result = await ctx.debugger.classes(name, True)
        return ok(render_members(result, which), result)
    return handler


def render_members(result: Any, which: str) -> str:
    """`class`: the whole summary; `methods` / `fields`: just those members, one per line."""
    items = result if isinstance(result, list) else [result]
    if not items:
        return "No such class loaded."
    if which == "class":
        return render(items)
    lines = []
    for item in items:
        members = getattr(item, which, None) or []
        lines.append(f"{item.name}:")
        for m in members:
            where = f"  (lines {m.lines[0]}-{m.lines[-1]})" if getattr(m, "lines", None) else ""
            lines.append(f"  {'static ' if m.static else ''}{m.signature}{where}")
    return "\n".join(lines)


_catalog.add(Command("class", _members("class"), "A class: superclass, interfaces, methods and fields.", (),
                     (Arg("name", "class"),), "classes"))
_catalog.add(Command("methods", _members("methods"), "Methods of a class (with line ranges).", (),
                     (Arg("name", "class"),), "classes"))
_catalog.add(Command("fields", _members("fields"), "Fields of a class.", (), (Arg("name", "class"),), "classes"))


@cmd("list", "Source around the current line, a line, a class or a method.", aliases=("l",),
     args=[Arg("location", "location", required=False), Arg("context", "int", required=False)], category="source")
async def _list(ctx: Context, location: str | None = None, context: int = 5) -> CommandResult:
    if location is None:
        here = await _current_location(ctx)
        location = f"{here.class_name}:{here.line}" if here else None
    else:
        location = await _resolve_location(ctx, location)
    result = await ctx.debugger.source(location, context)
    return ok(render(result), result)


@cmd("use", "Show or extend the source path (jdb `use`/`sourcepath`): directories separated by ':'.",
     aliases=("sourcepath",), args=[Arg("path", "path", required=False, rest=True)], category="source")
async def _use(ctx: Context, path: str | None = None) -> CommandResult:
    sources = _source_path(ctx)
    if sources is None:
        raise DebuggerError("the source path is not available", "pass --sourcepath when starting tracepilot")
    if path:
        sources.add(*[p for p in re.split(r"[:;]", path) if p])
    roots = [str(r) for r in sources.roots]
    return ok("\n".join(roots) or "(empty source path)", roots)


def _source_path(ctx: Context) -> Any:
    session = ctx.debugger.session
    for name in ("sources", "sourcepath", "source_path"):
        value = getattr(session, name, None)
        if value is not None and hasattr(value, "roots"):
            return value
    return None


@cmd("exclude", "Classes stepping skips (jdb): show, add patterns, or `none`.",
     args=[Arg("patterns", "class", required=False, rest=True)], category="execution")
async def _exclude(ctx: Context, patterns: str | None = None) -> CommandResult:
    session = ctx.debugger.session
    current = getattr(session, "step_filters", None)
    if current is None:
        raise DebuggerError("step exclusion filters are not supported by this session",
                            "use `step up` to leave library code")
    if patterns:
        new = [] if patterns.strip() == "none" else [p for p in re.split(r"[,\s]+", patterns) if p]
        current[:] = new
    return ok(", ".join(current) or "(no exclusions)", list(current))


@cmd("redefine", "Hot-swap changed classes: a classes directory, .class files, or CLASS FILE (jdb).",
     aliases=("hotswap",), args=[Arg("path", "path", rest=True)], category="code", mutates=True)
async def _redefine(ctx: Context, path: str) -> CommandResult:
    words = path.split()
    target = words[-1] if len(words) == 2 and words[1].endswith(".class") else path
    result = await ctx.debugger.hotswap(target, actor=ctx.actor)
    return ok(render(result), result)


# observation --------------------------------------------------------------------------------------------


def parse_trace(rest: str) -> dict[str, Any]:
    words = rest.split()
    if words and words[0] in ("methods", "method", "go"):
        words.pop(0)
    args: dict[str, Any] = {}
    if words and words[0] == "summary":
        words.pop(0)
    if words:
        args["pattern"] = words.pop(0)
    if words:
        try:
            args["duration"] = float(words.pop(0))
        except ValueError:
            raise CommandError("trace: duration must be a number of seconds") from None
    if words:
        raise CommandError(f"trace: unexpected {' '.join(words)!r}", "usage: trace [methods] PATTERN [SECONDS]")
    return args


@cmd("trace", "Trace calls to classes matching a pattern for some seconds, then summarise (counts, times).",
     aliases=("trace methods",), category="observation", waits=True, parser=parse_trace,
     syntax="trace [methods] [PATTERN] [SECONDS]", examples=("trace com.acme.* 5",))
async def _trace(ctx: Context, pattern: str | None = None, duration: float = 5.0) -> CommandResult:
    if pattern is None:
        here = await _current_location(ctx)
        if here is None:
            raise CommandError("trace needs a class pattern", "e.g. trace com.acme.* 5")
        pattern = here.class_name.rsplit(".", 1)[0] + ".*" if "." in here.class_name else here.class_name
    result = await ctx.debugger.trace(pattern, duration, actor=ctx.actor)
    return ok(render(result), result)


@cmd("untrace", "Stop tracing (a trace ends by itself after its duration).", category="observation")
async def _untrace(ctx: Context) -> CommandResult:
    return ok("tracing is timed: a running `trace` ends after its duration (Ctrl+C ends the wait)")


@cmd("events", "The event history (stops, breakpoints, logpoints, threads) with who caused each.",
     aliases=("history",), args=[Arg("since", "int", required=False), Arg("limit", "int", required=False)],
     category="observation")
async def _events(ctx: Context, since: int = 0, limit: int = 50) -> CommandResult:
    records = await ctx.debugger.events(since, None, 100_000)
    records = records[-limit:] if since == 0 else records[:limit]
    return ok("\n".join(shared_render.event(r) for r in records) if records else "No events.", records)


@cmd("output", "The target's stdout/stderr (launched targets).", args=[Arg("stream", "word", required=False,
     choices=("stdout", "stderr", "both"))], category="observation")
async def _output(ctx: Context, stream: str = "both") -> CommandResult:
    chunks = await ctx.debugger.output(stream, 0)
    text = "".join(c.text for c in chunks)
    return ok(text.rstrip("\n") or "(no output captured)", chunks)


# session ------------------------------------------------------------------------------------------------


@cmd("help", "List commands, or explain one.", aliases=("?", "h"), args=[Arg("topic", "command", required=False,
     rest=True)], category="session")
async def _help(ctx: Context, topic: str | None = None) -> CommandResult:
    return ok(ctx.catalog.help(topic))


@cmd("exit", "Leave tracepilot (a launched JVM is terminated, an attached one keeps running).",
     aliases=("quit", "q"), category="session")
async def _exit(ctx: Context) -> CommandResult:
    return CommandResult(True, "", exit=True)


# used by other modules; kept here so the names stay in one place
__all__ = [
    "ARG_KINDS", "Arg", "Catalog", "Command", "CommandError", "CommandResult", "Context", "Invocation", "Selection",
    "default_catalog", "split_commands", "tokenize", "breakpoint_id", "DEFAULT_WAIT",
    "EventRecord", "SessionState", "Status", "ValueView", "Variable", "BreakpointInfo", "render",
]
