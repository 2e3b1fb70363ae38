"""A foreign debugger on the session's one JDWP connection (a JDI client through the JDWP front end).

JDWP allows one debugger per JVM; the JDWP front end lets a second one (IntelliJ, Eclipse, jdb) share the
session's connection. The session stays the only one that talks to the JVM; this is what it must know of
the guest:

- the event requests the guest made (`own`): events of those requests are the guest's. `split` takes them out
  of a composite before the session sees it; the session's own requests' events never reach the guest. A
  composite holding events of both suspends once in the JVM: one more suspension is added for the guest,
  so each side owns one and resumes only its own;
- the guest's stops (thread -> what stopped it): shown in `status` and recorded in the history with the
  guest's name as the person's, so the agent sees who holds which thread;
- that the guest moved threads (`moved`): the session's cached frames are stale then.

The guest's suspensions are counted by the front end (jdwpfront/holds.py), never in the session's thread
book: the session's resume releases only what the session holds, so a thread the guest holds stays held.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..jdwp import EventKind, JdwpError, SuspendPolicy, ThreadReference, VirtualMachine, VMDisconnected
from ..jdwp.events import Composite
from .errors import DebuggerError
from .instrument.naming import is_probe_class
from .model import Actor, SuspendedThread
from .secrets import REDACTED

if TYPE_CHECKING:
    from ..jdwp import JdwpConnection

log = logging.getLogger(__name__)

# Events that stop a thread for the guest (what it would show as "suspended at ...").
GUEST_STOP_KINDS = frozenset({
    EventKind.BREAKPOINT, EventKind.SINGLE_STEP, EventKind.EXCEPTION, EventKind.FIELD_ACCESS,
    EventKind.FIELD_MODIFICATION, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT,
    EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
})


@dataclass
class GuestStop:
    thread: int
    thread_name: str | None
    what: str  # "breakpoint", "step", ...
    where: Any  # CodeLocation, or None while it is being looked up


class ForeignClient:
    """One guest debugger of a session (see the module doc). Made by `Debugger.foreign_client(name)`."""

    def __init__(self, session: Any, name: str, deliver: Callable[[Any], None]) -> None:
        self.session = session
        self.name = name
        self._deliver = deliver  # composite -> None: the guest's events, in arrival order
        self.requests: dict[int, int] = {}  # request id -> event kind
        self.stops: dict[int, GuestStop] = {}
        self.conn: JdwpConnection = session.require_vm().conn
        self.closed = False
        self.holds: Callable[[int], int] = lambda thread: 0  # the guest's suspensions of a thread (its front end's book)
        self._tasks: set[asyncio.Task[None]] = set()
        # (a probe stop's pop lends the guests' suspensions of its thread until it is parked: instrument/pops.py)
        session.breakpoints.in_jvm.pops.guest_holds = lambda thread: sum(
            g.holds(thread) for g in session.foreign if not g.closed)

    # -- requests --------------------------------------------------------------------------------------

    def own(self, request_id: int, kind: int) -> None:
        self.requests[request_id] = kind

    def disown(self, request_id: int) -> None:
        self.requests.pop(request_id, None)

    # -- events --------------------------------------------------------------------------------------

    def split(self, composite: Any) -> Any:
        """The part of `composite` the session handles (None: all of it was the guest's). Called for every
        event packet, in arrival order, before the session sees it."""
        if self.closed:
            return composite
        book = self.session.threads.records
        # The guest's events in a thread that runs a call for the session (an agent's evaluation at the guest's
        # stop) are the session's to suppress, as it does its own: the call must return.
        # And a probe class being prepared is none of the guest's business (the session resumes it by policy).
        mine = [e for e in composite.events if e.request_id in self.requests
                and not ((r := book.get(getattr(e, "thread", 0))) is not None and r.call)
                and not (type(e).KIND == EventKind.CLASS_PREPARE and is_probe_class(e.signature))]
        if not mine:
            deaths = [e for e in composite.events if type(e).KIND == EventKind.VM_DEATH and not e.request_id]
            if deaths:  # JDI expects the VM's own VMDeath event (request 0) too
                self._deliver(Composite(SuspendPolicy.NONE, deaths))
            return composite
        rest = [e for e in composite.events if not any(e is m for m in mine)]
        policy = composite.suspend_policy
        if rest and policy != SuspendPolicy.NONE:
            # One suspension in the JVM, two owners: add one so the guest and the session each resume their own.
            log.debug("an event packet for %s and the session: one more suspension (policy %s)", self.name, policy)
            thread = next((t for e in composite.events if (t := getattr(e, "thread", None))), None)
            if policy == SuspendPolicy.ALL:
                self.conn.send_unanswered(VirtualMachine.Suspend)
            elif thread:
                self.conn.send_unanswered(ThreadReference.Suspend, thread)
            self.conn.flush()
        if policy == SuspendPolicy.ALL:
            # Threads popped, on their way to parking, are suspended once more, by the guest's packet (the session
            # never sees it) or by the one added for the session's share (its take_held lets the packet's go).
            pops = self.session.breakpoints.in_jvm.pops
            if pops.parking:
                pops.suspended_all_elsewhere(self.conn)
        self._deliver(Composite(policy, mine))
        if policy != SuspendPolicy.NONE:
            for event in mine:
                if type(event).KIND in GUEST_STOP_KINDS:
                    self._note_stop(event)
        return Composite(policy, rest) if rest else None

    def _note_stop(self, event: Any) -> None:
        what = type(event).__name__.replace("SingleStep", "step").lower()
        stop = GuestStop(event.thread, None, what, None)
        self.stops[event.thread] = stop
        self._spawn(self._record_stop(stop, event.location))

    async def _record_stop(self, stop: GuestStop, location: Any) -> None:
        with contextlib.suppress(DebuggerError, JdwpError, VMDisconnected):
            vm = self.session.require_vm()
            stop.thread_name = await vm.thread_name(stop.thread)
            stop.where = await self.session.code_location(location)
        if not self.closed:  # (recorded even if the guest has resumed meanwhile: a step in a loop is fast)
            self.session.history.add("client_stop", f"{self.name}: {stop.what} in thread {stop.thread_name or stop.thread}"
                                     f" at {stop.where or 'an unknown place'}", Actor.PERSON, client=self.name,
                                     thread=stop.thread, location=str(stop.where) if stop.where else None)

    # -- what the guest did --------------------------------------------------------------------------------

    async def pop_frames(self, thread: int, frame_id: int) -> None:
        """The guest's StackFrame.PopFrames: one pop at a time under the session's pop lock, the thread parked
        outside the JDWP agent's pop code before this returns, held as many times as before (instrument/pops.py:
        a pop sent straight to the JVM beside another one could hang the agent). What the guest sees is JDWP's
        answer: the thread where the pop left it, suspended as before; the parking breakpoint's event is taken
        by the session (`take_held`) and never reaches the guest. Raises JdwpError as the JVM refused the pop,
        TargetError when another popped thread is still held on its way (popping now could hang the agent)."""
        try:
            await self.session.breakpoints.in_jvm.pops.pop_and_hold(self.session.require_vm(), thread, frame_id)
        finally:
            self.moved([])  # frames read before the pop are stale

    def resumes_past_parking(self, sends: list[Any]) -> list[Any]:
        """The guest's resumes (command, args) as sent to the JVM, none reaching a thread on its way to parking
        after a pop whose suspensions are lent (its share is given back there: instrument/pops.py)."""
        pops = self.session.breakpoints.in_jvm.pops
        if not pops.parking:
            return sends
        out: list[Any] = []
        for command, args in sends:
            if command is ThreadReference.Resume and pops.give_back(args[0]):
                continue
            if command is VirtualMachine.Resume:  # (one suspension more first: the resume leaves it as it is)
                out += [(ThreadReference.Suspend, (t,)) for t in pops.lending() if pops.give_back(t)]
            out.append((command, args))
        return out

    def moved(self, threads: list[int] | None) -> None:
        """The guest resumed these threads (None: every thread): their stops are over, frames are stale."""
        self.session.stop_generation += 1
        released = list(self.stops) if threads is None else [t for t in threads if t in self.stops]
        for thread in released:
            self.stops.pop(thread, None)

    def note(self, kind: str, text: str, **data: Any) -> None:
        self.session.history.add(kind, f"{self.name}: {text}", Actor.PERSON, client=self.name, **data)

    @property
    def read_only(self) -> bool:
        return bool(self.session.read_only)

    def is_probe_type(self, type_id: int) -> bool:
        return self.session.breakpoints.in_jvm.is_probe(type_id)

    def instrumented(self, type_ids: list[int]) -> list[str]:
        """Those of these classes whose bytes in the JVM carry the session's in-JVM probe calls (a guest's hot
        swap would throw them away behind the session's back)."""
        classes = self.session.breakpoints.in_jvm.classes
        return [record.name.replace("/", ".") for t in type_ids
                if (record := classes.get(t)) is not None and record.current is not None]

    def redact_string(self, object_id: int, text: str) -> str:
        """A string the guest reads, as --redact lets it out: a secret the session learned is hidden."""
        secrets = self.session.secrets
        if secrets is None:
            return text
        return REDACTED if secrets.is_secret_object(object_id) else secrets.scrub(text)

    def why_suspended(self, thread: int) -> str | None:
        """Why the guest holds this thread, if it does ("breakpoint of IDE at ...", "held by IDE")."""
        stop = self.stops.get(thread)
        if stop is not None:
            return f"{stop.what} of {self.name}" + (f" at {stop.where}" if stop.where else "")
        return f"held by {self.name}" if self.holds(thread) > 0 else None

    def suspended_threads(self) -> list[SuspendedThread]:
        return [SuspendedThread(s.thread, s.thread_name, f"held by {self.name}", self.why_suspended(s.thread) or "",
                                location=s.where)
                for s in self.stops.values()]

    # -- the end ---------------------------------------------------------------------------------------

    def close(self) -> None:
        self.closed = True
        self.requests.clear()
        self.stops.clear()
        with contextlib.suppress(ValueError):
            self.session.foreign.remove(self)
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

