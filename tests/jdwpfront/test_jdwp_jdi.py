"""A real JDI debugger (com.sun.jdi, what IntelliJ and Eclipse sit on) joins an agent's MCP session through the
JDWP front end: its breakpoint, frames, locals, invocation, assignment and step, while the agent sees its stop,
evaluates at it, and keeps its session after it leaves."""

from __future__ import annotations

import asyncio

import pytest
from guest_support import line_process

from tracepilot.jdwpfront import JdwpFrontEnd

pytestmark = pytest.mark.timeout(90)


async def test_a_jdi_client_debugs_beside_the_agent(jdk, jvm_factory, line_of, mcp_session, jdk17_tools,
                                                    guest_client_classes, java_classes):
    target = jvm_factory("JdwpGuest", jdk=jdk, suspend=False)
    target.wait_for_output("guest ready")
    async with mcp_session("memory") as agent:
        await agent.ok("attach", address=target.address)
        # A condition compiled into the class (in-JVM): the client's hot swap of that class must be refused.
        await agent.ok("breakpoint_set", location=f"JdwpGuest:{line_of('guest-alpha-only')}", condition="round < 0")
        in_jvm = agent.app.debugger().session.breakpoints.in_jvm
        async with asyncio.timeout(20):  # (compiled in once the hits are many and no thread is inside the method)
            while not any(record.probe_types and record.current for record in in_jvm.classes.values()):
                await asyncio.sleep(0.1)
        front = JdwpFrontEnd(agent.app.debugger(), name="IDE")
        port = await front.start()
        try:
            async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestClient", str(port),
                                    str(line_of("guest-work")),
                                    str(java_classes / "fixtures" / "JdwpGuest.class")) as client:
                await client.expect("WAITING go")
                assert client.value("PROBE_CLASSES") == "0"
                assert client.value("PROBE_VISIBLE") == "0"
                assert client.value("STOPPED") == f"alpha:{line_of('guest-work')}"
                assert client.value("FRAME1") == "loop"
                assert client.value("WHO") == '"alpha"'
                assert client.value("LABEL").startswith('"alpha-')
                round_ = int(client.value("LABEL").strip('"').split("-")[1])
                assert client.value("COUNTS") == f"[{round_}, {round_ + 1}, {round_ + 2}]"
                assert client.value("OWNER") == '"alpha"'
                assert client.value("ITEM1") == '"pear"'
                assert client.value("FAVOURITE_CENTS") == "120"

                # The agent sees the client's stop (status and events) and evaluates at it.
                status = await agent.ok("status")
                assert "IDE" in status.text and "alpha" in status.text, status.text
                events = await agent.ok("events")
                assert "IDE: breakpoint in thread alpha" in events.text, events.text
                value = await agent.ok("evaluate", expression="basket.total()", thread="alpha")
                assert str(200 + round_) in value.text

                # The agent pauses and resumes everything: the client's thread stays at its stop.
                await agent.ok("pause")
                await agent.ok("resume", timeout=0)
                assert (await suspend_counts(agent.app.debugger(), ("alpha",)))["alpha"] == 1

                await client.send("go")
                await client.expect("WAITING leave")
                assert client.value("INVOKE") == str(200 + round_)
                assert client.value("SET") == '"changed"'
                assert client.value("REDEFINE_REFUSED")
                assert "IDE: hot swap of fixtures.JdwpGuest refused" in (await agent.ok("events")).text
                assert client.value("STEPPED") == str(line_of("guest-next"))
                assert client.value("TOTAL") == str(200 + round_)
                status = await agent.ok("status")
                assert "step of IDE" in status.text, status.text

                await client.send("leave")
                await client.expect("DETACHED")
                assert await client.proc.wait() == 0
            await front.guest_left()
            # The agent keeps its session: the JVM runs on, nothing is held, and its own breakpoint still works.
            status = await agent.ok("status")
            assert "RUNNING" in status.text and "IDE" not in status.text, status.text
            events = await agent.ok("events")
            assert "IDE: the JDWP debugger left" in events.text
            await agent.ok("breakpoint_set", location=f"JdwpGuest:{line_of('guest-next')}", thread="beta")
            stop = await agent.ok("wait_for_stop", timeout=15)
            assert "beta" in stop.text and str(line_of("guest-next")) in stop.text, stop.text
        finally:
            await front.close()


async def test_the_client_and_the_agent_stop_in_one_method_each_their_own(default_jdk, jvm_factory, line_of,
                                                                           mcp_session, jdk17_tools,
                                                                           guest_client_classes):
    """The client's suspend-all breakpoint (every thread) and the agent's (thread beta) on the same line: beta's
    hits come in one event packet for both. Each gets its own stops, once; after both resume nothing is held."""
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    line = line_of("guest-work")
    async with mcp_session("memory") as agent:
        await agent.ok("attach", address=target.address)
        debugger = agent.app.debugger()
        front = JdwpFrontEnd(debugger, name="IDE")
        port = await front.start()
        try:
            async with line_process(jdk17_tools[0], "-cp", str(guest_client_classes), "GuestRounds", str(port),
                                    str(line), "6") as client:
                await client.expect("ARMED")
                await agent.ok("breakpoint_set", location=f"JdwpGuest:{line}", thread="beta")
                agent_stops = [await agent.ok("wait_for_stop", timeout=20)]
                for _ in range(2):
                    if not agent_stops[-1].data.get("stop"):
                        break
                    agent_stops.append(await agent.ok("resume", timeout=20))
                if not all(stop.data.get("stop") for stop in agent_stops):  # (failed under load: say all of why)
                    status = await agent.ok("status")
                    events = await agent.ok("events")
                    raise AssertionError(
                        f"agent answers: {[s.text for s in agent_stops]}\nstatus: {status.text}\nevents: "
                        f"{events.text}\nsuspend counts: {await suspend_counts(debugger, ('alpha', 'beta'))}\n"
                        f"client: {await client.lines_so_far()}")
                for stop in agent_stops:
                    assert stop.data["stop"]["thread_name"] == "beta", stop.text
                    assert stop.data["stop"]["kind"] == "BREAKPOINT"
                await agent.ok("breakpoint_remove", id="all")
                await agent.ok("resume", timeout=0)
                await client.expect("DONE")
                hits = [line for line in client.seen if line.startswith("HIT ")]
                assert len(hits) == 6 and {"HIT alpha", "HIT beta"} >= set(hits), hits
                await client.send("leave")
                await client.expect("DETACHED")
            await front.guest_left()
            # Nothing stays suspended, and the agent got no stop twice (nor one of the client's).
            assert (await agent.ok("wait_for_stop", timeout=0.5)).data["stopped"] is False
            counts = await suspend_counts(debugger, ("alpha", "beta"))
            assert counts == {"alpha": 0, "beta": 0}
            status = await agent.ok("status")
            assert "RUNNING" in status.text and not status.data.get("suspended"), status.text
        finally:
            await front.close()


async def suspend_counts(debugger, names) -> dict[str, int]:  # noqa: ANN001
    from tracepilot.jdwp import ThreadReference, VirtualMachine

    vm = debugger.session.vm
    counts = {}
    for thread in (await vm.send(VirtualMachine.AllThreads)).threads:
        name = await vm.thread_name(thread)
        if name in names:
            counts[name] = (await vm.send(ThreadReference.SuspendCount, thread)).suspend_count
    return counts
