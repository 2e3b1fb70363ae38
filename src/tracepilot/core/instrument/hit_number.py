"""A probe's hit number, exact with several threads: the one its count() gave the hitting call.

Under a hit rule the probe numbers every condition-true hit in the JVM (``static synchronized int count()``)
and keeps the number in a local of ``check`` (``number_slot``) before it decides. When the rule lets the hit
by, the debugger hears of it at ``hit()``/``error()``, with ``check``'s frame just below: it reads the number
there. (The probe's HITS, read at that event instead, may already count the hits other threads made since;
by round trip each event is numbered as it is counted.) Stored only once the condition held: a false
condition returns as before, with nothing added on its way."""

from __future__ import annotations

import contextlib
from typing import Any

from ...jdwp import JdwpError, StackFrame
from .emit import capture_slots
from .shapes import Capture


def number_slot(captures: list[Capture]) -> int:
    """The local of ``check`` that holds the hit's number: past the arguments and the slot a throwing
    condition's Throwable waits in while the rule counts it."""
    return capture_slots(captures)[1] + 1


async def read_number(vm: Any, thread: int, check_frame: int, slot: int) -> int | None:
    """The hit number kept in ``check``'s frame on the suspended `thread`; None when it cannot be read."""
    with contextlib.suppress(JdwpError):
        value = (await vm.send(StackFrame.GetValues, thread, check_frame, [(slot, ord("I"))])).values[0].value
        if isinstance(value, int) and value > 0:
            return value
    return None
