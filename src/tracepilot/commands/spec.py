"""The spec of one debugger operation, declared once and bound by every front end.

A `Spec` says what an operation is called (its MCP tool name, its jdb/gdb command names), which
arguments it takes (types, defaults, the descriptions the model reads), whether it only reads, which
`Debugger` method runs it and which renderer of `tracepilot.core.render` turns its result into text.
The MCP server builds its tools from these specs (mcp/tools.py); the line interfaces run the same
operations through the command catalog, whose commands name their spec (core/catalog.py).

Specs are plain data: this package imports nothing of the core, so the MCP server can list its tools
without loading the core, the JDWP layer or tree-sitter (tests/mcp/test_server.py checks the start
path). That is also why it is `tracepilot.commands` and not `tracepilot.core.commands`.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Effect(Enum):
    """What running an operation does to the session, for the MCP annotations and read-only modes."""

    READ = "read"  # only reads the debugger or the program
    CONTROL = "control"  # changes debugger state (breakpoints, execution, watchers), not the program's data
    CHANGE = "change"  # changes the program: its values, its code, its frames, or starts one


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One argument: its name, Python type, default, and the description the model reads."""

    name: str
    type: Any
    default: Any = REQUIRED
    description: str | None = None
    ge: float | None = None
    le: float | None = None
    gt: float | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def constraints(self) -> dict[str, float]:
        return {k: v for k, v in (("ge", self.ge), ("le", self.le), ("gt", self.gt)) if v is not None}


class ArgumentError(ValueError):
    """Arguments that are each valid but do not go together (front ends show the message as is)."""


class Arguments:
    """The checked arguments of one call, by name (`args.thread`), plus who acts."""

    def __init__(self, values: dict[str, Any], actor: Any = None) -> None:
        self.__dict__.update(values)
        self.actor = actor


Call = Callable[[Any, Arguments], Awaitable[Any]]  # (the Debugger facade, the arguments) -> the result
RenderOptions = Callable[[Arguments], dict[str, Any]]


@dataclass(frozen=True)
class Spec:
    """One operation. Without a `tool`, either `via` names the tool that runs it through an argument, or
    `person_only` says why only a person at a prompt uses it."""

    name: str
    help: str  # the first line is the summary; the MCP tool description is all of it
    effect: Effect = Effect.READ
    params: tuple[Param, ...] = ()
    tool: str | None = None
    method: str = ""  # the Debugger method that runs it
    call: Call | None = None
    render: str = "render"  # the function of tracepilot.core.render that writes the result as text
    render_options: RenderOptions | None = None
    data_key: str = "result"  # the key of a result that is not an object in the structured answer
    waits_on: str | None = None  # the argument bounding a wait: progress is reported meanwhile
    waiting_for: str = "waiting for the program to stop"
    stop_context: bool = False  # the answer is a stop (or "still running") with the snapshot around it
    commands: tuple[str, ...] = ()  # the catalog's command names (jdb/gdb syntax) for the same operation
    via: str | None = None  # the tool that runs it through an argument of this spec's name (resume interrupt=true)
    person_only: str = ""  # why no MCP tool runs it

    @property
    def summary(self) -> str:
        return self.help.splitlines()[0] if self.help else self.name

    @property
    def read_only(self) -> bool:
        return self.effect is Effect.READ

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)


def person_only(name: str, reason: str, commands: tuple[str, ...], help: str = "") -> Spec:  # noqa: A002
    """A command of the line interfaces that no MCP tool runs, and why."""
    return Spec(name=name, help=help or reason, commands=commands, person_only=reason)


# -- argument conversions shared by the operations ---------------------------------------------------------


def thread_arg(thread: int | str | None) -> int | str | None:
    """A thread as typed or sent: "3" is thread id 3, a name stays a name, "" is the default."""
    if isinstance(thread, str):
        thread = thread.strip()
        if thread.isdigit():
            return int(thread)
        return thread or None
    return thread


def log_arg(log: str | bool | None, default: str) -> str | None:
    """`log: true` asks for the line the core writes anyway (where, old -> new): give it a plain message."""
    if log is True:
        return default
    return log or None


# -- arguments a call does not take --------------------------------------------------------------------------


def unknown_arguments(given: Iterable[str], known: Iterable[str], what: str) -> str | None:
    """Why a call with arguments `given` is refused when some are not among `known` (None when all are):
    each unknown one with the nearest known name, so a typo (`conditon`) is never silently dropped."""
    known = list(known)
    unknown = [name for name in given if name not in known]
    if not unknown:
        return None
    parts = []
    for name in unknown:
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        parts.append(f"`{name}` is not an argument of {what}" + (f": did you mean `{near[0]}`?" if near else ""))
    takes = ", ".join(known) if known else "no arguments"
    return "; ".join(parts) + f" ({what} takes {takes})"
