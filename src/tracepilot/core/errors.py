"""Errors the core raises. Each says what was wrong and what to do next; front ends show `str(error)`."""

from __future__ import annotations


class DebuggerError(Exception):
    """Base of every error a front end shows to its user (person or agent)."""

    def __init__(self, message: str, hint: str = "") -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message}: {hint}" if hint else message)


class NotConnected(DebuggerError):
    def __init__(self, message: str = "no JVM is attached", hint: str = "call attach or launch first") -> None:
        super().__init__(message, hint)


class NotStopped(DebuggerError):
    """The action needs a suspended thread."""


class InvalidArgument(DebuggerError):
    """A location, thread, frame, handle, option... that does not parse or does not exist."""


class NotFound(InvalidArgument):
    """A class, method, field, breakpoint, thread or handle that does not exist (may carry suggestions)."""

    def __init__(self, message: str, suggestions: list[str] | None = None, hint: str = "") -> None:
        self.suggestions = suggestions or []
        if self.suggestions and not hint:
            hint = "did you mean " + " or ".join(self.suggestions[:3]) + "?"
        super().__init__(message, hint)


class EvaluationError(DebuggerError):
    """An expression that does not parse, does not type-check or fails while evaluating."""


class ReadOnlyViolation(DebuggerError):
    def __init__(self, action: str) -> None:
        super().__init__(f"{action} is refused: this session is read-only", "restart without --read-only to change the target")


class Unsupported(DebuggerError):
    """The target VM lacks the capability this needs."""


class TargetError(DebuggerError):
    """The JVM refused or failed an operation (JDWP error), explained."""


def refused(exc: BaseException, what: str = "the request") -> str:
    """The words for a JDWP error: "the JVM refused WHAT" only when the JVM itself answered with that error
    code; a failure of the debugger's own (a lookup in its tables) is said to be the debugger's."""
    if getattr(exc, "from_vm", False):
        return f"the JVM refused {what}: {exc}"
    return f"the debugger failed on {what} by its own check, not the JVM's answer: {exc}"
