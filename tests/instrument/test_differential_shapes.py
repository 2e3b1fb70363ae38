"""Scripted differential cases (issue 26's exactness rule) in the method shapes of DifferentialShapes.java: `this`
and fields in an instance method, a constructor (before and after its super() call, a field initializer), an
anonymous class, lambdas (one without locals on another thread). Each script runs on two JVMs of the
deterministic program, one debugger in-JVM, one `--no-instrument`; every answer must be the same, and the in-JVM
side must really have compiled what it can (else the comparison proves nothing).

Set before the classes load (attached at the VM's start), and set while the program runs (attached to a running
JVM, `suspend=n`, at its first gate: every class loaded, the probes go in by redefinition). Then the divergences
the random test (test_differential.py on the same program) found, each reduced to a script: a capture before a
constructor's super() call, and lines in more than one method or class (one-line lambdas, anonymous classes).
About 2 s each.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from support.gates import Gates
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import StopKind

from .test_differential import HIDDEN_LAMBDA

MAIN = "fixtures.DifferentialShapes"
SETTLE = 20.0

# One breakpoint a line (several on a line go by round trip by design), each compilable into the JVM.
POINTS: list[tuple[str, dict[str, Any]]] = [
    ("dsh-field", {"log": "count={count} this.count={this.count} base={base}"}),  # a field initializer
    ("dsh-init", {"capture": 3, "expressions": ["this.count", "count", "start"]}),  # after super()
    ("dsh-super", {"condition": "start == 5"}),  # before super(): a parameter only
    ("dsh-base", {"log": "base={base}"}),  # a one-line constructor: its parameter, before super()
    ("dsh-add", {"condition": "this.count % 3 == 0 && base > 10", "log": "count={count} sum={this.sum} base={base}"}),
    ("dsh-acc", {"condition": "values[k] > 10 && count > 2", "hit_count": "%2"}),
    ("dsh-sum", {"capture": 2, "condition": "count == 4", "expressions": ["this.count", "scale", "acc"]}),
    ("dsh-anon", {"log": "anon {this.val$c.count}"}),  # (the anonymous class's copy of round()'s `c`)
    ("dsh-mix", {"log": "a={a} b={b}"}),
    ("dsh-lambda", {"capture": 3}),  # a lambda without locals, on another thread
    ("dsh-catch", {"condition": "text.length() == 3"}),
    ("dsh-tick", {"log": "tick"}),  # a static method without parameters or locals
]


def _plain(text: Any) -> Any:
    # (an object's handle number is its session's; a lambda's hidden class's name is its JVM's: see HIDDEN_LAMBDA)
    return HIDDEN_LAMBDA.sub("$$Lambda", re.sub(r"@\d+", "@", text)) if isinstance(text, str) else text


async def _transcript(jvm_factory: Any, line_of: Any, root: Path, in_jvm: bool, running: bool,
                      points: list[tuple[str, dict[str, Any]]]) -> tuple[list, dict]:
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-shapes-"))
    jvm = jvm_factory("DifferentialShapes", "16", "8", str(gate_dir), suspend=not running)
    debugger = Debugger(sourcepath=[str(root)])
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    answers: list[Any] = []
    gates = Gates(debugger, jvm, gate_dir, SETTLE, so_far=answers)

    async def stop_answer(result: Any) -> Any:
        stop = result.stop
        if stop.kind is StopKind.VM_START:
            return "started"
        locals_ = [(v.name, _plain(v.value.text)) for v in await debugger.locals()]
        return (stop.kind.value, stop.location.method, stop.location.line, stop.thread_name, stop.breakpoint_id,
                stop.hit_count, stop.message, locals_)

    try:
        if running:  # (at its first gate: every class loaded, the program waiting, running)
            jvm.wait_for_output("gate 0", timeout=SETTLE)
            gates.seen = 1
        await debugger.attach(jvm.address, timeout=10)
        ids = [(await debugger.breakpoint_set(f"{MAIN}:{line_of(marker)}", **options)).id for marker, options in points]
        modes: dict[str, Any] = {}
        for _ in range(100):
            answers.append(await gates.go(stop_answer))
            answers.append([(b.id, b.hits) for b in await debugger.breakpoint_list()])
            if answers[-2] == "gate 0" or (running and answers[-2] == "gate 1"):  # every class loaded by now
                modes = {b.id: b.mode for b in await debugger.breakpoint_list()}
            if answers[-2] == "exited":
                break
        answers.append([(r.data.get("breakpoint"), r.text, r.data.get("thread_name"))
                        for r in await debugger.events(kinds=["log"], limit=10_000)])
        answers.append([(c.breakpoint_id, c.number, c.hit, c.thread_name, c.note,
                         [(f.location.method, f.location.line) for f in c.frames],
                         [(v.name, _plain(v.text)) for v in c.frames[0].locals or []],
                         [(v.name, _plain(v.text)) for v in c.expressions])
                        for c in await debugger.captures(limit=10_000)])
        return answers, {marker: modes.get(bp_id) for (marker, _), bp_id in zip(points, ids, strict=True)}
    finally:
        await debugger.close()
        jvm.close()


def _same(mine: list[Any], theirs: list[Any]) -> None:
    """Every answer of the in-JVM transcript the round trip's, the answers before the first that differs shown."""
    for n, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a == b, "\n".join(map(repr, mine[:n])) + f"\nanswer {n}:\nin-JVM:     {a!r}\nround trip: {b!r}"


