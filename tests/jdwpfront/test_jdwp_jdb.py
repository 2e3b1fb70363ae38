"""jdb attaches to an agent's session through the JDWP front end, driven over stdin as a person would."""

from __future__ import annotations

import pytest

from support.jdb import clear, jdb_attached, jdb_of, quit_cleanly, stop_at
from tracepilot.jdwpfront import JdwpFrontEnd

pytestmark = pytest.mark.timeout(90)


async def test_jdb_stops_looks_and_continues_in_the_agents_session(default_jdk, jvm_factory, line_of, mcp_session,
                                                                   jdk17_tools):
    jdb = jdb_of(jdk17_tools)
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    line = line_of("guest-alpha-only")  # (two threads stopping at once would hold each other in jdb's call)
    async with mcp_session("memory") as agent:
        await agent.ok("attach", address=target.address)
        front = JdwpFrontEnd(agent.app.debugger(), name="jdb")
        port = await front.start()
        try:
            async with jdb_attached(jdb, port) as person:
                hit = await stop_at(person, f"fixtures.JdwpGuest:{line}")
                assert "thread=alpha" in hit and f"line={line}" in hit, hit
                thread = "alpha"
                await person.send("where")
                await person.expect("fixtures.JdwpGuest.loop")
                await person.send("locals")
                await person.expect(f'who = "{thread}"')
                await person.expect("basket = instance of fixtures.JdwpGuest$Basket")
                await person.send("print basket.items[1].name")
                await person.expect('basket.items[1].name = "pear"')
                await person.send("print basket.total()")
                total = await person.expect("basket.total() =")
                assert int(total.rsplit("=", 1)[1]) >= 200

                status = await agent.ok("status")
                assert "held by jdb" in status.text or "of jdb" in status.text, status.text
                events = await agent.ok("events")
                assert f"jdb: breakpoint in thread {thread}" in events.text, events.text

                await person.send("cont")
                await person.expect("Breakpoint hit:")
                await clear(person, f"fixtures.JdwpGuest:{line}")
                await quit_cleanly(person)
            await front.guest_left()
            status = await agent.ok("status")
            assert "RUNNING" in status.text and not status.data.get("suspended"), status.text
            assert "jdb: the JDWP debugger left" in (await agent.ok("events")).text
        finally:
            await front.close()


async def test_the_vm_ending_ends_jdb_cleanly(default_jdk, jvm_factory, line_of, mcp_session, jdk17_tools):
    jdb = jdb_of(jdk17_tools)
    target = jvm_factory("JdwpGuest", jdk=default_jdk, suspend=False)
    target.wait_for_output("guest ready")
    async with mcp_session("memory") as agent:
        await agent.ok("attach", address=target.address)
        front = JdwpFrontEnd(agent.app.debugger(), name="jdb")
        port = await front.start()
        try:
            async with jdb_attached(jdb, port) as person:
                await stop_at(person, f"fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                # The agent ends the program at jdb's stop; jdb continues it to its end.
                await agent.ok("evaluate", expression="fixtures.JdwpGuest.running = false", thread="alpha")
                await clear(person, f"fixtures.JdwpGuest:{line_of('guest-alpha-only')}")
                await person.send("cont")
                await person.expect("The application exited")  # the VM's own VMDeath event reached jdb
                assert await person.proc.wait() == 0
            await front.guest_left()
            status = await agent.ok("status")
            assert "EXITED" in status.text, status.text
        finally:
            await front.close()
