"""resume -> stop asks the JVM only what the stop's answer shows and cannot know yet (issue 32): counted on a
real JVM, never timed."""

from __future__ import annotations

from collections import Counter

import pytest
from _inspect_support import stop_at

from tracepilot.jdwp import JdwpConnection

pytestmark = pytest.mark.timeout(90)


async def test_a_stop_after_resume_makes_one_request_of_each_kind_it_needs(debugger, jvm_factory, line_of,
                                                                            monkeypatch):
    sent: list[str] = []
    request = JdwpConnection._request  # every request: sent now, or made at a place held in the write queue

    def counted(conn, command, *args, **kwargs):
        sent.append(getattr(command, "name", str(command)))
        return request(conn, command, *args, **kwargs)

    await stop_at(debugger, jvm_factory, "Playground", line_of("loop-body"), "100000", "nosleep")
    for _ in range(4):  # past the worker thread's start (i == 2): what never changes is known by now
        await debugger.resume(timeout=20)
    monkeypatch.setattr(JdwpConnection, "_request", counted)
    reads = debugger.session.inspector.stop_reads
    for _ in range(3):
        await reads.settled()
        sent.clear()
        result = await debugger.resume(timeout=20)
        await reads.settled()  # the stop's reads are made just after resume answers
        assert result.stopped and result.stop.location.line == line_of("loop-body"), result.headline()
        for _ in range(sent.count("ThreadReference.ThreadGroup")):
            # A JVM thread started meanwhile (the JVM starts some when it likes): its ThreadStart event's
            # handler asks its name and group (a stop never asks a group). Not the stop's requests.
            sent.remove("ThreadReference.ThreadGroup")
            if "ThreadReference.Name" in sent:
                sent.remove("ThreadReference.Name")
        # Resume; the top frame and the depth (one burst); the frame's locals; what the answer shows of the
        # `args` array's elements and of `p`'s fields. An array's length and a type are asked once, ever.
        assert Counter(sent) == Counter(["VirtualMachine.Resume", "ThreadReference.Frames", "ThreadReference.FrameCount",
                                         "StackFrame.GetValues", "ArrayReference.GetValues",
                                         "ObjectReference.GetValues"]), sent
    names = {v.name: v.value.text for v in await debugger.locals()}
    assert names["args"] == 'java.lang.String[2] ["100000", "nosleep"]', names