async def _compare(jvm_factory: Any, line_of: Any, root: Path, running: bool,
                   points: list[tuple[str, dict[str, Any]]] = POINTS) -> dict[str, Any]:
    """Both transcripts the same; the in-JVM side's modes once every class loaded."""
    mine, modes = await _transcript(jvm_factory, line_of, root, True, running, points)
    theirs, _ = await _transcript(jvm_factory, line_of, root, False, running, points)
    _same(mine, theirs)
    return modes


@pytest.mark.timeout(60)
async def test_this_fields_constructors_and_lambdas_set_before_their_classes_load(jvm_factory, line_of,
                                                                                 java_source_root):
    modes = await _compare(jvm_factory, line_of, java_source_root, running=False)
    # Each compiled into the JVM (a point on the round trip would make the comparison say nothing about probes).
    assert {marker: mode for marker, mode in modes.items() if mode != "in-JVM"} == {}, modes


@pytest.mark.timeout(60)
async def test_this_fields_constructors_and_lambdas_set_while_the_program_runs(jvm_factory, line_of,
                                                                              java_source_root):
    modes = await _compare(jvm_factory, line_of, java_source_root, running=True)
    assert {marker: mode for marker, mode in modes.items() if mode != "in-JVM"} == {}, modes


@pytest.mark.timeout(60)
async def test_a_capture_before_a_constructors_super_call_shows_this_as_the_round_trip(jvm_factory, line_of,
                                                                                      java_source_root):
    """Before super() `this` is not initialized: the probe cannot pass it (the verifier refuses), where the round
    trip shows it (its fields not set yet). Such a capture reads the frame with the thread held, and says why.
    (dsh-base: a one-line constructor, whose line starts before its super() call.)"""
    modes = await _compare(jvm_factory, line_of, java_source_root, running=False,
                           points=[("dsh-super", {"capture": 2}), ("dsh-base", {"capture": 2}),
                                   ("dsh-init", {"capture": 2})])
    assert modes["dsh-init"] == "in-JVM", modes  # (after super(): `this` passed)
    assert all(modes[m].startswith("round trip (") and "super()" in modes[m] for m in ("dsh-super", "dsh-base")), modes


async def _scripted(jvm_factory: Any, line_of: Any, root: Path, in_jvm: bool,
                    script: list[tuple]) -> tuple[list, dict[str, Any]]:
    """One script on DifferentialShapes, one mode: ("set", marker, options), ("go",), ("step", kind); after each
    step its answer and every breakpoint's hits; at the end, on to the exit, then every line logged. And the
    breakpoints' modes at the last gate."""
    gate_dir = Path(tempfile.mkdtemp(prefix="tp-shapes-"))
    jvm = jvm_factory("DifferentialShapes", "16", "8", str(gate_dir))
    debugger = Debugger(sourcepath=[str(root)])
    debugger.session.breakpoints.in_jvm.enabled = in_jvm
    answers: list[Any] = []
    modes: dict[str, Any] = {}  # at the last gate
    gates = Gates(debugger, jvm, gate_dir, SETTLE, so_far=answers)

    async def stop_answer(result: Any) -> Any:
        stop = result.stop
        if stop.kind is StopKind.VM_START:
            return "started"
        return (stop.kind.value, stop.location.method, stop.location.line, stop.breakpoint_id, stop.hit_count,
                stop.message)

    try:
        await debugger.attach(jvm.address, timeout=10)
        answers.append(await gates.settle(stop_answer))
        for step in [*script, *[("go",)] * 40]:
            kind, *args = step
            if kind == "set":
                answers.append((await debugger.breakpoint_set(f"{MAIN}:{line_of(args[0])}", **args[1])).id)
                continue
            if kind == "go":
                answers.append(await gates.go(stop_answer))
            else:
                result = await debugger.step(args[0], timeout=SETTLE)
                answers.append(await stop_answer(result) if result.stopped else "not stopped")
            answers.append([(b.id, b.hits, [(loc.class_name, loc.method) for loc in b.locations])
                            for b in await debugger.breakpoint_list()])
            if answers[-2] == "exited":
                break
            if answers[-2] in ("gate 0", "gate 1"):
                modes = {b.id: b.mode for b in await debugger.breakpoint_list()}
        answers.append([(r.data.get("breakpoint"), r.text) for r in await debugger.events(kinds=["log"], limit=10_000)])
        return answers, modes
    finally:
        await debugger.close()
        jvm.close()


