"""A joining front end's own `--read-only` and `--redact`, held on top of whatever the session host allows.

The host's Debugger may be neither read-only nor redacting (an agent's session, a TUI): a front end that
joins it with these flags must not get more than it would in a session of its own. So the joined debugger
(`RemoteDebugger`) checks every call before it is sent and every answer as it arrives:

- read-only: every write is refused here, before anything is sent (launch, restart, set_value, hotswap,
  pop_frames, force_return, interrupt, terminating the target), and so is an expression that could change
  the program (a call, `new`, an assignment) whether evaluated now or kept by the host for later (conditions,
  logpoints, watches). The host is also asked to run this client's evaluations without side effects.
- redact: values that arrive are redacted by name with the core's rule (`is_secret_name`): a variable, field
  or map entry whose name looks secret, `name=value` pairs inside summaries and event texts, an evaluation or
  inspection of an expression that names a secret. Expressions kept by the host for later may not name a
  secret or call a method (a logpoint or watch would print what it returns), and evaluations run without
  side effects (no `toString()`).

What this cannot promise: text the host composed that holds a secret under an innocent name, as in any
redacted session (README, Safety).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..core.errors import InvalidArgument, ReadOnlyViolation
from ..core.model import EventRecord, Inspection, MapEntry, ValueView, Variable
from ..core.secrets import REDACTED, is_secret_name

WRITES = frozenset({"launch", "restart", "set_value", "hotswap", "pop_frames", "force_return", "interrupt"})
# Arguments holding an expression the host keeps and evaluates later (at each hit, at each stop).
KEPT_EXPRESSIONS = {"breakpoint_set": ("condition", "log"), "breakpoint_update": ("condition", "log"),
                    "exception_break": ("condition", "log"), "method_break": ("condition", "log"),
                    "watchpoint_set": ("condition", "log"), "watch_add": ("expression",)}
EVALUATED_NOW = {"evaluate": "expression", "inspect": "target", "dump": "target"}

_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_CALL = re.compile(r"[\w$)\]]\s*\(")  # name( or x)( : a call (a cast `(int) x` has no name before its paren)
_NEW = re.compile(r"\bnew\b")
_ASSIGN = re.compile(r"(?<![=!<>])=(?!=)|\+\+|--|[-+*/%&|^]=|<<=|>>=")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'")
_PAIR = re.compile(r'(["\']?)([A-Za-z_$][\w$]*)\1(\s*=\s*)("(?:[^"\\]|\\.)*"|[^,;{}\[\]\s()="]*)')


def _code(expression: str) -> str:
    """The expression without its string literals (a `(` or `=` inside quotes is text, not code)."""
    return _STRING.sub('""', expression)


def side_effect(expression: str) -> str | None:
    """What in an expression could change the program (None when it only reads)."""
    code = _code(expression)
    if _NEW.search(code):
        return "creates an object (`new`)"
    if _ASSIGN.search(code):
        return "assigns"
    if _CALL.search(code):
        return "calls a method"
    return None


def secret_named(expression: str) -> str | None:
    return next((n for n in _NAME.findall(_code(expression)) if is_secret_name(n)), None)


def _expression_texts(method: str, name: str, value: Any) -> list[str]:
    if not isinstance(value, str) or not value:
        return []
    if name == "log":  # a logpoint template: {expr} parts are code
        return re.findall(r"\{([^{}]*)\}", value)
    return [value]


def check_call(method: str, args: dict[str, Any], *, read_only: bool, redact: bool) -> Any:
    """Refuse a call this client's flags forbid; answer it here when the answer is known without the host
    (an evaluation of a secret under redact), else None."""
    if read_only:
        if method in WRITES:
            raise ReadOnlyViolation(method)
        if method == "detach" and args.get("terminate"):
            raise ReadOnlyViolation("terminating the target")
    for name in KEPT_EXPRESSIONS.get(method, ()):
        for expression in _expression_texts(method, name, args.get(name)):
            why = side_effect(expression) if (read_only or (redact and name != "condition")) else None
            if why is not None:
                flag = "--read-only" if read_only else "--redact"
                raise InvalidArgument(f"the {name} `{expression}` {why}: refused under {flag}, which this front "
                                      "end joined with (the host evaluates it later, outside its checks)",
                                      "read fields and locals only")
            secret = secret_named(expression) if redact and name != "condition" else None
            if secret is not None:
                raise InvalidArgument(f"the {name} `{expression}` names `{secret}`, which looks secret: refused "
                                      "under --redact", "leave secret-looking values out of logpoints and watches")
    expression_arg = EVALUATED_NOW.get(method)
    expression = args.get(expression_arg) if expression_arg else None
    if isinstance(expression, str):
        if read_only and method == "evaluate" and (why := side_effect(expression)) is not None:
            raise ReadOnlyViolation(f"an expression that {why}")
        if redact and secret_named(expression) is not None:
            if method == "evaluate":
                return ValueView(type="?", text=REDACTED, kind="redacted")
            raise InvalidArgument(f"`{expression}` names `{secret_named(expression)}`, which looks secret: its "
                                  "value is redacted (--redact)", "inspect the object that holds it instead")
    return None


def scrub_text(text: str) -> str:
    """`name=value` pairs whose name looks secret, with the value redacted (summaries, event texts)."""
    if not text or "=" not in text:
        return text
    return _PAIR.sub(lambda m: m.group(0) if not is_secret_name(m.group(2))
                     else f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{REDACTED}", text)


def _redacted(view: ValueView) -> ValueView:
    return ValueView(type=view.type, text=REDACTED, kind="redacted")


def redact(value: Any) -> Any:
    """The answer as a redacting session would give it (see the module docstring)."""
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact(v) for v in value)
    if isinstance(value, dict):
        return {k: (REDACTED if isinstance(k, str) and is_secret_name(k) and isinstance(v, str | int | float)
                    else redact(v)) for k, v in value.items()}
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, ValueView):
        return dataclasses.replace(value, text=scrub_text(value.text))
    if isinstance(value, Variable) and is_secret_name(value.name):
        return dataclasses.replace(value, value=_redacted(value.value))
    if isinstance(value, MapEntry) and value.key.kind == "string" and is_secret_name(value.key.text.strip('"')):
        return dataclasses.replace(value, value=_redacted(value.value))
    if isinstance(value, Inspection) and secret_named(value.target):
        return dataclasses.replace(value, value=_redacted(value.value), children=[], entries=[], string=None)
    if isinstance(value, EventRecord):
        return dataclasses.replace(value, text=scrub_text(value.text), data=redact(value.data))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: redact(getattr(value, f.name)) for f in dataclasses.fields(value)
                   if f.init and not f.name.startswith("_")}
        try:
            return dataclasses.replace(value, **changes)
        except (TypeError, ValueError):  # a class whose __init__ differs from its fields: change it in place
            for name, changed in changes.items():
                object.__setattr__(value, name, changed)
            return value
    return value
