"""Per-thread state and the suspensions the debugger holds, kept in one place (issue 16).

JDWP counts suspensions per thread: an event with suspend policy EVENT_THREAD adds one to its thread,
ALL (and VirtualMachine.Suspend) one to every thread, ThreadReference.Suspend one to its thread; each
Resume takes one away. The book mirrors what the debugger added, so whatever it suspends it resumes
exactly once, and `expected_count(t)` can be checked against ThreadReference.SuspendCount:

    expected = own + (vm_holds - credit) - call_debt      (never below 0, as in the JVM)

- `vm_holds`: VM-wide suspensions held (suspend-all stops, pause all);
- `own`: this thread's suspensions (a suspend-thread stop, pause of one thread, an event being handled);
- `credit`: VM-wide suspensions already undone for this thread alone (resume or step of one thread while
  the others stay suspended);
- `call_debt`: 1 while the thread runs a method call for the debugger (JDWP resumes the invoking thread
  once and suspends it again when the call returns).

This module computes the JDWP commands a release needs; the session sends them. State names and their
declared transitions are in states.py.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .model import StopKind, StopReason
from .states import ThreadState, thread_move

__all__ = ["Release", "ThreadBook", "ThreadRecord", "ThreadState"]


@dataclass
class ThreadRecord:
    id: int
    name: str | None = None
    state: ThreadState = ThreadState.RUNNING
    stop: StopReason | None = None  # the event (or pause) this thread is suspended by
    stop_vm_wide: bool = False  # the stop holds one VM-wide suspension (suspend all) rather than its own
    delivered: bool = False  # returned to a waiting call already
    arrival: int = 0  # order of arrival of the stop
    own: int = 0
    handling: int = 0  # of `own`: suspensions by events still being handled (not a stop yet, not releasable)
    credit: int = 0
    paused: bool = False  # suspended by the user (pause), with or without a stop of its own
    call: str | None = None  # "Ticker.spin()" while inside a call for the debugger
    call_timed_out: bool = False
    call_debt: int = 0
    call_extra: int = 0  # suspensions lifted for the call (JDWP runs it only at a suspend count of exactly 1)
    call_from: StopReason | None = None  # the stop the call was made from (it returns there)
    finished: bool = False


@dataclass
class Release:
    """JDWP commands that release suspensions, in the order they must be sent."""

    thread_suspends: list[int] = field(default_factory=list)  # re-align credited threads before VM.Resume
    thread_resumes: list[int] = field(default_factory=list)
    vm_resumes: int = 0

    def __bool__(self) -> bool:
        return bool(self.thread_suspends or self.thread_resumes or self.vm_resumes)


class ThreadBook:
    def __init__(self) -> None:
        self.records: dict[int, ThreadRecord] = {}
        self.vm_holds = 0
        self.vm_handling = 0  # of vm_holds: suspend-all events still being handled (not releasable)
        self._arrivals = itertools.count(1)

    # -- reading -------------------------------------------------------------------------------------

    def get(self, thread_id: int) -> ThreadRecord:
        record = self.records.get(thread_id)
        if record is None:
            record = self.records[thread_id] = ThreadRecord(thread_id)
        return record

    def expected_count(self, thread_id: int) -> int:
        """The suspend count the debugger believes it has put on this thread (ThreadReference.SuspendCount)."""
        r = self.records.get(thread_id)
        if r is None:
            return self.vm_holds
        if r.finished:
            return 0
        return max(0, r.own + self.vm_holds - r.credit - r.call_debt)

    def stops(self) -> list[ThreadRecord]:
        """Threads suspended by a stop of their own, in order of arrival."""
        stopped = [r for r in self.records.values() if r.stop is not None and not r.finished]
        if len(stopped) > 1:  # (asked several times a stop: usually of one thread)
            stopped.sort(key=_arrival)
        return stopped

    def undelivered(self) -> list[ThreadRecord]:
        pending = [r for r in self.records.values() if r.stop is not None and not r.finished and not r.delivered]
        if len(pending) > 1:
            pending.sort(key=_arrival)
        return pending

    def undelivered_count(self, other_than: StopReason | None = None) -> int:
        """How many stops no call has returned yet, `other_than` not counted (len(undelivered()), no list)."""
        count = 0
        for r in self.records.values():
            if r.stop is not None and r.stop is not other_than and not r.finished and not r.delivered:
                count += 1
        return count

    def suspended(self) -> list[ThreadRecord]:
        """Every known thread the debugger holds suspended (or inside a call), with or without a stop."""
        return [r for r in self.records.values()
                if not r.finished and (self.expected_count(r.id) > 0 or r.stop is not None or r.call)]

    def describe(self, thread_id: int) -> str:
        r = self.records.get(thread_id)
        if r is None:
            return "unknown to the debugger" + (" (held by a suspend-all stop)" if self.vm_holds else "")
        return why_suspended(r, self) or r.state.value

    # -- changes -------------------------------------------------------------------------------------

    def _settle(self, r: ThreadRecord, why: str) -> None:
        """Move the thread to the state its holds and stop say it is in (through the declared transitions)."""
        if r.finished:
            new = ThreadState.FINISHED
        elif r.call and r.call_debt and not (r.stop is not None and r.stop.kind is StopKind.PAUSE):
            new = ThreadState.INVOKING
        elif r.stop is not None and r.stop.kind is not StopKind.PAUSE:
            new = ThreadState.STOPPED
        elif r.paused or (r.stop is not None and r.stop.kind is StopKind.PAUSE):
            new = ThreadState.PAUSED
        elif self.expected_count(r.id) > 0:
            new = ThreadState.HELD
        else:
            new = ThreadState.RUNNING
        if new is not r.state:  # (staying is always allowed: no check, on every thread at every stop)
            r.state = thread_move(r.state, new, why)

    def settle_all(self, why: str) -> None:
        for r in list(self.records.values()):
            self._settle(r, why)

    def thread_started(self, thread_id: int, name: str | None) -> None:
        r = self.get(thread_id)
        r.name = name
        # The JDWP agent suspends a thread that starts while the VM is suspended as often as the VM is
        # (its suspend-all count), so a new thread shares the VM-wide holds: no credit.
        self._settle(r, "thread start")

    def thread_ended(self, thread_id: int) -> None:
        r = self.records.get(thread_id)
        if r is None:
            return
        r.stop = None
        r.finished = True
        self._settle(r, "thread death")
        del self.records[thread_id]

    def event_suspended(self, thread_id: int | None, vm_wide: bool) -> None:
        """An event arrived that suspended its thread (or all threads): counted until resumed or kept."""
        if vm_wide:
            self.vm_holds += 1
            self.vm_handling += 1
        elif thread_id:
            r = self.get(thread_id)
            r.own += 1
            r.handling += 1

    def event_resumed(self, thread_id: int | None, vm_wide: bool) -> None:
        """The event's suspension was resumed again (monitoring event, false condition, logpoint)."""
        if vm_wide:
            self.vm_holds = max(0, self.vm_holds - 1)
            self.vm_handling = max(0, self.vm_handling - 1)
        elif thread_id:
            r = self.get(thread_id)
            r.own = max(0, r.own - 1)
            r.handling = max(0, r.handling - 1)

    def event_kept(self, thread_id: int | None, vm_wide: bool) -> None:
        """The event's suspension now belongs to a stop: a resume may release it."""
        if vm_wide:
            self.vm_handling = max(0, self.vm_handling - 1)
        elif thread_id:
            r = self.get(thread_id)
            r.handling = max(0, r.handling - 1)

    def convert_to_vm_wide(self, thread_id: int) -> None:
        """A suspend-thread event became a suspend-all stop: VM.Suspend added, the event's own one resumed."""
        self.vm_holds += 1
        r = self.get(thread_id)
        r.own = max(0, r.own - 1)
        r.handling = max(0, r.handling - 1)

    def add_stop(self, thread_id: int, reason: StopReason, vm_wide: bool, why: str) -> ThreadRecord:
        """The thread is suspended by this stop (its hold was counted by event_suspended/pause already)."""
        r = self.get(thread_id)
        if reason.thread_name:
            r.name = reason.thread_name
        r.stop = reason
        r.stop_vm_wide = vm_wide
        r.delivered = False
        r.arrival = next(self._arrivals)
        if vm_wide:
            self.settle_all(why)  # (this thread with the others)
        else:
            self._settle(r, why)
        return r

    def pause_all(self) -> None:
        self.vm_holds += 1
        for r in self.records.values():
            if (r.stop is None or r.call) and not r.finished:  # (a call must not lift the pause for itself)
                r.paused = True
        self.settle_all("pause all")

    def pause_thread(self, thread_id: int) -> ThreadRecord:
        r = self.get(thread_id)
        r.own += 1
        r.paused = True
        self._settle(r, "pause thread")
        return r

    def call_started(self, thread_id: int, what: str, extra: int = 0) -> None:
        """The thread runs a call: JDWP resumes it once; `extra` more suspensions were lifted before."""
        r = self.get(thread_id)
        r.call = what
        r.call_extra = extra
        r.call_debt = 1 + extra
        r.call_timed_out = False
        r.call_from = r.stop
        self._settle(r, "invoke")

    def call_timed_out(self, thread_id: int) -> None:
        r = self.get(thread_id)
        r.call_timed_out = True
        self._settle(r, "invoke timed out")

    def call_returned(self, thread_id: int) -> tuple[bool, int]:
        """The call is over (the JVM suspended the thread once again). Returns (orphan, extra): orphan when
        that suspension must be resumed because the stop the call was made from was released meanwhile;
        else `extra` suspensions lifted for the call must be put back."""
        r = self.records.get(thread_id)
        if r is None:
            return False, 0
        extra = r.call_extra
        r.call = None
        r.call_debt = 0
        r.call_extra = 0
        r.call_timed_out = False
        # (A call made while the thread's event is handled -- a condition, a logpoint -- has no stop to be
        # released: what it lifted, e.g. another thread's suspend-all event, goes back. Dropped, that event's
        # Resume left the thread running in the middle of its breakpoint's condition.)
        released = r.call_from is None and r.stop is None and not r.handling
        if r.call_from is not None and r.stop is None:
            r.stop = r.call_from
        r.call_from = None
        orphan = released and self.expected_count(thread_id) == 0
        extra = 0 if released else extra  # released: the holds the lifted suspensions stood for went with the stop
        self._settle(r, "invoke returned")
        return orphan, extra

    # -- releasing -------------------------------------------------------------------------------------

    def release_thread(self, thread_id: int) -> Release:
        """Everything the debugger holds on this one thread, the others untouched (resume/step one thread)."""
        r = self.get(thread_id)
        release = Release()
        before = self.expected_count(thread_id)
        r.own = r.handling  # an event of this thread still being handled keeps its suspension
        r.credit = max(r.credit, self.vm_holds - self.vm_handling)
        release.thread_resumes = [thread_id] * max(0, before - self.expected_count(thread_id))
        r.stop = None
        r.call_from = None
        r.delivered = False
        r.paused = False
        self._settle(r, "resume thread")
        return release

    def release_all(self, keep: set[int]) -> Release:
        """Everything the debugger holds, except the stops of the threads in `keep` (stops not delivered yet)."""
        release = Release()
        kept_vm = sum(1 for t in keep if (r := self.records.get(t)) is not None and r.stop_vm_wide) if keep else 0
        to_release = max(0, self.vm_holds - kept_vm - self.vm_handling)
        for r in self.records.values():
            if r.finished:
                continue
            if r.id not in keep and r.own > r.handling:
                releasable = r.own - r.handling
                release.thread_resumes += [r.id] * min(releasable, self.expected_count(r.id))
                r.own = r.handling
            if r.credit and to_release:
                realign = min(r.credit, to_release)
                release.thread_suspends += [r.id] * realign
                r.credit -= realign
        release.vm_resumes = to_release
        self.vm_holds -= to_release
        for r in list(self.records.values()):
            if r.id not in keep:
                r.stop = None
                r.call_from = None
                r.delivered = False
                r.paused = False
            self._settle(r, "resume all")
        return release

    def forget(self) -> None:
        """The VM is gone: nothing is held any more."""
        for r in self.records.values():
            r.finished = True
            r.stop = None
        self.settle_all("VM gone")
        self.records.clear()
        self.vm_holds = 0


