"""The suspensions a guest debugger holds, counted so that its resumes release only its own.

JDWP counts suspensions per thread and the JVM does not know who added which. The session and the guest share
one connection, so each keeps its own book: the session's thread book (core/threads.py), and this one for the
guest. The guest's count on a thread is

    count(t) = threads[t] + vm - credit[t]

- `vm`: VM-wide suspensions the guest added (VirtualMachine.Suspend, its suspend-all events);
- `threads[t]`: the guest's own suspensions of one thread (ThreadReference.Suspend, its suspend-thread events);
- `credit[t]`: VM-wide suspensions the guest already resumed for this thread alone (ThreadReference.Resume on a
  thread held only by a VM-wide suspension).

Each guest command becomes the JDWP commands that do to the JVM what it asked, restricted to its own share:
VirtualMachine.Resume takes one suspension off every thread the guest holds, and none off a thread it does not
hold (a stop the agent holds stays). Nothing here does I/O: the methods return the commands to send, in order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..jdwp import SuspendPolicy, ThreadReference, VirtualMachine

Send = tuple[Any, tuple[Any, ...]]  # (command, args)


class GuestHolds:
    def __init__(self) -> None:
        self.vm = 0
        self.threads: Counter[int] = Counter()
        self.credit: Counter[int] = Counter()

    def count(self, thread: int) -> int:
        return max(0, self.threads[thread] + self.vm - self.credit[thread])

    def holds_anything(self) -> bool:
        return self.vm > 0 or any(n > 0 for n in self.threads.values())

    # -- suspensions the guest adds ---------------------------------------------------------------------

    def event(self, policy: int, thread: int | None) -> None:
        """One of the guest's events arrived, suspending per its policy."""
        if policy == SuspendPolicy.ALL:
            self.vm += 1
        elif policy == SuspendPolicy.EVENT_THREAD and thread:
            self.threads[thread] += 1

    def suspend_vm(self) -> None:
        self.vm += 1

    def suspend_thread(self, thread: int) -> None:
        self.threads[thread] += 1

    # -- releases -----------------------------------------------------------------------------------------

    def resume_vm(self) -> list[Send]:
        """VirtualMachine.Resume as the guest meant it: one suspension less on every thread it holds."""
        sends: list[Send] = []
        if self.vm > 0:
            for thread in [t for t, c in self.credit.items() if c > 0]:
                if self.vm - self.credit[thread] > 0:
                    continue  # the VM-wide resume takes this thread's one suspension
                # The guest holds this thread by VM-wide suspensions it already resumed for it alone: the
                # VM-wide resume must not touch it. Its own thread suspension goes instead, if it has one.
                self.credit[thread] -= 1
                if self.threads[thread] > 0:
                    self.threads[thread] -= 1
                else:
                    sends.append((ThreadReference.Suspend, (thread,)))
            sends.append((VirtualMachine.Resume, ()))
            self.vm -= 1
        else:
            for thread in [t for t, c in self.threads.items() if c > 0]:
                self.threads[thread] -= 1
                sends.append((ThreadReference.Resume, (thread,)))
        self._tidy()
        return sends

    def resume_thread(self, thread: int) -> list[Send]:
        """ThreadReference.Resume: one of the guest's suspensions of this thread, or nothing if it holds none."""
        if self.threads[thread] > 0:
            self.threads[thread] -= 1
        elif self.vm - self.credit[thread] > 0:
            self.credit[thread] += 1
        else:
            return []
        self._tidy()
        return [(ThreadReference.Resume, (thread,))]

    def release_everything(self) -> list[Send]:
        """The guest leaves: every suspension it holds goes."""
        sends: list[Send] = []
        while self.holds_anything():
            sends += self.resume_vm()
        self.credit.clear()
        return sends

    def forget_thread(self, thread: int) -> None:
        self.threads.pop(thread, None)
        self.credit.pop(thread, None)

    def _tidy(self) -> None:
        for book in (self.threads, self.credit):
            for thread in [t for t, c in book.items() if c <= 0]:
                del book[thread]
