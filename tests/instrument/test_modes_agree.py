"""The evaluator's expression table, compiled into the JVM and evaluated over JDWP, at the same stop: every
expression the compiler accepts gives the same answer in both modes (as a logpoint's text, and as a
condition for the table's boolean expressions)."""

from __future__ import annotations

import re

import pytest

from evaluator.test_interpreter import TABLE
from tracepilot.core.debugger import Debugger

ASSIGNMENT = re.compile(r"(?<![=!<>])=(?!=)|\+\+|--")


def candidates() -> list[tuple[str, object]]:
    # No assignments (state must not move between the two evaluations), no marks, and not compute(): the
    # line is in compute, so a compiled call of it would run the probes again, recursively.
    return [(text, value) for text, value in TABLE
            if not ASSIGNMENT.search(text) and "$" not in text and "compute(" not in text]


@pytest.mark.timeout(300)
async def test_compiled_expressions_answer_as_the_round_trip_does(jvm_factory, line_of, java_source_root) -> None:
    jvm = jvm_factory("Evaluator", jdk="17")
    d = Debugger(sourcepath=[str(java_source_root)])
    # Every expression's probe at one line, each on its own (the values are compared, not how a line's several
    # breakpoints make one event: by default they would take the round trip together).
    d.session.breakpoints.in_jvm.one_event_a_line = False
    try:
        await d.attach(jvm.address)
        where = f"fixtures.Evaluator:{line_of('eval')}"
        logs, conditions = {}, {}
        # Every boolean as a condition, the first 70 others as logpoints (each breakpoint in the class
        # re-instruments it: the set-up grows with the square of their number).
        chosen = candidates()
        for text, value in chosen:
            if isinstance(value, bool):
                conditions[(await d.breakpoint_set(where, condition=text)).id] = text
        for text, _value in [c for c in chosen if not isinstance(c[1], bool)][:70]:
            logs[(await d.breakpoint_set(where, log="{" + text + "}")).id] = text
        plain = await d.breakpoint_set(where)
        stop = await d.resume(timeout=240)
        assert stop.stopped and plain.id in [stop.stop.breakpoint_id, *stop.stop.also]
        modes = {b.id: b.mode for b in await d.breakpoint_list()}
        in_jvm = {bp_id for bp_id, mode in modes.items() if mode == "in-JVM"}
        for bp_id in set(logs) | set(conditions):  # only the compiled ones are compared
            if bp_id not in in_jvm:
                await d.breakpoint_remove(bp_id)
        await d.breakpoint_remove(plain.id)
        thread = stop.stop.thread_id
        expected_text = {bp_id: await d.session.inspector.format_log("{" + logs[bp_id] + "}", thread)
                         for bp_id in logs if bp_id in in_jvm}
        expected_true = {bp_id for bp_id in conditions if bp_id in in_jvm
                         and await d.session.inspector.evaluate_condition(conditions[bp_id], thread, {})}
        assert len(expected_text) >= 35 and len([c for c in conditions if c in in_jvm]) >= 25, modes
        stopped_at = set()
        while (result := await d.resume(timeout=60)).stopped:
            assert not result.stop.message, result.stop.message  # no condition errors
            stopped_at.add(result.stop.breakpoint_id)
        assert stopped_at == expected_true, sorted(conditions[b] for b in stopped_at ^ expected_true)
        logged = {}
        for record in await d.events(kinds=["log"], limit=1000):
            logged[record.data.get("breakpoint")] = record.text.rsplit(" — at ", 1)[0]
        mismatches = [f"{logs[b]}: in-JVM {logged.get(b)!r}, round trip {expected_text[b]!r}"
                      for b in expected_text if logged.get(b) != expected_text[b]]
        assert not mismatches, "\n".join(mismatches)
    finally:
        await d.close()
