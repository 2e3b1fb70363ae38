"""What --redact keeps from leaving the debugger: values under secret-looking names, and the secrets learned so.

Redaction starts by name: a field, local, map key or method whose name looks secret (password, token, ...)
shows `<redacted>` instead of its value. A value read under such a name is also *learned* (`KnownSecrets`):
its text and its object id. Then the same secret is recognised wherever it shows up later, whoever computed
it: a `toString()` the target ran, an exception message that quotes it, a map's `values()`, a return value,
an event, a log line.

`redact_outgoing` is the one place at the output that applies both rules to anything the core hands out: the
Debugger facade passes every answer and error through it, the event history every record, the log formatter
every line. The share client calls it to enforce a joining front end's own --redact.

What this cannot promise: a secret the debugger never read under a secret-looking name (a method with an
innocent name that returns one, a secret copied into an innocently named field, a secret in a file) is not
known to it; a learned secret the program transformed (upper-cased, cut, encoded) no longer matches its text;
and a secret shorter than MIN_SECRET_LENGTH characters is hidden by name only, never searched for in text.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import re
import weakref
from enum import Enum
from typing import Any, TypeVar

from .java_escape import escape_java

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 4  # shorter values would blank out ordinary text ("eu", "1") wherever it appears
MATCH_HEAD = 12  # a secret cut short in a summary ("hunter2-PW-0123…") is found by this many first characters

_SECRET_NAME = re.compile(r"(?i)(passw|pwd|secret|token|credential|private.?key|api.?key|key$)")
# `name=value` in a summary text (`User{name="alice", password="hunter2"}`, a map's `db.password=x`)
# (not `token==null` in a condition, nor a template's `password={x}`)
_NAMED_VALUE = re.compile(r'(?P<name>[A-Za-z_$][\w$.\-]*)=(?!=)'
                          r'(?P<value>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[^,;{}\]\s)=][^,;}\]\s)]*)')

T = TypeVar("T")


def is_secret_name(name: str) -> bool:
    """A name whose value looks secret. A bare `key` is not: it names a map entry's key (whose value may be
    secret), a loop variable, a sort key; `apiKey`, `secretKey`, `privateKey` are."""
    return bool(_SECRET_NAME.search(name)) and name.lower() != "key"


def names_a_secret(expression: str) -> bool:
    """Whether an expression or target (`u.password`, `cfg.get("x").token`) names something secret-looking."""
    return any(is_secret_name(word) for word in re.findall(r"[A-Za-z_$][\w$]*", expression))


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


class KnownSecrets:
    """The secret texts and object ids one --redact session has learned (it never forgets one)."""

    def __init__(self, *, log_lines: bool = True) -> None:
        self._texts: set[str] = set()
        self._objects: set[int] = set()
        if log_lines:  # a session's book: the log formatter hides what it learns
            _LIVE.add(self)

    def __bool__(self) -> bool:  # an empty book is still a book (a session that redacts)
        return True

    @property
    def texts(self) -> frozenset[str]:
        return frozenset(self._texts)

    def learn_text(self, text: str) -> bool:
        """Remember a secret's text (and its escaped form, as summaries quote it); True if it was new."""
        if len(text.strip()) < MIN_SECRET_LENGTH or text == REDACTED:
            return False
        forms = {text, escape_java(text)}
        new = not forms <= self._texts
        self._texts |= forms
        return new

    def learn_object(self, object_id: int) -> None:
        if object_id:
            self._objects.add(object_id)

    def is_secret_object(self, object_id: int) -> bool:
        return object_id in self._objects

    def forget_objects(self) -> None:
        """The VM is gone: its object ids mean nothing any more (the texts stay secret)."""
        self._objects.clear()

    def scrub(self, text: str) -> str:
        """`text` with every learned secret (also one cut short with `…`) replaced by <redacted>."""
        if not text or not self._texts:
            return text
        for secret in sorted(self._texts, key=len, reverse=True):
            text = _replace(text, secret)
        return text


def _replace(text: str, secret: str) -> str:
    head = secret[:MATCH_HEAD]
    if head not in text:
        return text
    out, at = [], 0
    while (start := text.find(head, at)) >= 0:
        end = start + len(head)
        while end < len(text) and end - start < len(secret) and text[end] == secret[end - start]:
            end += 1
        out += [text[at:start], REDACTED]
        at = end
    out.append(text[at:])
    return "".join(out)


_LIVE: weakref.WeakSet[KnownSecrets] = weakref.WeakSet()


def redact_text(text: str, secrets: KnownSecrets | None = None) -> str:
    """One outgoing text: `secret_name=value` pairs lose their value (learned into `secrets`), then every
    secret `secrets` knows is replaced."""
    book = secrets if secrets is not None else KnownSecrets(log_lines=False)

    def by_name(found: re.Match[str]) -> str:
        if not is_secret_name(found.group("name")) or found.group("value") == REDACTED:
            return found.group(0)
        book.learn_text(_unquote(found.group("value")))
        return f"{found.group('name')}={REDACTED}"

    if "=" in text:
        text = _NAMED_VALUE.sub(by_name, text)
    return book.scrub(text)