def why_suspended(r: ThreadRecord, book: ThreadBook) -> str | None:
    """One phrase: why this thread is not running ("breakpoint bp-1 (hit 2)", "paused", "inside a call …")."""
    if r.call and r.call_debt:
        late = " (did not return in time; pause suspends it)" if r.call_timed_out else ""
        return f"inside a call to {r.call}{late}"
    if r.stop is not None:
        return stop_phrase(r.stop)
    if r.paused:
        return "paused"
    if book.expected_count(r.id) > 0:
        return "held: suspended with all threads by a suspend-all stop"
    return None


def stop_phrase(stop: StopReason) -> str:
    """A stop without the thread it belongs to: "breakpoint bp-1 (hit 2) at com.acme.Foo.bar(Foo.java:7)"."""
    text = stop.headline().removeprefix("STOPPED").strip()
    where, sep, why = text.partition(" — ")
    if not sep:
        why, where = where.strip(" —"), ""
    if stop.thread_name:
        why = why.replace(f", thread {stop.thread_name}", "", 1)
    return f"{why} {where}".strip()


# -- a thread's state in words (issue 29): one description every front end shows ------------------------


def stop_words(stop: StopReason) -> str:
    """What a stop is, after "suspended ": "at a breakpoint (bp-1, hit 3)", "after a step", "at an exception …"."""
    kind = stop.kind
    if kind is StopKind.BREAKPOINT:
        if stop.breakpoint_id is None and stop.run_to:
            return f"where run to {stop.run_to} went"
        hit = f", hit {stop.hit_count}" if stop.hit_count else ""
        return f"at a breakpoint ({stop.breakpoint_id}{hit})"
    tag = f", {stop.breakpoint_id}" if stop.breakpoint_id else ""
    if kind is StopKind.EXCEPTION:
        name = stop.exception.class_name if stop.exception is not None else "an exception"
        return f"at an exception ({name}{tag})"
    return {
        StopKind.STEP: "after a step",
        StopKind.WATCHPOINT_ACCESS: f"at a read of {stop.field}" + (f" ({stop.breakpoint_id})" if tag else ""),
        StopKind.WATCHPOINT_MODIFY: f"at a write of {stop.field}" + (f" ({stop.breakpoint_id})" if tag else ""),
        StopKind.METHOD_ENTRY: f"at a method entry ({stop.breakpoint_id})",
        StopKind.METHOD_EXIT: f"at a method exit ({stop.breakpoint_id})",
        StopKind.VM_START: "at the VM's start",
        StopKind.PAUSE: "by a pause",
    }.get(kind, f"by a {kind.value} stop")


