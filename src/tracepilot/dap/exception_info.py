"""DAP's `exceptionInfo` answer, translated from the core's exception stop (its ExceptionInfo, as the stop
record carries it): the type as exceptionId, the message as description, caught or not as breakMode, and
details with the stack (the stopped thread's frames) and the cause chain as nested innerException (each cause's
type, message and top frame: what Java prints after "Caused by:")."""

from __future__ import annotations

from typing import Any


def exception_info_body(exception: dict[str, Any], frames: list[str]) -> dict[str, Any]:
    name = str(exception.get("class_name") or "java.lang.Throwable")
    message = exception.get("message")
    details = _details(name, message, frames)
    details["evaluateName"] = "$exception"  # its name in expressions at this stop
    inner: dict[str, Any] | None = None
    for cause in reversed([c for c in exception.get("causes") or [] if isinstance(c, dict)]):
        top = cause.get("top_frame")
        link = _details(str(cause.get("class_name") or "?"), cause.get("message"), [top] if top else [])
        if inner is not None:
            link["innerException"] = [inner]
        inner = link
    if inner is not None:
        details["innerException"] = [inner]
    return {"exceptionId": name, "description": message or name,
            # DAP's words: "always" = stops whether caught or not (this one was caught), "unhandled" = uncaught.
            "breakMode": "always" if exception.get("caught") else "unhandled",
            "details": details}


def _details(name: str, message: Any, frames: list[str]) -> dict[str, Any]:
    details: dict[str, Any] = {"typeName": name.rsplit(".", 1)[-1], "fullTypeName": name}
    if message:
        details["message"] = str(message)
    if frames:
        details["stackTrace"] = "\n".join(f"\tat {frame}" for frame in frames)
    return details
