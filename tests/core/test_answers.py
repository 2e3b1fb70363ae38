"""What the core's answers carry for the next question (issue 21, issue 17 part B), on real JVMs."""

from __future__ import annotations

import pytest

from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import SessionState, StopKind

pytestmark = pytest.mark.timeout(90)


async def _to_breakpoint(d: Debugger, location: str) -> None:
    await d.breakpoint_set(location)
    result = await d.resume(timeout=20)
    if result.stopped and result.stop.kind is StopKind.VM_START:
        result = await d.resume(timeout=20)
    assert result.stopped and result.stop.kind is StopKind.BREAKPOINT, result.headline()


async def test_detach_terminate_waits_for_an_attached_jvm_and_handles_restart(jvm_factory, line_of):
    first = jvm_factory("Invoice")
    second = jvm_factory("Invoice")
    d = Debugger()
    try:
        await d.attach(first.address, timeout=10)
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        sku = next(v for v in await d.locals() if v.name == "sku")
        assert sku.value.handle is not None
        status = await d.detach(terminate=True)
        assert status.state is SessionState.DISCONNECTED
        assert status.note == "the JVM has exited", status.note
        assert "the JVM has exited" in render.status(status)
        first.proc.wait(timeout=1)  # gone when the answer came (it used to live ~2 s longer): only reaping is left
        await d.attach(second.address, timeout=10)
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        handles = sorted(int(v.value.handle[1:]) for v in await d.locals() if v.value.handle)
        assert handles[0] == 1, handles  # a new session's handles start again at @1
    finally:
        await d.close()


async def test_field_log_binds_this_old_and_new_to_the_written_object(jvm_factory, line_of, jdk):
    jvm = jvm_factory("Invoice", jdk=jdk)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.watchpoint_set("fixtures.Invoice$Sku.region", log="{this.code}: {$old} -> {$new} ({code})")
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        logs = [e for e in await d.events(kinds=["log"]) if "normalise" in e.text]
        assert logs, await d.events()
        pen = logs[0]
        assert pen.text.startswith("pen: eu -> EU (pen)"), pen.text  # `this` is the Sku, not normalise's frame
        assert pen.data["where"] == f"Invoice.normalise:{line_of('invoice-write')}"
        assert pen.data["thread_name"] == "main"
        assert (pen.data["old"], pen.data["new"]) == ('"eu"', '"EU"')
        assert "Sku" in pen.data["object"] and "pen" in pen.data["object"]
    finally:
        await d.close()


async def test_evaluate_return_at_a_method_exit_stop(jvm_factory, jdk):
    jvm = jvm_factory("Invoice", jdk=jdk)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.method_break("fixtures.Invoice.price", on="exit")
        result = await d.resume(timeout=20)
        if result.stopped and result.stop.kind is StopKind.VM_START:
            result = await d.resume(timeout=20)
        assert result.stop.kind is StopKind.METHOD_EXIT, result.headline()
        assert (await d.evaluate("$return")).text == "0"  # the pen's lookup missed
        assert (await d.evaluate("$return + 1")).text == "1"
        result = await d.resume(timeout=20)
        assert (await d.evaluate("$return")).text == "900"  # the next stop has its own $return
    finally:
        await d.close()


async def test_exception_log_that_meant_the_exception_gets_a_hint(jvm_factory, line_of):
    jvm = jvm_factory("Playground", "10", "throw", "nosleep")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.exception_break("java.lang.NullPointerException", log="msg={getMessage()}")
        await _to_breakpoint(d, f"fixtures.Playground:{line_of('risky-catch')}")
        line = next(e for e in await d.events(kinds=["log"]))
        assert "$exception.getMessage()" in line.text, line.text
        assert "Playground.risky" in line.text and "threw java.lang.NullPointerException" in line.text
    finally:
        await d.close()


async def test_referrers_through_a_static_field_name_the_field(jvm_factory, line_of, jdk):
    jvm = jvm_factory("Invoice", jdk=jdk)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await _to_breakpoint(d, f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        refs = await d.referrers("prices")
        holders = {r.value.text: r.via for r in refs.referrers}
        assert holders.get("class fixtures.Invoice") == ["static Invoice.PRICES"], holders
        assert "via static Invoice.PRICES" in render.referrers(refs)
    finally:
        await d.close()


async def test_discovery_offers_only_the_port_that_answers_jdwp(jvm_factory):
    from tracepilot.core.discovery import discover

    jvm = jvm_factory("Listening", suspend=False)
    http_port = int(jvm.wait_for_output("http port").split("http port ")[1].split()[0])
    found = next(p for p in await discover(pids={jvm.pid}))  # (probing only our own JVMs)
    assert set(found.ports) >= {jvm.port, http_port}
    assert found.jdwp_ports == [jvm.port]
    assert found.port_kind(http_port) == "not JDWP"
    assert f"{http_port} (not JDWP)" in found.describe()
    waiting = jvm_factory("Listening", suspend=True)  # suspend=y: a probe would start it, so it is not probed
    held = next(p for p in await discover(pids={waiting.pid}))
    assert held.jdwp_ports == [] and held.unverified_ports == [waiting.port]
    assert f"{waiting.port} (not verified)" in held.describe()


async def test_a_monitor_in_a_static_field_is_named_by_it(jvm_factory, jdk):
    jvm = jvm_factory("Deadlocks", suspend=False, jdk=jdk)
    jvm.wait_for_output("deadlock threads started")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        for _ in range(200):  # the threads reach their second monitor a moment after the latch opens
            report = await d.locks()
            if report.deadlocks:
                break
        text = render.lock_report(report)
        assert "Object in static Deadlocks.MONITOR_A" in text and "Object in static Deadlocks.MONITOR_B" in text, text
        assert "dl-a (blocked) at fixtures.Deadlocks.monitors(Deadlocks.java:" in text, text
    finally:
        await d.close()


async def test_locks_at_a_stop_of_one_thread_sees_the_running_ones(jvm_factory, line_of):
    """A suspend=thread breakpoint stops main; the deadlocked workers keep running (blocked): locks
    suspends them for the look, and leaves them as they were."""
    jvm = jvm_factory("Jobs")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        await d.breakpoint_set(f"fixtures.Jobs:{line_of('jobs-join')}", suspend="thread")
        result = await d.resume(timeout=20)
        if result.stopped and result.stop.kind is StopKind.VM_START:
            result = await d.resume(timeout=20)
        assert result.stopped and result.stop.location.line == line_of("jobs-join"), result.headline()
        report = await d.locks()
        assert report.deadlocks and sorted(report.deadlocks[0].threads) == ["transfer-worker-1", "transfer-worker-2"]
        workers = {t.name: t for t in await d.threads() if t.name.startswith("transfer-worker")}
        assert not any(t.suspended for t in workers.values()), workers  # resumed exactly as often as suspended
    finally:
        await d.close()


def test_condition_rate_warns_once_past_the_limit():
    from tracepilot.core.breakpoints.hot_conditions import ConditionRate

    rate = ConditionRate()
    assert all(rate.tick(200, now=100 + i / 100) is None for i in range(101))  # 100/s: under the limit
    hot = [rate.tick(200, now=101.01 + i / 1000) for i in range(1001)]  # 1000/s
    assert [r for r in hot if r is not None] == [pytest.approx(1000, rel=0.01)]  # warned once
    assert all(rate.tick(200, now=102.1 + i / 1000) is None for i in range(2000))  # and not again
