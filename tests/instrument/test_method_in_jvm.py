"""Method breakpoints (a breakpoint given as a method, method_break on entry or exit) with a condition or a
log message run in the JVM (issue 26, point 3), and answer exactly as the round trip (--no-instrument) does:
the same stops (kind, location, frame 0, locals, value returned, hit numbers), the same log lines, the same
hit counts. An exit by exception is no method exit for JDWP, nor for the probe."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.jdwp import EventKind

MAIN = "fixtures.MethodProbes"
HOT = "fixtures.HotCondition"
THREAD_NAME = re.compile(r" \[[^\]]*\](?= returned |$)")


def error_of(message: str | None) -> str | None:
    """A condition error's message, as far as both modes write it alike (the round trip also points at the
    operator that threw: the in-JVM probe knows only the exception, for line breakpoints alike)."""
    if message is None:
        return None
    found = re.match(r"condition error, stopped: (?:threw )?([\w.$]+)(: [^\n]*?)?(?= at column|$)", message)
    return f"condition error: {found.group(1)}{found.group(2) or ''}" if found else message


async def transcript(jvm_factory, jdk: str, in_jvm: bool, breakpoints: list[tuple[str, dict[str, Any]]],
                     *args: str) -> dict[str, Any]:
    """Run MethodProbes to its end with these breakpoints; everything an agent would see, by breakpoint index."""
    jvm = jvm_factory(MAIN, *args, jdk=jdk)
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm.address, timeout=10)
        ids = []
        for method, options in breakpoints:
            options = dict(options)
            hit_count = options.pop("hit_count", None)
            if "on" in options:
                info = await d.method_break(method, **options)
            else:
                info = await d.breakpoint_set(method, **options)
            if hit_count is not None:  # (method_break takes none; a change of the breakpoint does)
                info = await d.breakpoint_update(info.id, hit_count=hit_count)
            ids.append(info.id)
        name = {bp_id: f"#{i}" for i, bp_id in enumerate(ids)}
        stops = []
        while (result := await d.resume(timeout=30)).stopped:
            stop = result.stop
            frames = await d.stack()
            exiting = stop.kind.value == "METHOD_EXIT"
            stops.append({
                "breakpoint": name.get(stop.breakpoint_id), "kind": stop.kind.value, "hit": stop.hit_count,
                "at": str(stop.location), "message": error_of(stop.message),
                "returned": stop.return_value.text if stop.return_value else None,
                "frame0": str(frames[0].location), "caller": str(frames[1].location),
                "locals": {v.name: v.value.text for v in await d.locals()},
                "$return": (await d.evaluate("$return")).text if exiting else None,
            })
        assert result.state.value == "EXITED", result
        listed = {b.id: b for b in await d.breakpoint_list()}
        # (The thread's name in a line, and the order of lines of different logpoints, are the logpoints' part
        # of issue 26: compared here are each logpoint's lines, in order, without the thread's name.)
        logs = sorted(((name.get(r.data.get("breakpoint")), THREAD_NAME.sub("", r.text))
                       for r in await d.events(kinds=["log"], limit=1000)), key=lambda log: log[0])
        return {"stops": stops, "logs": logs, "hits": [listed[i].hits for i in ids],
                "modes": [listed[i].mode for i in ids], "output": jvm.stdout_text().splitlines()[-1:]}
    finally:
        await d.close()


BREAKPOINTS: list[tuple[str, dict[str, Any]]] = [
    # A breakpoint given as a method: a method entry.
    (f"{MAIN}.price", {"condition": 'qty == 3 || code.equals("X6")'}),
    (f"{MAIN}.label", {"on": "entry", "log": "label {id}"}),
    (f"{MAIN}.price", {"on": "exit", "condition": "$return > 8 && qty < 5"}),
    (f"{MAIN}.label", {"on": "exit", "condition": '$return.endsWith("7") || $return.endsWith("9")'}),
    (f"{MAIN}.tick", {"on": "exit", "condition": "ticks % 2 == 0", "hit_count": "%3"}),
    # Every exit of price by exception has qty < 0: no method exit in JDWP, so never true.
    (f"{MAIN}.price", {"on": "exit", "condition": "qty < 0"}),
    (f"{MAIN}.price", {"on": "entry", "condition": "qty > 100"}),  # never true
    # Exit logpoints: each line says which return fired and what it returned (int, String, void).
    (f"{MAIN}.price", {"on": "exit", "log": "price {qty} {code}"}),
    (f"{MAIN}.label", {"on": "exit", "log": "label {id}"}),
    (f"{MAIN}.tick", {"on": "exit", "log": "tick {ticks}", "condition": "ticks > 13"}),
    # A condition that throws (id == 5) stops with the error, at an entry and at an exit. (Where no other
    # breakpoint stops: two stopping at one event are one stop by round trip, one stop each in the JVM, for
    # line breakpoints alike.)
    (f"{MAIN}.label", {"on": "exit", "condition": "10 / (id - 5) > 100"}),
    (f"{MAIN}.label", {"condition": "10 / (id - 5) > 100"}),
]


@pytest.mark.timeout(120)
async def test_method_entries_and_exits_in_the_jvm_answer_as_the_round_trip(jvm_factory, jdk, line_of) -> None:
    fast = await transcript(jvm_factory, jdk, True, BREAKPOINTS, "16")
    slow = await transcript(jvm_factory, jdk, False, BREAKPOINTS, "16")
    assert fast["modes"] == ["in-JVM"] * len(BREAKPOINTS)
    assert all(m is None or m.startswith("round trip (in-JVM mode is off") for m in slow["modes"]), slow["modes"]
    assert fast["stops"] == slow["stops"]
    assert fast["logs"] == slow["logs"]
    # (#4's count after its last stop: a probe's hits past the last one its rule lets through are not read
    # back yet, for line breakpoints alike; the stops it made agree above.)
    assert fast["hits"][:4] + fast["hits"][5:] == slow["hits"][:4] + slow["hits"][5:]
    assert fast["output"] == slow["output"]
    # The transcript is not empty: entries, exits with values (int, String, void), a hit count, log lines.
    kinds = {(s["breakpoint"], s["kind"]) for s in fast["stops"]}
    assert {("#0", "METHOD_ENTRY"), ("#2", "METHOD_EXIT"), ("#3", "METHOD_EXIT"), ("#4", "METHOD_EXIT")} <= kinds
    assert {s["returned"] for s in fast["stops"] if s["breakpoint"] == "#3"} == {'"id-7"', '"id-9"'}
    errors = [(s["breakpoint"], s["kind"], s["message"]) for s in fast["stops"] if s["message"]]
    assert errors == [(f"#{n}", kind, "condition error: java.lang.ArithmeticException: / by zero")
                      for n, kind in ((11, "METHOD_ENTRY"), (10, "METHOD_EXIT"))], errors
    logs = {b: [text for name, text in fast["logs"] if name == b] for b in ("#1", "#7", "#8", "#9")}
    assert len(logs["#1"]) == 16 and logs["#1"][0] == f"label 0 — at MethodProbes.label:{line_of('mp-label')}"
    assert f"price 1 A2 — at MethodProbes.price:{line_of('mp-return')} returned 11" in logs["#7"]
    assert f"price 5 X6 — at MethodProbes.price:{line_of('mp-return-x')} returned 10" in logs["#7"]
    assert logs["#8"][7] == f'label 7 — at MethodProbes.label:{line_of("mp-label")} returned "id-7"'
    assert logs["#9"] == [f"tick {n} — at MethodProbes.tick:{line_of('mp-tick') + 1} returned void" for n in (14, 15, 16)]
    assert fast["hits"][5] == 0 and fast["hits"][6] == 0


@pytest.mark.timeout(120)
async def test_exit_of_a_method_that_throws_is_no_exit(jvm_factory) -> None:
    # qty = -1 at i = 0 and 7: price throws there. An unconditional-looking exit logpoint counts only returns.
    bps = [(f"{MAIN}.price", {"on": "exit", "condition": "qty >= -1"})]
    fast = await transcript(jvm_factory, "17", True, bps, "8")
    slow = await transcript(jvm_factory, "17", False, bps, "8")
    assert fast["modes"] == ["in-JVM"]
    assert fast["stops"] == slow["stops"] and fast["hits"] == slow["hits"] == [6]


@pytest.mark.timeout(120)
async def test_what_stays_on_the_round_trip_says_why(jvm_factory) -> None:
    jvm = jvm_factory(MAIN, "4")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        exit_log = await d.method_break(f"{MAIN}.ratio", on="exit", log="ratio {q}")
        dollar = await d.method_break(f"{MAIN}.price", on="entry", condition="$return == 1")
        constructor = await d.method_break(f"{MAIN}.<init>", on="entry", condition="base == 0")
        assert (await d.resume(timeout=30)).stopped  # the constructor's condition error (or true condition)
        modes = {b.id: b.mode for b in await d.breakpoint_list()}
        assert modes[exit_log.id] == ("round trip (not compilable: an exit logpoint's value returned, of this type, "
                                      "is rendered by the debugger)")
        assert modes[dollar.id] == "round trip (not compilable: '$return' is the debugger's)"
        assert modes[constructor.id].startswith("round trip (not compilable: 'this' before the constructor")
    finally:
        await d.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("on", "condition"), [("entry", "n == 300"), ("exit", "$return > 0 && n == 300")])
async def test_set_while_running_moves_into_the_jvm_once_the_method_returns(jvm_factory, jdk, on, condition) -> None:
    jvm = jvm_factory(HOT, "300", "100000000", jdk=jdk, suspend=False)  # run(300) called over and over
    await asyncio.to_thread(jvm.wait_for_output, "round 1 ", 30)
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.method_break(f"{HOT}.run", on=on, condition=condition)
        assert bp.mode.startswith("round trip (the class was loaded before the breakpoint was set")
        modes, hits = [], []
        for _ in range(4):
            stop = await d.wait_for_stop(30)
            assert stop.stopped and stop.stop.breakpoint_id == bp.id
            assert stop.stop.kind.value == f"METHOD_{on.upper()}"
            assert stop.stop.location.method == "run" and (await d.stack())[1].location.method == "main"
            if on == "exit":
                assert stop.stop.return_value.text == str(sum(i ^ 3 for i in range(300)))
            listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
            modes.append(listed.mode)
            hits.append((listed.hits, stop.stop.hit_count))
            await d.resume(timeout=0)
        assert modes[-2:] == ["in-JVM", "in-JVM"], modes
        assert hits == [(n, n) for n in range(1, 5)], hits  # one stop per call: the round trip's went with it
        kinds = set(d.session.breakpoints.by_id[bp.id].requests.values())
        assert kinds == {EventKind.BREAKPOINT}, kinds  # (the probe's)
    finally:
        await d.close()


async def changed_at_a_stop(jvm_factory, in_jvm: bool, line: int) -> dict[str, Any]:
    """Stopped inside price (before its return), an exit condition becomes a conditional exit logpoint: the
    method is re-instrumented under a running frame (or, in the JVM, put back on the round trip until the
    method returns). Every answer must be the same as by round trip."""
    jvm = jvm_factory(MAIN, "12")
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm.address, timeout=10)
        exit_bp = await d.method_break(f"{MAIN}.price", on="exit", condition="$return == 11")
        inside = await d.breakpoint_set(f"{MAIN}:{line}")
        first = await d.resume(timeout=30)
        assert first.stopped and first.stop.breakpoint_id == inside.id
        await d.breakpoint_remove(inside.id)
        await d.breakpoint_update(exit_bp.id, log="p {qty} {code}")
        stops = []
        while (result := await d.resume(timeout=30)).stopped:
            stops.append((result.stop.breakpoint_id, str(result.stop.location), result.stop.hit_count))
        logs = [THREAD_NAME.sub("", r.text) for r in await d.events(kinds=["log"], limit=1000)]
        hits = next(b for b in await d.breakpoint_list() if b.id == exit_bp.id).hits
        return {"stops": stops, "logs": logs, "hits": hits}
    finally:
        await d.close()


@pytest.mark.timeout(120)
async def test_an_exit_changed_at_a_stop_inside_its_method_answers_as_the_round_trip(jvm_factory, line_of) -> None:
    fast = await changed_at_a_stop(jvm_factory, True, line_of("mp-return"))
    slow = await changed_at_a_stop(jvm_factory, False, line_of("mp-return"))
    assert fast == slow
    assert fast["logs"], fast


async def steps_from(jvm_factory, in_jvm: bool, on: str) -> list[str]:
    jvm = jvm_factory(MAIN, "6")
    d = Debugger()
    d.session.breakpoints.in_jvm.enabled = in_jvm
    try:
        await d.attach(jvm.address, timeout=10)
        await d.method_break(f"{MAIN}.price", on=on, condition="qty == 3")
        answers = [(await d.resume(timeout=30)).stop.headline()]
        for _ in range(2):
            answers.append((await d.step("over", timeout=10)).stop.headline())
        return answers
    finally:
        await d.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("on", ["entry", "exit"])
async def test_steps_from_a_method_stop_answer_as_the_round_trip(jvm_factory, on) -> None:
    # From an exit stop the step lands in the caller; the exit the stop reported is not "returned" again.
    fast = await steps_from(jvm_factory, True, on)
    assert fast == await steps_from(jvm_factory, False, on)


@pytest.mark.timeout(120)
async def test_a_change_that_breaks_exactness_moves_to_the_round_trip_and_says_why(jvm_factory) -> None:
    jvm = jvm_factory(MAIN, "12")
    d = Debugger()
    try:
        await d.attach(jvm.address, timeout=10)
        bp = await d.method_break(f"{MAIN}.price", on="entry", condition="qty == 3")
        first = await d.resume(timeout=30)
        assert first.stopped and first.stop.breakpoint_id == bp.id
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).mode == "in-JVM"
        thread = first.stop.thread_id
        # A thread filter with a log message: the probe would log every thread's hits.
        changed = await d.breakpoint_update(bp.id, thread=thread, log="qty {qty}")
        assert changed.mode == ("round trip (a thread filter on a hit count or log message is applied by the "
                                "debugger)"), changed.mode
        assert not (await d.resume(timeout=30)).stopped  # a conditional logpoint now: logs, never stops
        logged = [r.text for r in await d.events(kinds=["log"], limit=100)]
        assert [t.split(" — ")[0] for t in logged] == ["qty 3"], logged  # i = 11 (i = 4 was the first stop)
    finally:
        await d.close()


async def test_exit_calls_go_before_every_return_with_a_copy_of_the_value(java_classes) -> None:
    """The plan alone (no JVM): price returns from two places; each return gets dup + loads + the call."""
    from tracepilot.core.instrument import bytecode as bc
    from tracepilot.core.instrument.classfile import ClassFile
    from tracepilot.core.instrument.method_sites import EXIT, RETURNS, SITE, split_exit_line
    from tracepilot.core.instrument.plan import ProbeSpec, instrument
    from tracepilot.core.instrument.resolve import ClassFileResolver

    price = ("price", "(ILjava/lang/String;)I")
    spec = ProbeSpec(0, "$return > qty", "q={qty}", "fixtures/Probe_MethodProbes", at=EXIT, methods=("".join(price),))
    result = await instrument((java_classes / "fixtures" / "MethodProbes.class").read_bytes(), [spec],
                              ClassFileResolver([java_classes]))
    code = ClassFile.parse(result.data).method(*price).code
    instructions = bc.decode(code.code)
    returns = [i for i, ins in enumerate(instructions) if ins.opcode in RETURNS]
    calls = [i for i, ins in enumerate(instructions) if ins.opcode == bc.INVOKESTATIC]
    assert len(returns) == 2 and [r - 1 for r in returns] == calls[-2:]
    [placed] = result.probes
    assert placed.probe.captures[0].kind == "return" and len(placed.sites) == 2
    for call in calls[-2:]:  # dup the int returned first; the return's ordinal is pushed last
        assert bc.DUP in [ins.opcode for ins in instructions[call - 6:call]]
        assert instructions[call - 1].opcode == bc.SIPUSH
    assert split_exit_line(f"q=1{SITE}1{SITE}{SITE}11") == ("q=1", 1, False, "11")
