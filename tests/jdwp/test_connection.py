"""The JDWP client against real JVMs (17 and 25) and against wrong peers."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from tracepilot.jdwp import (
    ClassType,
    ConnectError,
    EventKind,
    EventRequest,
    HandshakeError,
    InvokeOptions,
    JdwpConnection,
    Location,
    Method,
    Mod,
    ReferenceType,
    StackFrame,
    StringReference,
    SuspendPolicy,
    Tag,
    ThreadReference,
    Value,
    VirtualMachine,
    VMDisconnected,
)
from tracepilot.jdwp.errors import InvalidObject

pytestmark = pytest.mark.timeout(60)


async def _connect(jvm) -> JdwpConnection:
    return await JdwpConnection.connect(jvm.host, jvm.port, timeout=10)


async def _stop_at(conn, class_name: str, line: int):
    """Resume from VM start to a breakpoint at class:line; returns (breakpoint event, class id, method)."""
    events = conn.events().__aiter__()
    assert type((await anext(events)).events[0]).__name__ == "VMStart"
    await conn.send(EventRequest.Set, EventKind.CLASS_PREPARE, SuspendPolicy.ALL, [Mod.ClassMatch(class_name)])
    await conn.send(VirtualMachine.Resume)
    prepared = (await anext(events)).events[0]
    methods = (await conn.send(ReferenceType.MethodsWithGeneric, prepared.type_id)).declared
    tables = await asyncio.gather(*(conn.send(Method.LineTable, prepared.type_id, m.method_id) for m in methods))
    method, index = next((m, e.line_code_index) for m, t in zip(methods, tables, strict=True)
                         for e in t.lines if e.line_number == line)
    bp = await conn.send(EventRequest.Set, EventKind.BREAKPOINT, SuspendPolicy.ALL,
                         [Mod.LocationOnly(Location(1, prepared.type_id, method.method_id, index))])
    await conn.send(VirtualMachine.Resume)
    hit = await anext(events)
    return hit, prepared.type_id, method, bp.request_id, events


async def test_handshake_version_classes_threads(jvm_factory, jdk):
    jvm = jvm_factory("Values", jdk=jdk)
    conn = await _connect(jvm)
    try:
        version = await conn.send(VirtualMachine.Version)
        assert version.jdwp_major == int(jdk)
        assert conn.sizes.object in (4, 8)
        caps = await conn.send(VirtualMachine.CapabilitiesNew)
        assert caps.can_watch_field_modification
        strings = (await conn.send(VirtualMachine.ClassesBySignature, "Ljava/lang/String;")).classes
        assert len(strings) == 1
        all_classes = (await conn.send(VirtualMachine.AllClassesWithGeneric)).classes
        assert any(c.signature == "Ljava/lang/Object;" for c in all_classes)
        threads = (await conn.send(VirtualMachine.AllThreads)).threads
        names = await asyncio.gather(*(conn.send(ThreadReference.Name, t) for t in threads))
        assert "main" in {n.thread_name for n in names}
        if int(jdk) >= 21:
            assert not (await conn.send(ThreadReference.IsVirtual, threads[0])).is_virtual
    finally:
        await conn.close()


async def test_breakpoint_frames_variables_strings_invoke(jvm_factory, jdk, line_of):
    jvm = jvm_factory("Values", jdk=jdk)
    conn = await _connect(jvm)
    try:
        hit, class_id, method, request_id, _events = await _stop_at(conn, "fixtures.Values", line_of("values"))
        assert hit.suspend_policy == SuspendPolicy.ALL
        event = hit.events[0]
        assert type(event).KIND == EventKind.BREAKPOINT and event.request_id == request_id
        frames = (await conn.send(ThreadReference.Frames, event.thread, 0, -1)).frames
        assert frames[0].location.class_id == class_id
        variables = (await conn.send(Method.VariableTableWithGeneric, class_id, method.method_id)).slots
        by_name = {v.name: v for v in variables if v.code_index <= event.location.index < v.code_index + v.length}
        wanted = [n for n in by_name if by_name[n].signature == "Ljava/lang/String;"]
        values = (await conn.send(StackFrame.GetValues, event.thread, frames[0].frame_id,
                                  [(by_name[n].slot, ord("L")) for n in wanted])).values
        texts = {(await conn.send(StringReference.Value, v.value)).string_value for v in values if v.value}
        assert "a\x00b\U0001F600" in texts  # NUL and emoji survive modified UTF-8
        # Invoke String.valueOf(int) in the target.
        string_class = (await conn.send(VirtualMachine.ClassesBySignature, "Ljava/lang/String;")).classes[0].type_id
        value_of = next(m for m in (await conn.send(ReferenceType.Methods, string_class)).declared
                        if m.name == "valueOf" and m.signature == "(I)Ljava/lang/String;")
        result = await conn.send(ClassType.InvokeMethod, string_class, event.thread, value_of.method_id,
                                 [Value.int(42)], InvokeOptions.SINGLE_THREADED)
        assert result.return_value.tag == Tag.STRING and not result.exception.value
        assert (await conn.send(StringReference.Value, result.return_value.value)).string_value == "42"
        # A round trip through CreateString keeps NUL and emoji too.
        created = await conn.send(VirtualMachine.CreateString, "x\x00y\U0001F680")
        assert (await conn.send(StringReference.Value, created.string_object)).string_value == "x\x00y\U0001F680"
        await conn.send(EventRequest.Clear, EventKind.BREAKPOINT, request_id)
        with pytest.raises(InvalidObject):
            await conn.send(StringReference.Value, 0x7FFF_FFFF)
    finally:
        await conn.close()


async def test_pipelined_requests_are_matched_by_id(jvm_factory):
    jvm = jvm_factory("Values")
    conn = await _connect(jvm)
    try:
        replies = await asyncio.gather(*(conn.send(VirtualMachine.ClassesBySignature, sig) for sig in
                                         ["Ljava/lang/String;", "Ljava/lang/Object;", "Lno/Such;"] * 50))
        assert [len(r.classes) for r in replies[:3]] == [1, 1, 0]
        assert all(replies[i] == replies[i % 3] for i in range(150))
    finally:
        await conn.close()


async def test_vm_death_is_noticed_at_once_by_every_waiter(jvm_factory, jdk):
    jvm = jvm_factory("Playground", jdk=jdk)
    conn = await _connect(jvm)
    events = conn.events().__aiter__()
    await anext(events)  # VMStart
    await conn.send(VirtualMachine.Resume)
    pending = asyncio.ensure_future(anext(events, None))
    started = time.monotonic()
    jvm.kill()
    await asyncio.wait_for(conn.wait_closed(), 5)
    assert time.monotonic() - started < 2
    with pytest.raises(VMDisconnected):
        await conn.send(VirtualMachine.Version)
    await asyncio.wait_for(pending, 2)


async def test_request_timeout_does_not_corrupt_the_stream(jvm_factory):
    jvm = jvm_factory("Values")
    conn = await _connect(jvm)
    try:
        with pytest.raises(TimeoutError, match="did not answer"):
            await conn.send(VirtualMachine.AllClasses, timeout=0)
        assert (await conn.send(VirtualMachine.Version)).jdwp_major >= 17
    finally:
        await conn.close()


def _serve_once(behaviour: str) -> tuple[int, threading.Thread]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def run() -> None:
        client, _ = server.accept()
        with client:
            if behaviour == "http":
                client.recv(100)
                client.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            elif behaviour == "wrong":
                client.recv(100)
                client.sendall(b"JDWP-Handshakx")
            elif behaviour == "silent":
                client.recv(100)
                time.sleep(1.5)
        server.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return server.getsockname()[1], thread


async def test_wrong_peers_give_clear_errors_within_the_timeout(free_port):
    with pytest.raises(ConnectError, match="refused"):
        await JdwpConnection.connect("127.0.0.1", free_port(), timeout=1)
    for behaviour, pattern in [("http", "not a JDWP agent"), ("wrong", "instead of the JDWP handshake"),
                               ("silent", "sent no JDWP handshake")]:
        port, thread = _serve_once(behaviour)
        started = time.monotonic()
        with pytest.raises(HandshakeError, match=pattern):
            await JdwpConnection.connect("127.0.0.1", port, timeout=0.5)
        assert time.monotonic() - started < 1.5
        thread.join(3)


async def test_a_held_place_is_answered_before_what_was_sent_after_it(jvm_factory):
    """A stop's reads hold their place in the write queue and are made later (core/inspect/stop_reads.py):
    whatever is sent meanwhile waits, and the JVM answers the place's requests first."""
    jvm = jvm_factory("Values")
    conn = await _connect(jvm)
    try:
        answered: list[str] = []
        place = conn.hold_place()
        after = conn.send_nowait(VirtualMachine.Version)
        after.add_done_callback(lambda _f: answered.append("sent after"))
        await asyncio.sleep(0)  # a turn of the event loop: nothing may leave past the held place
        await asyncio.sleep(0)
        made = place.send_nowait(VirtualMachine.ClassesBySignature, "Ljava/lang/String;")
        made.add_done_callback(lambda _f: answered.append("at the place"))
        place.release()
        version, found = await asyncio.gather(after, made)
        assert version.vm_name and len(found.classes) == 1
        assert answered == ["at the place", "sent after"]
        with pytest.raises(RuntimeError, match="released"):
            place.send_nowait(VirtualMachine.Version)
    finally:
        await conn.close()


async def test_an_unanswered_request_runs_in_order_and_its_failure_breaks_nothing(jvm_factory):
    """A resume's reply is not waited for (core/session/execution.py): no future is made for it; the JVM still
    runs it before what is sent after it, and a failing one (an unknown thread) leaves the stream as it was."""
    jvm = jvm_factory("Values")  # started suspended (suspend=y): held once by the VM's start
    conn = await _connect(jvm)
    try:
        threads = (await conn.send(VirtualMachine.AllThreads)).threads
        names = await asyncio.gather(*(conn.send(ThreadReference.Name, t) for t in threads))
        main = next(t for t, n in zip(threads, names, strict=True) if n.thread_name == "main")
        assert (await conn.send(ThreadReference.SuspendCount, main)).suspend_count == 1
        conn.send_unanswered(ThreadReference.Resume, 0x7FFF_FFFF)  # no such thread: a JDWP error, dropped
        conn.send_unanswered(VirtualMachine.Resume)
        # The VM-wide resume ran before this read: main's suspension by the VM start is lifted.
        assert (await conn.send(ThreadReference.SuspendCount, main)).suspend_count == 0
        assert not conn._pending and conn.unmatched_replies == 0  # noqa: SLF001 (every reply was matched)
    finally:
        await conn.close()
