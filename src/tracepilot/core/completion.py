"""Completion for command lines: command names, classes, methods, fields, locals, threads, breakpoint ids.

`complete_line` returns (start, candidates): each candidate replaces `line[start:]`. It asks the VM
through the debugger's caches and never fails: an unknown context or a VM error completes to nothing.

Completion runs while a person types (the TUI suggests on every key): it records nothing in the shared
history (agents and watchers read it) and never runs code in the target. It reads values with `inspect`
(no history record, logical views built from fields) inside `no_side_effects()`, so even an expression
that names a method is refused rather than invoked.

It asks the VM once per moment, not once per key: what it read (the names usable in an expression, a
class's type, an expression's runtime type, the sorted class list) is kept until the session moves on (a
stop, a resume, a call, or anything recorded in the history: `set`, `mark`...), so typing the rest of a
line sends no JDWP request at all.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..commands.syntax import BREAK_OPTIONS, tokenize
from .program_classes import program_classes, simple_name
from .session import no_side_effects

if TYPE_CHECKING:
    from .api import DebuggerApi

# What completion needs of the command catalog (core/catalog, which calls it: it sits above this module and
# hands itself in), of a command's arguments, and of the selection the command line acts on.


class ArgumentShape(Protocol):
    kind: str | None
    rest: bool


class CommandShape(Protocol):
    name: str
    args: Sequence[ArgumentShape]
    parser: Any


class CommandSet(Protocol):
    def names(self) -> Iterable[str]: ...

    def get(self, name: str) -> CommandShape | None: ...

    def lookup(self, line: str) -> tuple[CommandShape, str]: ...


class SelectionShape(Protocol):
    thread: str | int | None
    frame: int


_WORD = re.compile(r"[^\s]*$")
_IDENT_TAIL = re.compile(r"[\w$]*$")
_MEMBER_TAIL = re.compile(r"((?:[\w$]+\.)*)([\w$]*)$")

# Commands with their own parser: the argument kind their words take (before any option keyword).
_PARSER_KINDS = {
    "stop": "location", "stop at": "location", "stop in": "method", "tbreak": "location", "logpoint": "location",
    "catch": "class", "watch": "field", "unwatch": "field", "set": "expr", "display": "expr", "trace": "class",
    "where": "thread", "break-entry": "method", "break-exit": "method",
}
_PREFIX_WORDS = {
    "stop": ("at", "in", "thread", "go"), "catch": ("uncaught", "caught", "all"), "watch": ("access", "all"),
    "unwatch": ("access", "all"), "where": ("all", "full"), "trace": ("methods",),
}


async def complete_line(catalog: CommandSet, debugger: DebuggerApi | None, line: str,
                        selection: SelectionShape) -> tuple[int, list[str]]:
    with no_side_effects("completion runs while you type: it never runs code in the program"):
        return await _complete_line(catalog, debugger, line, selection)


async def _complete_line(catalog: CommandSet, debugger: DebuggerApi | None, line: str,
                         selection: SelectionShape) -> tuple[int, list[str]]:
    word = _WORD.search(line).group(0)  # type: ignore[union-attr]
    start = len(line) - len(word)
    before = line[:start].strip()
    if not before:
        return start, _command_words(catalog, word)
    first_words = before.split()
    seconds = sorted({n.split()[1] for n in catalog.names()
                      if " " in n and n.split()[0] == first_words[0] and n.split()[1].startswith(word)})
    if len(first_words) == 1 and seconds and catalog.get(first_words[0]) is None:
        return start, seconds  # "info l" -> locals
    try:
        command, rest = catalog.lookup(before + " x")  # a placeholder word so "stop " finds "stop"
    except Exception:
        return start, []
    rest = rest[:-1].strip()
    if len(first_words) == 1 and " " not in command.name and seconds:
        # "stop a" -> at; "step u" -> up (the one-word command takes other words too)
        extra = [w for w in _PREFIX_WORDS.get(command.name, ()) if w.startswith(word) and w not in seconds]
        if word or not command.args:
            return start, seconds + extra
    kind = _kind_at(command, rest)
    if kind is None or debugger is None:
        return start, []
    try:
        if kind == "expr":
            return await _complete_expression(debugger, line, selection)
        candidates = await _candidates(catalog, debugger, kind, word, selection)
    except Exception:  # completion must never break typing
        return start, []
    words = [w for w in _PREFIX_WORDS.get(command.name, ()) if w.startswith(word)] if not rest else []
    return start, words + candidates


def _command_words(catalog: CommandSet, word: str) -> list[str]:
    firsts = {name.split()[0] for name in catalog.names()}
    return sorted(n for n in firsts if n.startswith(word))


def _kind_at(command: CommandShape, rest: str) -> str | None:
    """The argument kind of the word being typed, from the words already typed after the command."""
    tokens = tokenize(rest)
    if command.name in _PARSER_KINDS or command.parser is not None:
        if any(t.text == "if" and t.depth == 0 for t in tokens):
            return "expr"
        if tokens and tokens[-1].text in ("thread",):
            return "thread"
        if tokens and tokens[-1].text in ("after",):
            return "breakpoint"
        if command.name in ("set", "display"):
            return "expr"
        main = [t for t in tokens if t.text not in _PREFIX_WORDS.get(command.name, ()) and t.text not in BREAK_OPTIONS]
        if main:
            return None if command.name != "logpoint" else "expr"
        return _PARSER_KINDS.get(command.name, command.args[0].kind if command.args else None)
    for index, spec in enumerate(command.args):
        if spec.rest or index >= len(tokens):
            return spec.kind
    return None


async def _candidates(catalog: CommandSet, debugger: DebuggerApi, kind: str, word: str,
                      selection: SelectionShape) -> list[str]:
    if kind in ("location", "class", "method", "field"):
        return await _complete_class_or_member(debugger, kind, word)
    if kind == "thread":
        threads = await debugger.threads(include_system=True)
        names = [t.name for t in threads] + [str(t.id) for t in threads]
        return sorted({n for n in names if n.startswith(word)})
    if kind == "breakpoint":
        ids = [b.id for b in await debugger.breakpoint_list()] + ["all"]
        return [i for i in ids if i.startswith(word) or i.removeprefix("bp-").startswith(word)]
    if kind == "command":
        return _command_words(catalog, word)
    if kind in ("watch", "mark"):
        items = await (debugger.watches() if kind == "watch" else debugger.marks())
        names = [_name_of(item, ("id", "label", "name")) for item in _items(items)]
        return sorted(n for n in names if n and n.startswith(word.lstrip("$")))
    if kind == "target":
        return [w for w in await _expression_names(debugger, selection) if w.startswith(word)]
    return []


def _items(obj: Any) -> list[Any]:
    if obj is None:
        return []
    if isinstance(obj, dict):
        return [{"id": k, "label": k} if not isinstance(v, dict) else {"id": k, **v} for k, v in obj.items()]
    return list(obj) if isinstance(obj, list | tuple) else [obj]


def _name_of(item: Any, attrs: tuple[str, ...]) -> str | None:
    for attr in attrs:
        value = item.get(attr) if isinstance(item, dict) else getattr(item, attr, None)
        if isinstance(value, str):
            return value
    return None


def _vm(debugger: DebuggerApi) -> Any:
    return getattr(debugger.session, "vm", None)


# --- what was read at this moment -------------------------------------------------------------------

_memos: weakref.WeakKeyDictionary[Any, tuple[Hashable, dict[Hashable, Any]]] = weakref.WeakKeyDictionary()


def _moment(session: Any) -> Hashable | None:
    """Changes whenever what completion read may have changed: another VM, a class loaded, the state, the
    stop (frame ids go stale on resume and after a call: stop_generation), or any history record (set, mark,
    events). None for a debugger without an in-process session (a share client): then nothing is kept."""
    try:
        vm = session.vm
        return (id(vm), len(vm.types), session.state, session.stop_generation, session.history.last_seq)
    except Exception:
        return None


async def _kept(debugger: DebuggerApi, key: Hashable, read: Callable[[], Awaitable[Any]]) -> Any:
    """`await read()`, or what it answered before at this same moment of the session."""
    session = getattr(debugger, "session", None)
    moment = _moment(session) if session is not None else None
    if moment is None:
        return await read()
    kept = _memos.get(session)
    if kept is None or kept[0] != moment:
        kept = (moment, {})
        _memos[session] = kept
    if key not in kept[1]:
        kept[1][key] = await read()
    return kept[1][key]


async def _class_names(debugger: DebuggerApi) -> list[str]:
    vm = _vm(debugger)
    if vm is None:
        return []
    types = await vm.all_classes()

    async def names() -> list[str]:
        return sorted({t.name for t in types if not t.is_array and "$$" not in t.name and "/0x" not in t.name})

    return await _kept(debugger, "classes", names)


async def _type_by_name(debugger: DebuggerApi, name: str) -> Any:
    vm = _vm(debugger)
    if vm is None:
        return None
    return await _kept(debugger, ("type", name), lambda: _find_type(debugger, vm, name))


async def _find_type(debugger: DebuggerApi, vm: Any, name: str) -> Any:
    names = await _class_names(debugger)
    if name not in names:
        simple = [n for n in names if n.rsplit(".", 1)[-1] == name]
        if len(simple) != 1:
            return None
        name = simple[0]
    found = await vm.classes_by_name(name)
    return found[0] if found else None


async def _programs_classes(debugger: DebuggerApi, loaded: Iterable[str]) -> set[str]:
    """The program's classes: on its source path or class path (loaded or not), or loaded from outside the
    JDK and the common libraries. (The listing reads the disk: in a worker thread, so typing never waits.)"""
    from .inspect.stack import is_library  # noqa: PLC0415 (the one list of library packages)

    ours = set(await asyncio.to_thread(program_classes, getattr(debugger.session, "sources", None)))
    return ours | {n for n in loaded if not is_library(n)}


def _ranked(names: Iterable[str], ours: set[str], by_depth: bool) -> list[str]:
    """The program's names first (a simple name is the program's when one of its classes has it), then the
    rest; within each, shorter names (fewer dots) first when `by_depth`, then alphabetical."""
    simple_ours = {simple_name(n) for n in ours}

    def key(name: str) -> tuple[bool, int, str]:
        mine = name in ours if "." in name else name in simple_ours
        return (not mine, name.count(".") if by_depth else 0, name)

    return sorted(set(names), key=key)


async def _complete_class_or_member(debugger: DebuggerApi, kind: str, word: str) -> list[str]:
    if ":" in word:
        return []
    loaded = await _class_names(debugger)
    ours = await _programs_classes(debugger, loaded)
    names = sorted(set(loaded) | ours)
    if "$" not in word:
        names = [n for n in names if "$" not in n]
    out = [n for n in names if n.startswith(word)]
    if "." not in word:
        out += [n.rsplit(".", 1)[-1] for n in names if n.rsplit(".", 1)[-1].startswith(word) and "." in n]
    if kind in ("location", "method", "field") and "." in word:
        owner, _, partial = word.rpartition(".")
        info = await _type_by_name(debugger, owner)
        if info is not None:
            vm = _vm(debugger)
            if kind == "field":
                members = [f.name for f in await vm.fields(info.id) if not f.is_synthetic]
            else:
                members = [m.name for m in await vm.methods(info.id)
                           if not m.is_synthetic and not m.name.startswith("lambda$") and m.name != "<clinit>"]
            out += sorted({f"{owner}.{m}" for m in members if m.startswith(partial)})
    return _ranked(out, ours, by_depth="." not in word)


async def _expression_names(debugger: DebuggerApi, selection: SelectionShape) -> list[str]:
    """Names usable at the start of an expression: locals, this, fields of this class, marks."""
    return await _kept(debugger, ("names", selection.thread, selection.frame),
                       lambda: _read_expression_names(debugger, selection))


async def _read_expression_names(debugger: DebuggerApi, selection: SelectionShape) -> list[str]:
    names: list[str] = []
    try:
        names += [v.name for v in await debugger.locals(selection.frame, selection.thread)]
    except Exception:
        pass
    try:
        frames = await debugger.stack(selection.thread, selection.frame, 1)
        if frames:
            info = await _type_by_name(debugger, frames[0].location.class_name)
            if info is not None:
                names += [f.name for f in await _vm(debugger).all_fields(info.id) if not f.is_synthetic]
                names.append("this")
    except Exception:
        pass
    try:
        names += ["$" + n for n in (_name_of(i, ("label", "name", "id")) for i in _items(await debugger.marks())) if n]
    except Exception:
        pass
    return sorted(set(names))


async def _complete_expression(debugger: DebuggerApi, line: str,
                               selection: SelectionShape) -> tuple[int, list[str]]:
    match = _MEMBER_TAIL.search(line)
    assert match is not None
    base, partial = match.group(1), match.group(2)
    start = len(line) - len(partial)
    if not base:
        return start, [n for n in await _expression_names(debugger, selection) if n.startswith(partial)]
    # `order.to` -> fields of order's runtime type. Read with inspect, not evaluate: evaluate is an action
    # recorded in the history; only plain names reach here, and no_side_effects() refuses any call anyway.
    info = await _kept(debugger, ("type of", base, selection.thread, selection.frame),
                       lambda: _runtime_type(debugger, base.rstrip("."), selection))
    if info is None:
        return start, []
    vm = _vm(debugger)
    fields = [f.name for f in await vm.all_fields(info.id) if not f.is_synthetic]
    methods = [m.name + "(" for m in await vm.methods(info.id) if not m.is_synthetic and not m.name.startswith("<")
               and not m.name.startswith("lambda$")]
    return start, sorted({n for n in fields + methods if n.startswith(partial)})


async def _runtime_type(debugger: DebuggerApi, expression: str, selection: SelectionShape) -> Any:
    inspection = await debugger.inspect(expression, selection.frame, selection.thread, 0, 0)
    return await _type_by_name(debugger, inspection.value.type)