def redact_outgoing(value: T, secrets: KnownSecrets | None = None, name: str | None = None) -> T:
    """Anything leaving the debugger (a model object, a list, a dict, an error text, a plain string) as it may
    be shown under --redact: values under secret-looking names (variables, map entries, `name=value` in a
    summary) become <redacted>, and so does every secret `secrets` has learned, wherever it occurs. `name`
    is what the value was asked for, when the caller knows it (an evaluated expression, an inspect target):
    one naming something secret-looking (`u.password`) redacts the whole value. The original is left as it
    was; a copy is returned where something changed.

    This is the core's one public entry point for "redact this outgoing text/value": the facade, the event
    history and the log formatter use it, and so can a front end that must enforce --redact on answers that
    come from elsewhere (a shared session's host: keep one `KnownSecrets` for the connection)."""
    book = secrets if secrets is not None else KnownSecrets(log_lines=False)
    if name is not None and names_a_secret(name):
        value = _redacted_whole(value, book)
    before = len(book.texts)
    result = _walk(value, book)
    if len(book.texts) != before:  # learned a secret by name on the way: earlier parts may quote it
        result = _walk(result, book)
    return result


def redact_error(error: BaseException, secrets: KnownSecrets | None) -> BaseException:
    """An error leaving the debugger, its message redacted in place (front ends show `str(error)`)."""
    if secrets is None:
        return error
    for attribute in ("message", "hint"):
        text = getattr(error, attribute, None)
        if isinstance(text, str):
            setattr(error, attribute, redact_text(text, secrets))
    error.args = tuple(redact_text(a, secrets) if isinstance(a, str) else a for a in error.args)
    return error


def _walk(value: Any, book: KnownSecrets) -> Any:
    if isinstance(value, Enum) or value is None or isinstance(value, bool | int | float | bytes):
        return value
    if isinstance(value, str):
        return redact_text(value, book)
    if isinstance(value, list):
        items = [_walk(v, book) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        twin = copy.copy(value)  # keeps a CutList's total
        twin[:] = items
        return twin
    if isinstance(value, tuple):
        return tuple(_walk(v, book) for v in value)
    if isinstance(value, dict):
        return _walk_dict(value, book)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _walk_model(value, book)
    return value


def _walk_dict(value: dict[Any, Any], book: KnownSecrets) -> dict[Any, Any]:
    """A dict: `{"password": "x"}`, and the structured form of a variable (`{"name": "password", "value":
    {...}}`) or a map entry (`{"key": {"text": "\"token\"", ...}, "value": ...}`) as a share client gets it."""
    name = value.get("name")
    key = value.get("key")
    if isinstance(key, dict):
        key = _unquote(str(key.get("text", "")))
    secret_value = "value" in value and any(isinstance(n, str) and is_secret_name(n) for n in (name, key))
    out = {}
    for k, v in value.items():
        if (k == "value" and secret_value) or (isinstance(k, str) and is_secret_name(k) and isinstance(v, str)):
            if isinstance(v, dict):
                _learn_view(_ViewLike(v), book)
                out[k] = {**v, "text": REDACTED, "kind": "redacted", "handle": None}
            else:
                if isinstance(v, str):
                    book.learn_text(_unquote(v))
                out[k] = REDACTED
        else:
            out[k] = _walk(v, book)
    return out


class _ViewLike:
    """A value view in its structured form, read as `_learn_view` reads a ValueView."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.kind = data.get("kind")
        self.text = str(data.get("text", ""))


def _walk_model(value: Any, book: KnownSecrets) -> Any:
    from .model import MapEntry, ValueView, Variable  # noqa: PLC0415  (the model is below nothing; keep it lazy)

    if isinstance(value, Variable) and is_secret_name(value.name) and value.value.kind != "redacted":
        _learn_view(value.value, book)
        return dataclasses.replace(value, value=_redacted_view(value.value, ValueView))
    if isinstance(value, MapEntry) and value.key.kind == "string" and is_secret_name(_unquote(value.key.text)) \
            and value.value.kind != "redacted":
        _learn_view(value.value, book)
        return dataclasses.replace(value, value=_redacted_view(value.value, ValueView))
    changes = {}
    for f in dataclasses.fields(value):
        if not f.init:
            continue
        old = getattr(value, f.name)
        new = _walk(old, book)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(value, **changes) if changes else value


_QUOTED = re.compile(r'^"(?P<text>.*?)(?:…" \(\d+ chars\)|")$', re.S)


def _redacted_whole(value: Any, book: KnownSecrets) -> Any:
    from .model import Inspection, ValueView  # noqa: PLC0415

    if isinstance(value, ValueView) and value.kind != "redacted":
        _learn_view(value, book)
        return _redacted_view(value, ValueView)
    if isinstance(value, Inspection) and value.value.kind != "redacted":
        _learn_view(value.value, book)
        if value.string:
            book.learn_text(value.string)
        return dataclasses.replace(value, value=_redacted_view(value.value, ValueView), children=[], entries=[],
                                   string=None, total=None)
    return value


def _learn_view(view: Any, book: KnownSecrets) -> None:
    """Learn the text a string summary shows (a summary cut short gives the part it shows)."""
    found = _QUOTED.match(view.text) if view.kind == "string" else None
    if found:
        escaped = found.group("text")
        book.learn_text(escaped)
        book.learn_text(re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m.group(1), m.group(1)),
                               escaped))


def _redacted_view(view: Any, view_type: type) -> Any:
    return view_type(type=view.type, text=REDACTED, kind="redacted")


class RedactingFormatter(logging.Formatter):
    """A log formatter whose lines (tracebacks included) hide what every --redact session in this process
    has learned and any `secret_name=value`. Without a --redact session it formats as usual."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        books = list(_LIVE)
        if not books:
            return text
        for book in books:
            text = redact_text(text, book)
        return text


__all__ = ["REDACTED", "KnownSecrets", "RedactingFormatter", "is_secret_name", "names_a_secret", "redact_error",
           "redact_outgoing", "redact_text"]
