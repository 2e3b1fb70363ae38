"""The share protocol: newline-delimited JSON messages between a session host and its clients.

No I/O here: building messages, encoding model objects so they come back as the same dataclasses on the
other side, and mapping errors. docs/share-protocol.md describes the messages for people.

    client -> host   hello, command (a Debugger method or a catalog line), cancel, bye
    host -> client   snapshot (answer to hello), event, result, bye
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import types
import typing
from pathlib import PurePath
from typing import Any

from ..core import errors as core_errors
from ..core.errors import DebuggerError

PROTOCOL_VERSION = 1
MAX_LINE = 16 * 1024 * 1024  # bytes of one message (a snapshot with a long history is the biggest)
TYPE_KEY = "__type__"
_ALLOWED_PREFIX = "tracepilot."  # classes a decoder may construct: ours only, never arbitrary imports


class ShareError(DebuggerError):
    """Sharing a session failed: no such session, the socket or directory is not private, bad peer."""


class ControlRefused(DebuggerError):
    """A follow-only client asked for something that changes the session."""

    def __init__(self, action: str) -> None:
        super().__init__(f"{action} is refused: this watcher is follow-only",
                         "open `tracepilot watch` without --follow-only to take part")


class SessionEnded(DebuggerError):
    """The session host went away; the last view stays, nothing more can be asked."""

    def __init__(self, reason: str = "the session host ended") -> None:
        super().__init__(reason, "the view shows the session as it last was; `tracepilot sessions` lists live ones")


class ProtocolError(ShareError):
    """A message that is not valid for the share protocol."""


# --- framing ---------------------------------------------------------------------------------------------


def dumps(message: dict[str, Any]) -> bytes:
    """One message as one line (JSON never contains a raw newline)."""
    return json.dumps(message, separators=(",", ":"), default=_fallback).encode() + b"\n"


def loads(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as e:
        raise ProtocolError(f"not a JSON message: {e}") from e
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("a message is a JSON object with a string `type`")
    return message


def _fallback(obj: Any) -> Any:
    return encode(obj) if not isinstance(obj, str | int | float | bool | type(None)) else obj


# --- messages ---------------------------------------------------------------------------------------------


def hello(client: str, actor: str, follow_only: bool, token: str | None = None,
          no_side_effects: bool = False) -> dict[str, Any]:
    message = {"type": "hello", "protocol": PROTOCOL_VERSION, "client": client, "actor": actor,
               "follow_only": follow_only}
    if no_side_effects:  # a client joined with --read-only or --redact: its evaluations never invoke or assign
        message["no_side_effects"] = True
    if token is not None:
        message["token"] = token  # only over the opt-in TCP listener
    return message


def command(request_id: int, method: str | None = None, args: dict[str, Any] | None = None,
            line: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "command", "id": request_id}
    if line is not None:
        message["line"] = line
    else:
        message["method"] = method
        message["args"] = encode(args or {})
    return message


def result_ok(request_id: int, value: Any) -> dict[str, Any]:
    return {"type": "result", "id": request_id, "ok": True, "value": encode(value)}


def result_error(request_id: int, error: BaseException) -> dict[str, Any]:
    return {"type": "result", "id": request_id, "ok": False, "error": error_to_dict(error)}


def event(record: Any, state: Any, stop: Any) -> dict[str, Any]:
    return {"type": "event", "record": encode(record), "state": encode(state), "stop": encode(stop)}


def bye(reason: str) -> dict[str, Any]:
    return {"type": "bye", "reason": reason}


# --- values -----------------------------------------------------------------------------------------------


def encode(obj: Any) -> Any:
    """JSON-able form that `decode` turns back into the same model objects (dataclasses carry their type)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        out: dict[str, Any] = {TYPE_KEY: f"{cls.__module__}:{cls.__qualname__}"}
        for f in dataclasses.fields(obj):
            if not f.name.startswith("_"):
                out[f.name] = encode(getattr(obj, f.name))
        return out
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): encode(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [encode(v) for v in obj]
    if isinstance(obj, PurePath):
        return str(obj)
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return repr(obj)  # something no front end renders structurally; keep it readable


def decode(data: Any) -> Any:
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    type_name = data.get(TYPE_KEY)
    if not isinstance(type_name, str):
        return {k: decode(v) for k, v in data.items()}
    cls = _class(type_name)
    if cls is None:
        return {k: decode(v) for k, v in data.items() if k != TYPE_KEY}
    hints = _hints(cls)
    init_args: dict[str, Any] = {}
    later: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = _coerce(decode(data[f.name]), hints.get(f.name))
        (init_args if f.init else later)[f.name] = value
    obj = cls(**init_args)
    for name, value in later.items():
        setattr(obj, name, value)
    return obj


_classes: dict[str, type | None] = {}
_hint_cache: dict[type, dict[str, Any]] = {}


def _class(type_name: str) -> type | None:
    if type_name in _classes:
        return _classes[type_name]
    module_name, _, qualname = type_name.partition(":")
    cls: Any = None
    if module_name.startswith(_ALLOWED_PREFIX):
        try:
            cls = importlib.import_module(module_name)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError):
            cls = None
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        cls = None
    _classes[type_name] = cls
    return cls


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _hint_cache:
        try:
            _hint_cache[cls] = typing.get_type_hints(cls)
        except Exception:  # an annotation that does not resolve: values stay as decoded
            _hint_cache[cls] = {}
    return _hint_cache[cls]


def _coerce(value: Any, hint: Any) -> Any:
    """Strings back into the enums the field is declared with (front ends compare with `is`)."""
    if value is None or hint is None or not isinstance(value, str):
        return value
    candidates = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union \
        else (hint,)
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, enum.Enum):
            try:
                return candidate(value)
            except ValueError:
                continue
    return value


# --- errors -----------------------------------------------------------------------------------------------


def error_to_dict(error: BaseException) -> dict[str, Any]:
    if isinstance(error, DebuggerError):
        out = {"type": type(error).__name__, "message": error.message, "hint": error.hint}
        suggestions = getattr(error, "suggestions", None)
        if suggestions:
            out["suggestions"] = list(suggestions)
        return out
    return {"type": "InternalError", "message": f"{type(error).__name__}: {error or 'no details'}",
            "hint": "the session host keeps running; its log may say more"}


def error_from_dict(data: dict[str, Any]) -> DebuggerError:
    """The same error class the host raised (core errors and ours), else a plain DebuggerError."""
    name = str(data.get("type", ""))
    cls = getattr(core_errors, name, None) or globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, DebuggerError)):
        cls = DebuggerError
    error = cls.__new__(cls)
    DebuggerError.__init__(error, str(data.get("message", "error on the session host")), str(data.get("hint", "")))
    if "suggestions" in data:
        error.suggestions = list(data["suggestions"])  # type: ignore[attr-defined]
    return error
