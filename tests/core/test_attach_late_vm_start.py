"""Attach to a JVM started with suspend=y whose VMStart event comes late (a loaded machine): attach still answers
"stopped at the VM's start", so the next resume runs the program instead of returning that start as its stop
(once under heavy CI load: `classes fixtures.*` at what the test took for a breakpoint found no class)."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.model import StopKind
from tracepilot.jdwp.commands import ThreadReference
from tracepilot.jdwp.connection import JdwpConnection
from tracepilot.jdwp.constants import EventKind
from tracepilot.jdwp.packets import CommandPacket

pytestmark = pytest.mark.timeout(60)
LATE = 3.0  # seconds the VMStart packet is held back: longer than the 2 s the attach used to give it


@pytest.fixture
def late_vm_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine, replayed: the debugger looks at the threads in the moment between the agent accepting the
    connection and its suspending them for VMStart (they read as running), and the VMStart packet then comes LATE
    seconds after it arrived. The JVM is real; only the timing is stretched."""
    dispatch, send = JdwpConnection._dispatch, JdwpConnection.send
    held = asyncio.Event()  # set once the held VMStart was handed on

    def late_dispatch(self: JdwpConnection, packet) -> None:  # noqa: ANN001
        if isinstance(packet, CommandPacket) and not held.is_set():  # a command from the VM: an event composite
            composite = self.codec.decode_events(packet)
            if any(type(e).KIND == EventKind.VM_START for e in composite.events):
                def hand_on() -> None:
                    held.set()
                    dispatch(self, packet)
                asyncio.get_running_loop().call_later(LATE, hand_on)
                return
        dispatch(self, packet)

    async def running_until_then(self: JdwpConnection, command, *args, **kwargs):  # noqa: ANN001, ANN202
        reply = await send(self, command, *args, **kwargs)
        if command is ThreadReference.Status and not held.is_set():
            reply = reply._replace(suspend_status=0)
        return reply

    monkeypatch.setattr(JdwpConnection, "_dispatch", late_dispatch)
    monkeypatch.setattr(JdwpConnection, "send", running_until_then)


async def test_attach_waits_for_a_late_vm_start_and_resume_runs_the_program(late_vm_start, debugger, jvm_factory,
                                                                              line_of):
    jvm = jvm_factory("Findings", "0")
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.state.value == "STOPPED" and status.stop.kind is StopKind.VM_START, status
    await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
    result = await debugger.resume(timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()
    assert "fixtures.Findings" in [c.name for c in await debugger.classes("fixtures.*")]


async def test_a_vm_start_after_attach_answered_running_lets_the_program_run(late_vm_start, debugger, jvm_factory,
                                                                              line_of, monkeypatch):
    """Where the look at the threads cannot tell (attach answered "running"), the VMStart that comes after that
    answer does not become the stop of the next `resume`: the program runs on, as attach said, and the resume
    answers with the program's breakpoint."""
    from tracepilot.core.session.lifecycle import Lifecycle

    async def looks_running(self) -> bool:  # noqa: ANN001
        return False

    monkeypatch.setattr(Lifecycle, "_all_threads_suspended", looks_running)
    jvm = jvm_factory("Findings", "0")
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.state.value == "RUNNING", status
    await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
    result = await debugger.resume(timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()
    assert any(r.kind == "vm_start_late" for r in debugger.history.since(0))


async def test_a_vm_start_on_its_way_while_main_cannot_be_counted_is_waited_for(late_vm_start, debugger, jvm_factory,
                                                                                 line_of, monkeypatch):
    """The real window on a loaded machine: the agent has not suspended anything yet, so JDWP refuses to count
    main's frames (THREAD_NOT_SUSPENDED). The program's launcher has not run either (no LauncherHelper), so
    attach waits for the VMStart on its way and answers the VM's start."""
    from tracepilot.jdwp.errors import ThreadNotSuspended

    send = JdwpConnection.send  # (the fixture's: Status reads as running until the VMStart is handed on)

    async def not_countable(self: JdwpConnection, command, *args, **kwargs):  # noqa: ANN001, ANN202
        if command is ThreadReference.FrameCount and not any(
                type(e).KIND == EventKind.VM_START for c in self.queued_events() if c for e in c.events):
            raise ThreadNotSuspended(13, "FrameCount")
        return await send(self, command, *args, **kwargs)

    monkeypatch.setattr(JdwpConnection, "send", not_countable)
    jvm = jvm_factory("Findings", "0")
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.state.value == "STOPPED" and status.stop.kind is StopKind.VM_START, status


async def test_a_running_program_is_not_taken_for_one_at_its_start(debugger, jvm_factory, monkeypatch):
    """A program that runs (suspend=n): main's frames can't be counted while it runs, but its launcher has run,
    so attach answers "running" at once, without waiting for a VMStart that never comes."""
    waited: list[float] = []
    wait_for_queued = JdwpConnection.wait_for_queued

    async def spy(self: JdwpConnection, match, timeout: float) -> bool:  # noqa: ANN001
        waited.append(timeout)
        return await wait_for_queued(self, match, timeout)

    monkeypatch.setattr(JdwpConnection, "wait_for_queued", spy)
    jvm = jvm_factory("Playground", "100000", suspend=False)
    jvm.wait_for_output("playground started", timeout=20)
    status = await debugger.attach(jvm.address, timeout=10)
    assert status.state.value == "RUNNING", status
    assert waited == [], "attach waited for a VMStart of a running program"
