"""The jdb/gdb command-line syntax: tokens, several commands on a line, argument kinds, breakpoint options.

Pure text handling, shared by the command catalog (core/catalog.py) and completion (core/completion.py);
nothing here knows the debugger.
"""

from __future__ import annotations

from dataclasses import dataclass

# Argument kinds double as completion hints.
ARG_KINDS = {
    "location": "class:line, file:line or class.method",
    "method": "class.method or class.method(types)",
    "class": "class name or pattern (com.acme.*)",
    "field": "class.field",
    "expr": "a Java expression",
    "target": "a handle (@12), a mark ($x) or an expression",
    "thread": "thread id or name",
    "frame": "frame index (0 = top)",
    "breakpoint": "breakpoint id (bp-1 or 1)",
    "watch": "watcher id",
    "mark": "mark label",
    "int": "an integer",
    "number": "a number",
    "word": "a word",
    "text": "free text",
    "path": "a file or directory",
    "command": "a command line",
}


@dataclass(frozen=True)
class Arg:
    name: str
    kind: str
    help: str = ""
    required: bool = True
    choices: tuple[str, ...] = ()
    rest: bool = False  # takes the rest of the line (expressions, text)

    def usage(self) -> str:
        inner = "|".join(self.choices) if self.choices else self.name.upper()
        inner += "..." if self.rest and self.kind not in ("expr", "command", "text") else ""
        return inner if self.required else f"[{inner}]"


BREAK_OPTIONS = ("if", "hit", "hits", "count", "log", "thread", "after", "temporary", "temp", "once", "disabled",
                 "suspend")


@dataclass
class Token:
    text: str  # unquoted
    start: int
    end: int
    depth: int  # bracket depth at the token start (keywords only count at depth 0)
    quoted: bool = False


def tokenize(line: str) -> list[Token]:
    """Whitespace-separated tokens; quotes group, brackets keep expressions like `f(a, b)` together."""
    tokens: list[Token] = []
    i, n, depth = 0, len(line), 0
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        start, token_depth, buf, quoted = i, depth, [], False
        while i < n and (depth > 0 or not line[i].isspace()):
            ch = line[i]
            if ch in "\"'":
                quoted = True
                j = i + 1
                while j < n and line[j] != ch:
                    j += 2 if line[j] == "\\" and j + 1 < n else 1
                body = line[i + 1:j]
                buf.append(body.encode().decode("unicode_escape") if "\\" in body and ch == '"' and depth == 0 else body)
                if depth > 0:
                    buf[-1] = line[i:j + 1]
                i = j + 1
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(0, depth - 1)
            buf.append(ch)
            i += 1
        tokens.append(Token("".join(buf), start, i, token_depth, quoted))
    return tokens


def split_commands(text: str) -> list[str]:
    """Split `stop at Foo:12; cont; where` on `;` and newlines outside quotes and brackets."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    depth = 0
    for ch in text:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch in ";\n" and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    parts.append("".join(buf).strip())
    return [p for p in parts if p and not p.startswith("#")]


def thread_word(text: str) -> str | int:
    """A thread as typed: a number is an id, anything else a name."""
    try:
        return int(text, 0)
    except ValueError:
        return text


def breakpoint_id(text: str) -> str:
    """gdb numbers and jdb-free forms: "3" -> "bp-3"; "bp-3" and "all" unchanged."""
    return f"bp-{text}" if text.isdigit() else text
