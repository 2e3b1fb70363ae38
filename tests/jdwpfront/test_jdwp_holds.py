"""The guest's suspension book (jdwpfront/holds.py): what its resumes send, restricted to its own share."""

from __future__ import annotations

from tracepilot.jdwp import SuspendPolicy, ThreadReference, VirtualMachine
from tracepilot.jdwpfront.holds import GuestHolds

T1, T2 = 101, 102


def test_a_vm_resume_with_nothing_held_sends_nothing():
    assert GuestHolds().resume_vm() == []


def test_a_suspend_thread_event_is_released_by_vm_resume_on_that_thread_only():
    holds = GuestHolds()
    holds.event(SuspendPolicy.EVENT_THREAD, T1)
    assert holds.resume_vm() == [(ThreadReference.Resume, (T1,))]
    assert holds.count(T1) == 0 and not holds.holds_anything()


def test_a_suspend_all_event_is_released_once():
    holds = GuestHolds()
    holds.event(SuspendPolicy.ALL, T1)
    assert holds.resume_vm() == [(VirtualMachine.Resume, ())]
    assert holds.resume_vm() == []


def test_a_thread_resumed_alone_is_not_resumed_again_by_the_vm_resume():
    holds = GuestHolds()
    holds.event(SuspendPolicy.ALL, T1)
    assert holds.resume_thread(T1) == [(ThreadReference.Resume, (T1,))]
    assert holds.count(T1) == 0 and holds.count(T2) == 1
    assert holds.resume_thread(T1) == []  # nothing of the guest's left on it: the agent's holds stay
    # The VM-wide resume must not touch T1 again: it is suspended once more first.
    assert holds.resume_vm() == [(ThreadReference.Suspend, (T1,)), (VirtualMachine.Resume, ())]
    assert not holds.holds_anything() and holds.count(T1) == 0


def test_a_vm_resume_takes_one_suspension_off_each_thread():
    holds = GuestHolds()
    holds.suspend_vm()
    holds.suspend_thread(T1)
    assert holds.count(T1) == 2
    assert holds.resume_vm() == [(VirtualMachine.Resume, ())]
    assert holds.count(T1) == 1 and holds.count(T2) == 0
    assert holds.resume_vm() == [(ThreadReference.Resume, (T1,))]


def test_leaving_releases_everything_in_a_valid_order():
    holds = GuestHolds()
    holds.event(SuspendPolicy.ALL, T1)
    holds.suspend_vm()
    holds.suspend_thread(T2)
    holds.resume_thread(T1)
    sends = holds.release_everything()
    net = {T1: 0, T2: 0}
    counts = {T1: holds_count_before(T1), T2: holds_count_before(T2)}
    for command, args in sends:
        if command is VirtualMachine.Resume:
            for t in net:
                net[t] -= 1
        elif command is ThreadReference.Resume:
            net[args[0]] -= 1
        else:
            net[args[0]] += 1
    assert {t: counts[t] + net[t] for t in net} == {T1: 0, T2: 0}
    assert not holds.holds_anything()


def holds_count_before(thread: int) -> int:
    # vm 2, T2 one of its own, T1 one VM-wide suspension resumed alone
    return {T1: 1, T2: 3}[thread]
