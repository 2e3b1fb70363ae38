"""Scripted agent sessions: a real bug's root cause in as few MCP calls as the answers allow (issue 21).

Each test plays an agent on a real JVM and asserts the facts an agent needs in the answers it gets, not
their exact wording.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.timeout(120)


async def test_invoice_bug_root_cause_in_four_calls(mcp_session, java_classes, java_source_root, line_of):
    """A HashMap key whose hashCode uses a field written after insertion: the lookup misses. launch,
    a field log on the field (no template), a conditional breakpoint where the lookup misses, resume:
    that one answer shows the key, the map, and the logged write with where it happened and old -> new."""
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Invoice", classpath=[str(java_classes)],
                   sourcepath=[str(java_source_root)])
        await s.ok("watchpoint_set", field="fixtures.Invoice$Sku.region", log=True)
        await s.ok("breakpoint_set", location=f"fixtures.Invoice:{line_of('invoice-after-lookup')}",
                   condition="cents == null")
        stop = await s.ok("resume", timeout=30)
        assert s.calls == 4
        text = stop.text
        assert stop.data["stop"]["kind"] == "BREAKPOINT"
        assert stop.data["stop"]["location"]["line"] == line_of("invoice-after-lookup")
        # the key and the map at the stop
        assert re.search(r"sku = .*pen", text), text
        assert re.search(r"prices = .*HashMap", text), text
        assert "cents = null" in text
        # the logged write: where (class.method:line), and old -> new
        write_line = line_of("invoice-write")
        assert re.search(rf"Invoice\.normalise:{write_line}\b", text), text
        assert re.search(r'"eu"\s*->\s*"EU"', text), text


@pytest.mark.parametrize("kind", ["reentrant", "sync"])
async def test_deadlock_named_in_two_calls_while_running(mcp_session, jvm_factory, line_of, kind, jdk):
    """attach + locks on a running two-lock deadlock: both threads, the objects owning both locks, and the
    line each thread waits at, in the one `locks` answer."""
    target = jvm_factory("Jobs", *(["sync"] if kind == "sync" else []), suspend=False, jdk=jdk)
    target.wait_for_output("jobs deadlocked")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        report = await s.ok("locks")
        assert s.calls == 2
        text = report.text
        assert "DEADLOCK" in text, text
        assert "transfer-worker-1" in text and "transfer-worker-2" in text
        assert 'id="savings"' in text and 'id="checking"' in text, text
        if kind == "reentrant":
            assert re.search(r'ReentrantLock in Jobs\$Account\{id="savings".*\}\.lock', text), text
        line = line_of("jobs-second-lock" if kind == "reentrant" else "jobs-second-monitor")
        method = "transfer" if kind == "reentrant" else "transferSynchronized"
        # HotSpot places a thread blocked entering a nested monitor just after its monitorenter: the next line
        lines = f"({line}|{line + 1})" if kind == "sync" else str(line)
        for worker in ("transfer-worker-1", "transfer-worker-2"):
            assert re.search(rf"{worker} \(\w+\) at fixtures\.Jobs\.{method}\(Jobs\.java:{lines}\)", text), text
        assert (await s.ok("status")).data["state"] == "RUNNING"
        threads = await s.ok("threads")  # the locks part of threads, also while running
        worker = next(line for line in threads.text.splitlines() if "'transfer-worker-1'" in line)
        assert "holds" in worker and 'id="savings"' in worker, threads.text
        assert "waiting for" in worker and 'id="checking"' in worker, threads.text
        assert (await s.ok("status")).data["state"] == "RUNNING"


async def test_pause_in_sleep_shows_the_program_not_missing_jdk_sources(mcp_session, jvm_factory, java_source_root):
    """A static reads while the program runs, without a thread; pause while main sleeps: no complaint about
    java.lang.Thread's source, the program's line instead; an evaluate that needs a call answers in words."""
    target = jvm_factory("Invoice", "60000", suspend=False)
    target.wait_for_output("total=")  # main sleeps from here on
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address, sourcepath=[str(java_source_root)])
        running = await s.ok("evaluate", expression="fixtures.Invoice.PRICES")
        assert "size=2" in running.text, running.text
        assert "size=2" in (await s.ok("evaluate", expression="Invoice.PRICES")).text
        paused = await s.ok("pause")
        assert "java.lang.Thread not found" not in paused.text and "--sourcepath" not in paused.text, paused.text
        assert "Invoice.java" in paused.text  # the program's line where it sleeps
        assert (await s.ok("evaluate", expression="1 + 1", thread="main")).text.startswith("2")
        assert "size=2" in (await s.ok("evaluate", expression="PRICES", frame=1)).text
        call = await s.err("evaluate", expression="PRICES.size()", frame=1)
        assert "INVALID_THREAD" not in call.text and "paused" in call.text and "breakpoint" in call.text, call.text


async def test_stack_folds_library_frames_unless_all_frames(mcp_session, jvm_factory):
    target = jvm_factory("Jobs", suspend=False)
    target.wait_for_output("jobs deadlocked")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("pause")
        folded = await s.ok("stack", thread="transfer-worker-1")
        assert re.search(r"… \d+ frames in java\.util\.concurrent\.locks", folded.text), folded.text
        assert "fixtures.Jobs.transfer(Jobs.java:" in folded.text
        assert "AbstractQueuedSynchronizer" not in folded.text
        full = await s.ok("stack", thread="transfer-worker-1", all_frames=True)
        assert "java.util.concurrent.locks.ReentrantLock.lock" in full.text and "…" not in full.text


async def test_watch_history_is_in_the_text(mcp_session, java_classes, line_of):
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.Invoice", classpath=[str(java_classes)])
        await s.ok("breakpoint_set", location=f"fixtures.Invoice:{line_of('invoice-after-lookup')}")
        await s.ok("watch_add", expression="sku.code")
        first = await s.ok("resume")
        assert re.search(r'sku\.code = "pen"', first.text), first.text
        second = await s.ok("resume")
        assert re.search(r'history \(2 stops\): "pen" → "ink"', second.text), second.text
        listed = await s.ok("watch_add")
        assert '"pen" → "ink"' in listed.text


async def test_diagnose_does_not_offer_a_jvm_http_port(mcp_session, jvm_factory):
    jvm = jvm_factory("Listening", suspend=False)
    http_port = int(jvm.wait_for_output("http port").split("http port ")[1].split()[0])
    async with mcp_session("memory") as s:
        text = (await s.ok("diagnose")).text
        assert f"{http_port} (not JDWP)" in text, text
        assert f"{jvm.port} (JDWP, the agent's listening address)" in text, text  # read, never probed (issue 29)
        assert f"localhost:{http_port}'" not in text


async def test_a_hot_condition_is_measured_warned_about_and_can_be_sampled(mcp_session, java_classes, line_of,
                                                                          monkeypatch):
    """A condition that is never true on a method run millions of times: the waiting answer and the events
    say it slows the target and offer sample=N; sampling lets the program finish. (--no-instrument: the
    debugger evaluates it, a round trip per hit; in the JVM it would cost the target nothing.)"""
    monkeypatch.setenv("TRACEPILOT_NO_INSTRUMENT", "1")
    async with mcp_session("memory") as s:
        # A million calls: at a round trip each (~10,000/s at best) the program is still running when the warning
        # comes (after a second's measure; up to 12 s on a loaded machine); sampled 1 in 1000, the rest takes
        # ~1,000 round trips (3,000,000 calls made that ~3,000, most of this test's time).
        await s.ok("launch", main="fixtures.HotLoop", args=["1000000"], classpath=[str(java_classes)])
        await s.ok("method_break", method="fixtures.HotLoop.step", condition="i == -1")
        answers = [await s.ok("resume", timeout=3)]
        while "condition_hot" not in answers[-1].text and len(answers) < 4:  # a loaded machine measures later
            answers.append(await s.ok("wait_for_stop", timeout=3))
        running = answers[-1]
        assert running.data["stopped"] is False
        assert "condition_hot" in running.text and "sample=" in running.text, running.text
        events = await s.ok("events", kinds=["condition_hot"])
        assert re.search(r"bp-1's condition is evaluated [\d,]+ times/s", events.text), events.text
        assert "hot: condition evaluated" in (await s.ok("breakpoint_list")).text
        await s.ok("breakpoint_update", id="bp-1", sample=1000)
        assert "1 hit in 1000" in (await s.ok("breakpoint_list")).text
        done = await s.ok("wait_for_stop", timeout=120)
        assert done.data["state"] == "EXITED" or "terminated" in done.text, done.text


async def test_a_stop_answer_caps_what_happened_and_says_how_to_see_the_rest(mcp_session, java_classes, line_of,
                                                                            monkeypatch):
    monkeypatch.setenv("TRACEPILOT_NO_INSTRUMENT", "1")  # the debugger writes each line at its hit (no batches)
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.HotLoop", args=["30"], classpath=[str(java_classes)])
        await s.ok("method_break", method="fixtures.HotLoop.step", log="i={i}")
        await s.ok("breakpoint_set", location=f"fixtures.HotLoop:{line_of('hot-done')}")
        stop = await s.ok("resume", timeout=30)
        assert stop.data["stop"]["location"]["line"] == line_of("hot-done")
        shown = re.findall(r"^  #\d+ (\w+): (.*)$", stop.text, re.MULTILINE)
        assert len(shown) == 10, stop.text  # capped
        logged = [text for kind, text in shown if kind == "log"]
        assert logged and all(f"HotLoop.step:{line_of('hot-body')} [main]" in text for text in logged), logged
        more = re.search(r"… (\d+) more: events since=(\d+)", stop.text)
        assert more, stop.text
        rest = await s.ok("events", since=int(more.group(2)), kinds=["log"])
        assert rest.text.count(" log: ") == 30 - len(logged)  # every other line is there
        assert "i=29" in rest.text
        again = await s.ok("step")  # the next answer starts from here: nothing old again
        assert " log: " not in again.text


async def test_tool_descriptions_name_the_variables_they_offer(mcp_session):
    async with mcp_session("memory") as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
    offered = {"watchpoint_set": ["$old", "$new", "this"], "method_break": ["$return", "this"],
               "exception_break": ["$exception", "this"], "breakpoint_set": ["this", "log"]}
    for name, words in offered.items():
        text = tools[name].description + str(tools[name].input_schema)
        for word in words:
            assert word in text, f"{name} does not mention {word}: {tools[name].description}"
    assert "log=true" in tools["watchpoint_set"].description


async def test_in_jvm_logpoint_lines_say_where_they_fired(mcp_session, java_classes, line_of):
    """A line logpoint compiled into the target batches its lines in the JVM; they still end with where."""
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.HotLoop", args=["30"], classpath=[str(java_classes)])
        await s.ok("breakpoint_set", location=f"fixtures.HotLoop:{line_of('hot-body')}", log="i={i}")
        await s.ok("resume", timeout=30)  # runs to the end; the last batch is handed over at exit
        listed = (await s.ok("breakpoint_list")).text
        assert "in-JVM" in listed or pytest.skip(f"the logpoint ran as a round trip here: {listed}")
        lines = (await s.ok("events", kinds=["log"])).text
        assert "i=29" in lines, lines
        assert all(f"HotLoop.step:{line_of('hot-body')}" in line for line in lines.splitlines() if " log: " in line)


async def test_line_logpoint_lines_before_a_stop_are_in_its_answer(mcp_session, java_classes, line_of):
    async with mcp_session("memory") as s:
        await s.ok("launch", main="fixtures.HotLoop", args=["5"], classpath=[str(java_classes)])
        await s.ok("breakpoint_set", location=f"fixtures.HotLoop:{line_of('hot-body')}", log="i={i}")
        await s.ok("breakpoint_set", location=f"fixtures.HotLoop:{line_of('hot-done')}")
        stop = await s.ok("resume", timeout=30)
        assert all(f"i={i} — at HotLoop.step" in stop.text for i in range(5)), stop.text
        assert "in-JVM" in (await s.ok("breakpoint_list")).text  # (the lines were batched in the target)