async def _compare_scripted(jvm_factory: Any, line_of: Any, root: Path, script: list[tuple]) -> dict[str, Any]:
    """Both transcripts the same; the in-JVM side's modes at its last gate."""
    mine, modes = await _scripted(jvm_factory, line_of, root, True, script)
    theirs, _ = await _scripted(jvm_factory, line_of, root, False, script)
    _same(mine, theirs)
    return modes


@pytest.mark.timeout(60)
async def test_a_logpoint_on_a_one_line_lambda_set_at_a_stop_counts_both_methods_hits(jvm_factory, line_of,
                                                                                     java_source_root):
    """Found by the random test: a line holding a lambda's body is in two methods (round() makes the lambda, its
    body runs in lambda$round$1). Set at a stop in round(), a logpoint with a hit count there counted fewer hits
    in-JVM than by round trip: each method's probe counted its own. Such a line's hit count is the round trip's."""
    modes = await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-call", {"temporary": True}),
        ("go",),  # stopped in round()
        ("set", "dsh-oneline", {"log": "ticks={ticks}", "hit_count": ">=5"}),
        ("go",),
    ])
    assert modes["bp-2"].startswith("round trip (not compilable: line "), modes
    assert "is in 2 methods (round, lambda$round$1): its hit count counts their hits together" in modes["bp-2"]


@pytest.mark.timeout(60)
async def test_a_one_line_lambdas_logged_lines_say_which_method_logged_them(jvm_factory, line_of,
                                                                            java_source_root):
    """Found by the random test: each of the line's two methods has its own probe; the lines the lambda's logged
    said they were logged in round() (the breakpoint's first location), where the round trip says
    lambda$round$1."""
    modes = await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-call", {"temporary": True}),
        ("go",),  # stopped in round()
        ("set", "dsh-oneline", {"log": "ticks={ticks}"}),
        ("go",),
    ])
    assert modes["bp-2"] == "in-JVM", modes


@pytest.mark.timeout(60)
async def test_a_hit_count_on_a_line_in_two_classes_counts_the_lines_hits(jvm_factory, line_of, java_source_root):
    """Found by the random test: a one-line anonymous class's line is in round() and in the class's own <init>
    and run(). In the JVM each class's probe counted its own hits: the rule's 4th hit was run()'s 4th, where by
    round trip it is the line's. Once such a breakpoint binds in a second class, it takes the round trip in all
    (here as the anonymous class loads, after round()'s probe counted a hit), and says why."""
    modes = await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-anon-line", {"condition": "background % 2 == 0", "hit_count": ">=4"}),
        ("go",),
    ])
    assert modes["bp-1"].startswith("round trip (its line is in more than one class"), modes


@pytest.mark.timeout(60)
async def test_a_capture_point_done_in_one_class_binds_in_no_further_class(jvm_factory, line_of, java_source_root):
    """Found by the random test: a one-line anonymous class's line is in round() and in the class's own methods.
    A capture point there taking one capture took it in round() in the JVM; the anonymous class, loading next,
    bound it again (its capture not read yet) and counted one more hit than the round trip, done after it."""
    await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-anon-line", {"capture": 1}),
        ("go",),
    ])


@pytest.mark.timeout(60)
async def test_a_line_in_two_classes_lists_its_locations_in_the_order_they_loaded(jvm_factory, line_of,
                                                                                 java_source_root):
    """Found by the random test: a breakpoint by round trip on a one-line anonymous class's line is bound in
    both classes; a logpoint going into the enclosing class redefines it, which binds the first one there again:
    its location in the enclosing class went to the end of its list."""
    modes = await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-anon-line", {"hit_count": "%1000"}),  # (plain: by round trip)
        ("set", "dsh-gate", {"temporary": True}),
        ("go",),  # stopped in main(), both classes loaded
        ("set", "dsh-tick", {"log": "tick"}),  # into the JVM at once: the class redefined
        ("go",),
    ])
    assert modes["bp-3"] == "in-JVM", modes


@pytest.mark.timeout(60)
async def test_a_capture_point_done_in_one_class_counts_no_hit_in_the_other(jvm_factory, line_of, java_source_root):
    """Found by the random test: the same capture point, its condition true only once both classes of the line
    (round() and the one-line anonymous class) have loaded. Its one capture was taken in round()'s probe; the
    anonymous class's probe, on the next line, counted one more hit before the point was done (in-JVM 2 hits,
    by round trip 1: the thread held at the capture, the point done before it runs on)."""
    await _compare_scripted(jvm_factory, line_of, java_source_root, [
        ("set", "dsh-anon-line", {"capture": 1, "condition": "background > 10"}),
        ("go",),
    ])
