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
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...commands import by_command
from ...commands.syntax import (  # noqa: F401  (importable from here too, as before)
    ARG_KINDS,
    BREAK_OPTIONS,
    Arg,
    Token,
    breakpoint_id,
    split_commands,
    thread_word,
    tokenize,
)
from ..completion import complete_line
from ..errors import DebuggerError, InvalidArgument
from ..model import (
    Actor,
    CodeLocation,
    StopKind,
    StopReason,
    WaitResult,
)
from ..render import command_text as render

if TYPE_CHECKING:
    from ...commands import Spec
    from ..debugger import Debugger

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


def keyword_split(text: str, keywords: Iterable[str]) -> tuple[str, dict[str, str]]:
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

CATALOG = Catalog()
cmd = CATALOG.command


def default_catalog() -> Catalog:
    """The catalog with every command of tracepilot."""
    return CATALOG


def ok(text: str, data: Any = None, **kw: Any) -> CommandResult:
    return CommandResult(True, text, data, **kw)


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


async def waited(ctx: Context, result: WaitResult) -> CommandResult:
    text = render(result)
    returned = returned_text(result.stop) if result.stopped else None
    if returned and returned not in text:
        text += f"\n{returned}"
    return CommandResult(True, text, result, stop=result.stop if result.stopped else None)


async def resolve_location(ctx: Context, location: str) -> str:
    """gdb's `b 42`: a bare line number means that line of the class of the current frame."""
    if location.isdigit():
        frame = await current_location(ctx)
        if frame is None:
            raise CommandError(f"`{location}` needs a class", "no current frame; use Class:LINE")
        return f"{frame.class_name.split('$', 1)[0]}:{location}"
    return location


async def current_location(ctx: Context) -> CodeLocation | None:
    try:
        frames = await ctx.debugger.stack(ctx.thread, ctx.frame, 1)
    except DebuggerError:
        return None
    return frames[0].location if frames else None


def returned_text(stop: StopReason | None) -> str | None:
    """'discount() returned 659' when a step left a method and the JVM told its return value (IntelliJ shows
    the same after step out / step over a call); None otherwise."""
    value = getattr(stop, "return_value", None)
    method = getattr(stop, "returned_from", None)
    if stop is None or value is None or not method or stop.kind is not StopKind.STEP:
        return None
    name = method if method.endswith(")") else f"{method}()"
    return f"{name} returned {value.text}"
