"""PopFrames at probe stops, made safe with several threads: pop, then *park* the thread before it stops.

Why: the JDWP agent pops a frame by resuming the thread for one instruction step and has the thread wait,
inside the agent, for its command thread to suspend it again; the thread then stays suspended there, deep in
the agent's pop code, until it is resumed. Caught there holding the agent's pop lock (it is suspended while it
enters another agent lock that other threads contend for), it makes the next PopFrames of any other thread wait
for that lock forever: the agent's command thread never answers again and no thread moves (seen on JDK 17 and
25 with three threads stopping at one in-JVM condition, about one run in 25: the popped thread parked in
``popFrameCompleteEvent``, the next one blocked entering it, the command thread in ``threadControl_popFrames``).

So a popped thread never waits in the agent: a one-shot breakpoint on that thread, where the pop left it (the
probe's call, not run yet), takes it, and the event that had stopped it at the probe is resumed. The thread
leaves the agent's code and stops at once on the parking breakpoint, like at any breakpoint; that event is
the stop. One pop at a time, each until its thread is parked, so no PopFrames runs while another popped
thread may still be in the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...jdwp import EventKind, EventRequest, JdwpError, Mod, StackFrame, SuspendPolicy, ThreadReference

# Seconds the next pop waits at most for a parking thread. It parks at once when it runs; it may be held longer
# by a stop of another breakpoint that suspends all threads, or a pause, until they are resumed (a pop meanwhile
# could hang the agent, see above). Probe events hold their own thread only, so none of them holds it.
PARK_WAIT = 120.0


class Pops:
    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._parking: dict[int, tuple[int, Any]] = {}  # parking request -> (thread, what its event answers)
        self._timer: asyncio.TimerHandle | None = None
        self._holder: int | None = None  # the parking request the lock waits for

    def owns(self, request_id: int) -> bool:
        return request_id in self._parking

    async def pop_and_park(self, vm: Any, thread: int, frame_id: int, suspend_all: bool,
                           decide: Any) -> int:
        """Pop `frame_id` and the frames above it on the suspended `thread`, then call `decide()` (the thread
        still stands popped, suspended: its frames can be read, its expressions evaluated) for what the
        parking event answers (a stop, or None to let the thread go on); and set the parking breakpoint. The
        caller resumes the thread's event after this returns. Returns the parking request's id."""
        await self._lock.acquire()
        try:
            await vm.send(StackFrame.PopFrames, thread, frame_id)
            location = (await vm.send(ThreadReference.Frames, thread, 0, 1)).frames[0].location
            answer = await decide()
            policy = SuspendPolicy.ALL if suspend_all else SuspendPolicy.EVENT_THREAD
            mods = [Mod.ThreadOnly(thread), Mod.LocationOnly(location), Mod.Count(1)]
            request_id = (await vm.send(EventRequest.Set, EventKind.BREAKPOINT, policy, mods)).request_id
        except BaseException:
            self._lock.release()
            raise
        self._parking[request_id] = (thread, answer)
        self._holder = request_id
        self._timer = asyncio.get_running_loop().call_later(PARK_WAIT, self._unlock, request_id)
        return request_id

    async def parked(self, vm: Any, request_id: int) -> Any:
        """The parking breakpoint's event: the next pop may go; what the stop at the probe decided."""
        _thread, answer = self._parking.pop(request_id)
        self._unlock(request_id)
        with contextlib.suppress(JdwpError):  # (expired with its Count already)
            await vm.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
        return answer

    def _unlock(self, request_id: int | None) -> None:
        if request_id != self._holder:
            return  # (parked after its wait ran out: the lock went on to another pop)
        self._holder = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._lock.locked():
            self._lock.release()

    def forget(self) -> None:
        self._parking.clear()
        self._unlock(self._holder)