def stop_label(stop: StopReason) -> str:
    """A stop in a word or two, for "held by main's stop (bp-1)": the breakpoint id, "step", "pause"…"""
    if stop.breakpoint_id:
        return stop.breakpoint_id
    return {StopKind.STEP: "step", StopKind.PAUSE: "pause", StopKind.EXCEPTION: "exception",
            StopKind.VM_START: "VM start"}.get(stop.kind, "run to" if stop.run_to else stop.kind.value)


def holder_of(book: ThreadBook, thread_id: int, current: StopReason | None) -> ThreadRecord | None:
    """The thread whose suspend-all stop holds this one (the current stop's when it is one)."""
    holders = [r for r in book.stops() if r.stop_vm_wide and r.id != thread_id]
    for r in holders:
        if current is not None and r.stop is current:
            return r
    return holders[0] if holders else None


def thread_description(r: ThreadRecord | None, book: ThreadBook, jdwp_state: str, suspended: bool,
                       current: StopReason | None) -> tuple[str, bool]:
    """(words, waiting): "suspended at a breakpoint (bp-1, hit 3)", "paused", "held by main's stop (bp-1)",
    "running inside a call to Ticker.spin()", else the JVM's word ("running", "sleeping", "waiting"…).
    `waiting`: the thread's stop has not been answered yet (the next resume, step or wait hands it out first)."""
    waiting = bool(r is not None and r.stop is not None and not r.delivered and r.stop is not current)
    suffix = ", waiting to be answered" if waiting else ""
    if r is not None and r.call and r.call_debt:
        return f"running {why_suspended(r, book)}", False  # "running inside a call to Ticker.spin() …"
    if r is not None and r.stop is not None and r.stop.kind is not StopKind.PAUSE:
        return f"suspended {stop_words(r.stop)}{suffix}", waiting
    if r is not None and (r.paused or r.stop is not None):
        return f"paused{suffix}", waiting
    held = book.expected_count(r.id) > 0 if r is not None else suspended and book.vm_holds > 0
    if held:
        holder = holder_of(book, r.id if r is not None else 0, current)
        if holder is None or holder.stop is None:
            return "held: suspended with all threads", False
        return f"held by {holder.name or holder.id}'s stop ({stop_label(holder.stop)})", False
    if suspended:
        return "suspended (not by this debugger)", False
    return jdwp_state, False


def _arrival(record: ThreadRecord) -> int:
    return record.arrival
