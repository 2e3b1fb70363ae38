"""Random call sequences over eight threads with an in-JVM condition (issue 26, point 2).

Hypothesis drives resume (all / one thread), step, evaluate, pause, enable/disable of the breakpoints and
changes of the condition against fixtures.Crowd, where a suspend-thread breakpoint, an in-JVM conditional
breakpoint and a plain one share one method that eight threads run through. Redefinitions of that class
(the in-JVM path) must never leave a frame that a reader cannot read: after every step,

- no answer and no history record says INVALID_METHODID or "internal error";
- every stopped thread's stack, its top frame's locals and the snapshot answer;
- at the end, with the breakpoints gone and everything resumed, the program prints what it computes alone
  (nothing was left suspended, control was never lost).

Bounded in CI (a few examples); TRACEPILOT_SEQUENCE_EXAMPLES=N (and _STEPS=N) run longer locally, and
TRACEPILOT_SEQUENCE_SHRINK=1 shrinks a failure to its shortest sequence.
"""

from __future__ import annotations

import asyncio
import os
import re

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState, StopKind

pytestmark = pytest.mark.timeout(300)

MAIN = "fixtures.Crowd"
THREADS, ROUNDS = 8, 120
WAIT = 1.0
EXAMPLES = int(os.environ.get("TRACEPILOT_SEQUENCE_EXAMPLES", "3"))
RANDOM = "TRACEPILOT_SEQUENCE_EXAMPLES" in os.environ  # a local long run draws new sequences each time
STEPS = int(os.environ.get("TRACEPILOT_SEQUENCE_STEPS", "14"))
# Shrinking restarts the JVM for every attempt (minutes): only when asked for, to read a failure.
PHASES = [Phase.explicit, Phase.reuse, Phase.generate] + (
    [Phase.shrink] if os.environ.get("TRACEPILOT_SEQUENCE_SHRINK") else [])
BROKEN = re.compile(r"INVALID_METHODID|internal error", re.IGNORECASE)
CONDITIONS = ["r % 20 == id", "r % 15 == id + 1", "id == 3 && r % 10 == 5"]


def clean(text: object) -> None:
    assert not BROKEN.search(str(text)), str(text)


def test_random_sequences_never_meet_an_unreadable_frame(jvm_factory, line_of, jdk):
    lines = {name: line_of(f"crowd-{name}") for name in ("thread", "cond", "plain")}

    class Crowd(RuleBasedStateMachine):
        @initialize()
        def start(self) -> None:
            self.loop = asyncio.new_event_loop()
            self.jvm = jvm_factory(MAIN, str(THREADS), str(ROUNDS), jdk=jdk)  # suspended before Crowd loads
            self.debugger = Debugger()
            self.run(self.debugger.attach(self.jvm.address, timeout=10))
            d = self.debugger
            self.bps = [
                self.run(d.breakpoint_set(f"{MAIN}:{lines['thread']}", suspend="thread")).id,
                self.run(d.breakpoint_set(f"{MAIN}:{lines['cond']}", condition=CONDITIONS[0])).id,
                self.run(d.breakpoint_set(f"{MAIN}:{lines['plain']}")).id,
            ]
            self.answer(d.resume(timeout=WAIT))  # Crowd loads (its condition goes into the JVM), threads run

        def run(self, coro):
            return self.loop.run_until_complete(asyncio.wait_for(coro, 60))

        def answer(self, coro):
            """A call's answer; a refusal is an answer too, but never an internal error."""
            try:
                result = self.run(coro)
            except DebuggerError as exc:
                clean(exc)
                return None
            clean(render.render(result) if not isinstance(result, str) else result)
            return result

        def teardown(self) -> None:
            if not hasattr(self, "debugger"):
                return
            try:
                if self.alive():
                    self.run(self.debugger.breakpoint_remove("all"))
                    for _ in range(THREADS * 4):  # stops not delivered yet come out one resume at a time
                        if not self.run(self.debugger.resume(timeout=0)).stopped:
                            break
                    self.run(self.debugger.resume(timeout=0))
                    out = self.run(asyncio.to_thread(self.jvm.wait_for_output, "crowd done", 60))
                    done = re.search(r"crowd done (\d+) expected (\d+)", out)
                    assert done and done.group(1) == done.group(2), out
                    history = self.run(self.debugger.events(limit=10_000))
                    clean("\n".join(e.text for e in history))
            finally:
                self.run(self.debugger.close())
                self.loop.close()
                self.jvm.close()

        def alive(self) -> bool:
            return self.debugger.session.state in (SessionState.RUNNING, SessionState.STOPPED)

        # -- rules ---------------------------------------------------------------------------------------
        # Choices are drawn as indices, never from the JVM's state, so the same draws replay the same way.

        @rule(index=st.integers(0, 2))
        def toggle(self, index: int) -> None:
            if not self.alive():
                return
            bp_id = self.bps[index]
            info = next(b for b in self.run(self.debugger.breakpoint_list()) if b.id == bp_id)
            self.answer(self.debugger.breakpoint_update(bp_id, enabled=not info.enabled))

        @rule(index=st.integers(0, len(CONDITIONS) - 1))
        def change_condition(self, index: int) -> None:
            if self.alive():
                self.answer(self.debugger.breakpoint_update(self.bps[1], condition=CONDITIONS[index]))

        @rule()
        def resume_all(self) -> None:
            if self.alive():
                self.answer(self.debugger.resume(timeout=WAIT))

        @rule(index=st.integers(0, 7))
        def resume_one(self, index: int) -> None:
            stops = self.debugger.session.threads.stops() if self.alive() else []
            if stops:
                self.answer(self.debugger.resume(thread=stops[index % len(stops)].id, timeout=WAIT))

        @rule(kind=st.sampled_from(["over", "into", "out"]))
        def step(self, kind: str) -> None:
            stop = self.debugger.session.stop
            if self.alive() and stop is not None and stop.kind in (StopKind.BREAKPOINT, StopKind.STEP):
                self.answer(self.debugger.step(kind, timeout=WAIT))

        @rule(expression=st.sampled_from(["id * 1000 + r", "mix(id)", "total >= 0"]))
        def evaluate(self, expression: str) -> None:
            stop = self.debugger.session.stop
            if self.alive() and stop is not None and stop.location is not None and stop.location.method == "work":
                self.answer(self.debugger.evaluate(expression, thread=stop.thread_id))

        @rule()
        def pause(self) -> None:
            if self.alive():
                self.answer(self.debugger.pause())

        # -- invariants ------------------------------------------------------------------------------

        @invariant()
        def every_stop_is_readable(self) -> None:
            if not hasattr(self, "debugger") or not self.alive():
                return
            d = self.debugger
            for record in d.session.threads.stops():
                frames = self.answer(d.stack(thread=record.id))
                if frames is None:
                    continue
                assert all(f.location.method for f in frames), frames
                self.answer(d.locals(thread=record.id))
            if d.session.stop is not None:
                self.answer(d.snapshot())

    Crowd.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
                                       suppress_health_check=list(HealthCheck), derandomize=not RANDOM,
                                       phases=PHASES)
    Crowd.TestCase().runTest()
