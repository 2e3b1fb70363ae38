"""What an exception says, for an exception stop: its message as Java prints it (the JDK's helpful
NullPointerException text included) and its cause chain (type, message and top frame of each link).

Calls into the target are kept few and harmless. A message is Throwable's `detailMessage` field; only a
NullPointerException without one gets `getMessage()` called, because the JDK computes its helpful text
("Cannot invoke \"Address.city()\" because \"customer.address\" is null") only when asked. That text names code,
never values, so it shows under --redact as well; every message then passes the same scrub of learned secrets
as any other answer (core/secrets.py). A cause's top frame needs `getStackTrace()` (the JVM fills a
Throwable's stack only when asked): one call per cause. Calls run in the stopped thread through the evaluator
(its single-thread invocation rules and timeout). A read-only session makes no calls: the helpful text and the
causes' frames are left out there, the rest is read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import Any

from ...jdwp import JdwpError, ObjectReference, StringReference, Value
from ..errors import DebuggerError
from ..model import ExceptionCause, ExceptionInfo, Variable

log = logging.getLogger(__name__)

MAX_CAUSES = 8  # links of a cause chain shown (a longer one is cut here; a cycle stops at the repeat)
THROWABLE = "java.lang.Throwable"


async def exception_details(session: Any, thread_id: int, exception: Value) -> tuple[str | None, list[ExceptionCause]]:
    """The message of `exception` and its causes, read while `thread_id` is stopped at the exception event."""
    message = await message_of(session, thread_id, exception)
    causes: list[ExceptionCause] = []
    seen = {exception.value}
    current = await _throwable_field(session, exception.value, "cause")
    while current is not None and current.value not in seen and len(causes) < MAX_CAUSES:
        seen.add(current.value)
        causes.append(ExceptionCause(await _type_name(session, current.value),
                                     await message_of(session, thread_id, current),
                                     await _top_frame(session, thread_id, current)))
        current = await _throwable_field(session, current.value, "cause")
    return message, causes


async def exception_variable(values: Any, thrown: Value, info: ExceptionInfo) -> Variable:
    """The exception as the first of the locals at its stop (IntelliJ lists it first too): `$exception`, its name
    in expressions there, summarised as Java prints it rather than by its backtrace fields (expand for those)."""
    view = await values.view(thrown, None, 0, None)
    if view.kind == "object":
        view = dataclasses.replace(view, text=info.class_name + (f": {info.message}" if info.message else ""))
    return Variable("$exception", view, kind="exception")


async def message_of(session: Any, thread_id: int, exception: Value) -> str | None:
    try:
        text = await _string(session, await _throwable_field(session, exception.value, "detailMessage"))
        if text is not None:
            return text
        vm = session.require_vm()
        ref = await vm.send(ObjectReference.ReferenceType, exception.value)
        if await vm.is_assignable(ref.type_id, "java.lang.NullPointerException"):
            return await _call_for_text(session, thread_id, exception, "$exception.getMessage()")
    except (JdwpError, DebuggerError) as exc:
        log.debug("reading an exception's message failed: %s", exc)
    return None


async def _top_frame(session: Any, thread_id: int, exception: Value) -> str | None:
    # StackTraceElement.toString() is how Java prints a frame: "com.acme.Shop.city(Shop.java:42)".
    return await _call_for_text(session, thread_id, exception,
                                "$exception.getStackTrace().length == 0 ? null : $exception.getStackTrace()[0].toString()")


async def _call_for_text(session: Any, thread_id: int, exception: Value, expression: str) -> str | None:
    if getattr(session, "read_only", False):
        return None
    try:
        value = await session.inspector.evaluator.evaluate(expression, thread_id, 0, {"$exception": exception})
        return await _string(session, value)
    except (JdwpError, DebuggerError) as exc:
        log.debug("%s failed: %s", expression, exc)
        return None


async def _throwable_field(session: Any, object_id: int, name: str) -> Value | None:
    """Throwable's own field `name` (a subclass's field of the same name does not hide it); None when null."""
    vm = session.require_vm()
    ref = await vm.send(ObjectReference.ReferenceType, object_id)
    for field in await vm.all_fields(ref.type_id):
        if field.name == name and (await vm.type(field.type_id)).name == THROWABLE:
            value = (await vm.send(ObjectReference.GetValues, object_id, [field.id])).values[0]
            return value if value.value else None
    return None


async def _string(session: Any, value: Value | None) -> str | None:
    if value is None or not value.value:
        return None
    with contextlib.suppress(JdwpError):
        return (await session.require_vm().send(StringReference.Value, value.value)).string_value
    return None


async def _type_name(session: Any, object_id: int) -> str:
    vm = session.require_vm()
    ref = await vm.send(ObjectReference.ReferenceType, object_id)
    return (await vm.type(ref.type_id, ref.ref_type_tag)).name
