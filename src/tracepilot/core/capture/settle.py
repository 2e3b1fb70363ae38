"""A capture point taken in the JVM, about to be removed: what the JVM took of it is read first, and kept.

The take class counts a capture as taken (TAKEN) before it copies the values and walks the stack, and puts the
record in the ring only then: under load that takes a while, and a point removed in between lost the captures
the JVM had already counted (the ring's reader books records of known points only). So the removal waits until
the debugger has booked as many captures as the JVM counted -- at most SETTLE_SECONDS, and not at all while
every thread is held (none can come) -- and says it when some could not be read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ...jdwp import ArrayReference, JdwpTransportError
from ..errors import DebuggerError
from ..model import Actor

__all__ = ["SETTLE_SECONDS", "settle_point"]

log = logging.getLogger(__name__)

SETTLE_SECONDS = 2.0


async def settle_point(in_probe: Any, bp_id: str) -> None:
    """Before point `bp_id` goes: every capture `in_probe` (capture/in_probe.py) took of it in the JVM is read."""
    await in_probe.drain_quietly()
    point = in_probe.ids.get(bp_id)
    bp = in_probe.bps.get(point) if point is not None else None
    vm = in_probe.vm
    if bp is None or vm is None or vm.conn is None or vm.conn.is_closed:
        return
    deadline = time.monotonic() + SETTLE_SECONDS
    try:
        while True:
            taken = (await vm.send(ArrayReference.GetValues, in_probe.arrays["TAKEN"], point, 1)).values[0].value
            missing = taken - bp.info.capture.taken
            if missing <= 0:
                return
            if time.monotonic() >= deadline or in_probe.session.threads.vm_holds:  # (all held: none comes)
                break
            await asyncio.sleep(0.01)
            await in_probe.drain_quietly()
    except (DebuggerError, JdwpTransportError, ConnectionError) as exc:
        log.debug("settling capture point %s: %s", bp_id, exc)
        return
    in_probe.session.history.add("error", f"{bp_id} was removed while the JVM was still taking {missing} of its "
                                 "captures (their threads are held or slow): those are not shown", Actor.TARGET,
                                 breakpoint=bp_id)
