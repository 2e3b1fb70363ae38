"""In-JVM logpoints are exact (issue 26, point 3): four threads race through a logpoint's line; every hit is a
line in the history, with its thread, in each thread's order, as the round trip (--no-instrument) logs them;
hit counts are counts, also while the history is throttled; and no line is lost at a stop, a detach, or the
target's exit."""

from __future__ import annotations

import asyncio

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.model import EventRecord

MAIN = "fixtures.Warehouse"
TEMPLATE = "check passed: available={available}"
PICKERS = 4

pytestmark = pytest.mark.timeout(90)


def expected_lines(rounds: int) -> dict[str, list[str]]:
    """What each picker logs: Warehouse.reserve's check, bin by bin (each picker has its own)."""
    out = {}
    for p in range(PICKERS):
        stock, lines = rounds, []
        for i in range(rounds):
            amount = 1 + (i + p) % 2
            if stock >= amount:
                lines.append(f"check passed: available={stock}")
                stock -= amount
        out[f"picker-{p}"] = lines
    return out


class Recorder:
    """Every history record as it is added (detach clears the history: a front end's listener saw them)."""

    def __init__(self, debugger: Debugger) -> None:
        self.records: list[EventRecord] = []
        self.added = asyncio.Event()
        debugger.session.history.subscribe(self._add)

    def _add(self, record: EventRecord) -> None:
        self.records.append(record)
        self.added.set()

    async def wait_for(self, kind: str, text: str = "", timeout: float = 30, count: int = 1) -> EventRecord:
        """The first record of `kind` with `text`, once there are `count` of them."""
        async with asyncio.timeout(timeout):
            while True:
                found = [r for r in self.records if r.kind == kind and text in r.text]
                if len(found) >= count:
                    return found[0]
                self.added.clear()
                await self.added.wait()

    def logs(self) -> list[EventRecord]:
        return [r for r in self.records if r.kind == "log"]

    def seq_of(self, kind: str) -> int:
        """The sequence number of the last record of `kind`."""
        return [r.seq for r in self.records if r.kind == kind][-1]

    def per_thread(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.logs():
            text, _, where = r.text.rpartition(" — at ")
            assert where.endswith(f"[{r.data['thread_name']}]"), r.text
            out.setdefault(r.data["thread_name"], []).append(text)
        return out


async def run_to_the_end(jvm_factory, line_of, *, in_jvm: bool, rounds: int, rate: float = 0,  # noqa: ANN001
                         end: str = "exit", stop_after: bool = False,
                         jdk: str = "17") -> tuple[Recorder, Debugger, object]:
    jvm = jvm_factory(MAIN, str(rounds), end, jdk=jdk)
    d = Debugger(logpoint_rate=rate)
    d.session.breakpoints.in_jvm.enabled = in_jvm  # what --no-instrument does
    recorder = Recorder(d)
    await d.attach(jvm.address, timeout=10)
    bp = await d.breakpoint_set(f"{MAIN}:{line_of('wh-check')}", log=TEMPLATE)
    if stop_after:
        await d.breakpoint_set(f"{MAIN}:{line_of('wh-done')}")
    return recorder, d, (jvm, bp)


async def test_in_jvm_lines_threads_order_and_hits_are_the_round_trips(jvm_factory, line_of, jdk) -> None:
    rounds = 30
    expected = expected_lines(rounds)
    total = sum(len(lines) for lines in expected.values())
    transcripts = {}
    for in_jvm in (True, False):
        recorder, d, (jvm, bp) = await run_to_the_end(jvm_factory, line_of, in_jvm=in_jvm, rounds=rounds,
                                                     stop_after=True, jdk=jdk)
        try:
            stop = await d.resume(timeout=60)
            assert stop.stopped and stop.stop.location.line == line_of("wh-done"), stop
            # Every line logged before the stop is in the history before it (the stop answer shows them).
            before = [r for r in recorder.logs() if r.seq < recorder.seq_of("stop")]
            assert len(before) == total, (in_jvm, len(before), total)
            listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
            assert listed.mode == ("in-JVM" if in_jvm else "round trip (in-JVM mode is off (--no-instrument))")
            assert listed.hits == total and not listed.sampled, listed.describe()
            # Each line's thread is the thread that logged it: its id as the thread's start event gave it.
            names = {r.data["thread"]: r.text.split()[1] for r in recorder.records if r.kind == "thread_start"}
            for r in before:
                assert names[r.data["thread"]] == r.data["thread_name"], r
            transcripts[in_jvm] = (recorder.per_thread(), sorted(r.text for r in before),
                                   {k for r in before for k in r.data})
            await d.resume(timeout=30)
            assert await asyncio.to_thread(jvm.wait, 30) == 0
        finally:
            await d.close()
    assert transcripts[True][0] == expected
    assert transcripts[True] == transcripts[False]


async def test_a_throttled_logpoint_counts_every_hit_and_says_it_samples(jvm_factory, line_of) -> None:
    rounds = 400
    total = sum(len(lines) for lines in expected_lines(rounds).values())
    recorder, d, (jvm, bp) = await run_to_the_end(jvm_factory, line_of, in_jvm=True, rounds=rounds, rate=20,
                                                 stop_after=True)
    try:
        stop = await d.resume(timeout=60)
        assert stop.stopped
        listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert listed.mode == "in-JVM"
        assert listed.hits == total, listed.describe()  # exact: counted in the JVM, not extrapolated
        recorded = len(recorder.logs())
        assert 0 < recorded < total
        assert f"throttled: more than 20 log lines/s; the history holds {recorded} of {total} lines" in \
            listed.describe(), listed.describe()
        throttled = [r for r in recorder.records if r.kind == "breakpoint_throttled"]
        assert throttled and throttled[0].seq < recorder.seq_of("stop")  # so the stop answer says so
        assert "hit counts stay exact" in throttled[0].text, throttled[0].text
    finally:
        await d.close()


@pytest.mark.parametrize("end", ["quiet", "detach", "crash"])
async def test_no_line_is_lost_when_quiet_at_detach_or_when_the_target_dies(jvm_factory, line_of, end,
                                                                             monkeypatch) -> None:
    """quiet: nobody asks, the lines come all the same (batches, and the poll of a logpoint gone quiet);
    detach (no polling): the detach reads what is left; crash (an uncaught exception ends main): the
    probe's shutdown hook hands the rest over before the JVM goes."""
    from tracepilot.core.instrument import logring

    if end != "quiet":
        monkeypatch.setattr(logring, "POLL_SECONDS", 3600)
    rounds = 40
    expected = expected_lines(rounds)
    recorder, d, (jvm, bp) = await run_to_the_end(jvm_factory, line_of, in_jvm=True, rounds=rounds,
                                                 end="crash" if end == "crash" else "wait")
    try:
        assert not (await d.resume(timeout=0)).stopped
        if end == "crash":
            last = (await recorder.wait_for("vm_death", "terminated")).seq
        else:
            await asyncio.to_thread(jvm.wait_for_output, "pickers done", 30)
            if end == "quiet":
                await recorder.wait_for("log", count=sum(map(len, expected.values())), timeout=10)
            await d.detach()
            last = recorder.seq_of("detach")
        assert bp.mode == "in-JVM"
        assert recorder.per_thread() == expected
        assert all(r.seq < last for r in recorder.logs())
    finally:
        jvm.kill()
        await d.close()


async def test_a_tiny_ring_still_loses_nothing(jvm_factory, line_of, monkeypatch) -> None:
    """Eight slots for four racing threads: rings fill, batches overtake each other, threads wait for the
    debugger to read; every line still arrives once, in each thread's order, and the count is exact."""
    from tracepilot.core.instrument import logring, probe

    for module in (probe, logring):
        monkeypatch.setattr(module, "RING_LINES", 8)
    monkeypatch.setattr(probe, "FLUSH_LINES", 4)
    monkeypatch.setattr(logring, "_MASK", 7)
    rounds = 40
    expected = expected_lines(rounds)
    recorder, d, (jvm, bp) = await run_to_the_end(jvm_factory, line_of, in_jvm=True, rounds=rounds)
    try:
        assert not (await d.resume(timeout=0)).stopped
        await recorder.wait_for("vm_death", "terminated")
        assert bp.mode == "in-JVM"
        assert recorder.per_thread() == expected
        assert not [r for r in recorder.records if r.kind == "error"]
        assert next(b for b in await d.breakpoint_list() if b.id == bp.id).hits == sum(map(len, expected.values()))
    finally:
        await d.close()


async def test_a_sampled_round_trip_count_says_it_is_an_estimate(jvm_factory, line_of) -> None:
    """--no-instrument: past the rate the JVM reports 1 hit in N (a Count modifier), so the count can only be
    extrapolated; the breakpoint and the throttle event say so."""
    recorder, d, (jvm, bp) = await run_to_the_end(jvm_factory, line_of, in_jvm=False, rounds=400, rate=20,
                                                 stop_after=True)
    try:
        assert (await d.resume(timeout=60)).stopped
        listed = next(b for b in await d.breakpoint_list() if b.id == bp.id)
        assert listed.hits_estimated and "(an estimate" in listed.describe(), listed.describe()
        throttled = [r for r in recorder.records if r.kind == "breakpoint_throttled"]
        assert throttled and "estimate" in throttled[0].text, throttled
    finally:
        await d.close()


async def test_a_template_that_throws_logs_as_the_round_trip_does(jvm_factory, line_of) -> None:
    """A logpoint whose template throws in the JVM: every hit is still a counted line, with where and
    thread, and the same text the round trip writes (which part threw, and how)."""
    rounds = 5
    total = sum(len(lines) for lines in expected_lines(rounds).values())
    texts = {}
    for in_jvm in (True, False):
        jvm = jvm_factory(MAIN, str(rounds), "exit")
        d = Debugger(logpoint_rate=0)
        d.session.breakpoints.in_jvm.enabled = in_jvm
        recorder = Recorder(d)
        try:
            await d.attach(jvm.address, timeout=10)
            bp = await d.breakpoint_set(f"{MAIN}:{line_of('wh-check')}", log="left {10 / (available - available)}")
            await d.resume(timeout=0)
            await recorder.wait_for("vm_death", "terminated")
            assert bp.mode == ("in-JVM" if in_jvm else "round trip (in-JVM mode is off (--no-instrument))")
            logs = recorder.logs()
            assert len(logs) == total and bp.hits == total, (in_jvm, bp.hits, [r.text for r in logs[:3]])
            for r in logs:
                assert r.text.endswith(f"[{r.data['thread_name']}]") and r.data["thread"], r
            texts[in_jvm] = sorted(r.text for r in logs)
        finally:
            await d.close()
    assert "ArithmeticException" in texts[True][0], texts[True][0]
    assert texts[True] == texts[False]


async def test_a_thread_at_two_logpoints_has_its_lines_in_the_order_it_logged_them(jvm_factory, line_of) -> None:
    """Each logpoint has its own buffer in the JVM; a thread that passes both, in turns, still has its
    lines in the history in the order it logged them, as on the round trip."""
    rounds = 30
    expected: dict[str, list[str]] = {}
    for p in range(PICKERS):
        stock, lines = rounds, []
        for i in range(rounds):
            amount = 1 + (i + p) % 2
            lines.append(f"{'ok' if stock >= amount else 'short'} {stock}")
            stock -= amount if stock >= amount else 0
        expected[f"picker-{p}"] = lines
    for in_jvm in (True, False):
        jvm = jvm_factory(MAIN, str(rounds), "exit")
        d = Debugger(logpoint_rate=0)
        d.session.breakpoints.in_jvm.enabled = in_jvm
        recorder = Recorder(d)
        try:
            await d.attach(jvm.address, timeout=10)
            ok = await d.breakpoint_set(f"{MAIN}:{line_of('wh-check')}", log="ok {available}")
            short = await d.breakpoint_set(f"{MAIN}:{line_of('wh-short')}", log="short {available}")
            await d.resume(timeout=0)
            await recorder.wait_for("vm_death", "terminated")
            assert {ok.mode, short.mode} == {"in-JVM" if in_jvm else "round trip (in-JVM mode is off (--no-instrument))"}
            assert recorder.per_thread() == expected, in_jvm
        finally:
            await d.close()
