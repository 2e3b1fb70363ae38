"""Conditions and logpoints as the breakpoints ask for them: evaluate a condition at a hit, format a log
message (with the event's own values bound), and say which values a message could have used. A part of the
`Inspector` (a mixin over its state)."""

from __future__ import annotations

import re
from typing import Any

from ...jdwp import (
    JdwpError,
    Value,
)
from .. import render
from ..errors import (
    DebuggerError,
    EvaluationError,
)
from . import log_text


class Conditions:
    # -- conditions and logpoints --------------------------------------------------------------------

    async def evaluate_condition(self, expression: str, thread_id: int, extra: dict[str, Value] | None = None, *,
                                 frame: int = 0) -> bool:
        """Evaluate a breakpoint condition in the top frame of a suspended thread (raises EvaluationError);
        `frame`: the program's top frame below an in-JVM probe's.

        The evaluator's condition path caches its plan per location: one round trip per repeat hit."""
        expression, extra = self._handles_as_symbols(_this_as_bound(expression, extra), extra)
        try:
            return await self.evaluator.condition(expression, thread_id, extra, frame=frame)
        except JdwpError as exc:
            raise EvaluationError(f"condition '{expression}' failed: {exc}") from None
        except EvaluationError as exc:
            hint = _event_value_hint(expression, extra, in_template=False)
            if not hint:
                raise
            raise EvaluationError(exc.message + hint, exc.hint) from None

    async def log_details(self, info: Any, event: Any, extra: dict[str, Value]) -> tuple[str, dict[str, Any]]:
        """Where a log line fired, so no template has to say it: "at Invoice.normalise:41 [main]", and at a
        field event the object and old -> new, at a method exit the value returned, at an exception its class.
        Returns the text to append to the line and the structured part of the history record."""
        try:
            return await self._log_details(info, event, extra)
        except (DebuggerError, JdwpError) as exc:  # the line itself matters more than where it came from
            return f" (location unknown: {exc})", {}

    async def _log_details(self, info: Any, event: Any, extra: dict[str, Value]) -> tuple[str, dict[str, Any]]:
        p = self._p()
        loc = await self.session.code_location(event.location)
        text, data = render.log_where(loc, await p.vm.thread_name(event.thread))
        if info.kind == "watchpoint":
            field_name = info.spec.rpartition(".")[2]
            target = extra.get("$this")
            owner = (await p.values.view(target, None, 1)).text if target is not None else info.spec.rpartition(".")[0]
            data["object"] = owner
            data["field"] = field_name
            if "$new" in extra:
                old = extra.get("$old")
                old_text = (await p.values.view(old, None, 1, field_name)).text if old is not None else "?"
                new_text = (await p.values.view(extra["$new"], None, 1, field_name)).text
                data["old"], data["new"] = old_text, new_text
                text += f" {_clip_text(owner)}.{field_name}: {old_text} -> {new_text}"
            else:
                text += f" read {_clip_text(owner)}.{field_name}"
        elif "$return" in extra:
            data["returned"] = (await p.values.view(extra["$return"], None, 1, loc.method)).text  # name may be secret
            text += f" returned {data['returned']}"
        elif "$exception" in extra:
            data["exception"] = (await p.values.view(extra["$exception"], None, 2)).type
            text += f" threw {data['exception']}"
        return text, data

    async def format_log(self, template: str, thread_id: int, extra: dict[str, Value] | None = None) -> str:
        """Expand a logpoint template: text with {expression} parts evaluated in the top frame.

        At a field event `this` is the object whose field was read or written (bound as `$this`), not the
        frame of the code doing it, and a bare name that is no local there reads that object's field."""
        from ..evaluator.template import split_template

        out = []
        for part in split_template(template):
            if isinstance(part, str):
                out.append(part)
                continue
            expression = _this_as_bound(part[0], extra)
            try:
                try:
                    value, static = await self._evaluate_value(expression, thread_id, 0, extra)
                except EvaluationError:
                    if not (extra and "$this" in extra and part[0].strip().isidentifier()):
                        raise
                    value, static = await self._evaluate_value(f"$this.{part[0].strip()}", thread_id, 0, extra)
                own = await self._own_text(value, thread_id, extra)
                if own is not None:
                    out.append(own)
                    continue
                view = await self._p().values.view(value, static, 1, self._secret(expression))
                out.append(view.text[1:-1] if view.kind == "string" and view.text.endswith('"') else view.text)
            except (DebuggerError, JdwpError) as exc:
                out.append(f"<{expression}: {exc}{_event_value_hint(expression, extra)}>")
        return "".join(out)

    async def _own_text(self, value: Value, thread_id: int, extra: dict[str, Value] | None) -> str | None:
        """What Java's string concatenation writes for `value` when that is the program's own toString()
        (log_text.py); None where the field view is shown instead (no own toString, --redact, a failed call)."""
        if getattr(self.session, "redact", False) or not log_text.wants_to_string(value):
            return None
        p = self._p()
        if not await log_text.has_own_to_string(p.vm, await p.values.objects.type_id(value.value)):
            return None
        try:
            text, _ = await self._evaluate_value(f"{log_text.BOUND}.toString()", thread_id, 0,
                                                 {**(extra or {}), log_text.BOUND: value})
        except (DebuggerError, JdwpError):
            return None  # (a toString() that throws: the fields still say what the value is)
        if text.is_null:
            return "null"
        return await p.values.objects.string(text.value)


_EVENT_VALUES = {"$exception": "the exception", "$return": "the value returned", "$new": "the value written"}


def _event_value_hint(expression: str, extra: dict[str, Value] | None, in_template: bool = True) -> str:
    """A log part that failed at an exception (method exit, field write) may have meant the event's value:
    `{getMessage()}` runs in the throwing frame, `{$exception.getMessage()}` asks the exception."""
    for name, what in _EVENT_VALUES.items():
        if extra and name in extra and name not in expression:
            if name == "$exception":
                written = f"{name}.{expression.strip()}"
                return f" — {what} is {name}: write " + (f"{{{written}}}" if in_template else written)
            return f" — {what} is {name}"
    return ""


def _clip_text(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_THIS = re.compile(r"(?<![\w$.\"'])this\b(?!\s*\()")


def _this_as_bound(expression: str, extra: dict[str, Value] | None) -> str:
    """At a field event the evaluator gets the written object as `$this`: `this` in the user's text means it."""
    if not extra or "$this" not in extra or "this" not in expression:
        return expression
    return _THIS.sub("$this", expression)
