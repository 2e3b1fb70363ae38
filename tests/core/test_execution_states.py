"""A stateful property test of the execution model over the thread storm (issue 16).

Hypothesis drives random sequences of resume (all / one thread), step, pause, evaluate with a call and
breakpoint set / toggle / remove against a real JVM, and after every step checks the invariants:

- every stop a waiting call returns is new (never one delivered before) and is in the history once;
- the suspend counts the debugger believes in agree with JDWP's ThreadReference.SuspendCount (exactly when
  every thread is held; otherwise a running thread may be one event ahead of the debugger);
- at the end, with the breakpoints gone and everything resumed, the program prints what it prints without
  a debugger (nothing was left suspended, no call changed its result).

Bounded in time: a few examples of a few steps, short waits.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tracepilot.core import render
from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError
from tracepilot.core.model import SessionState, StopKind
from tracepilot.jdwp import ThreadReference, VirtualMachine

pytestmark = pytest.mark.timeout(240)

THREADS, ROUNDS = 4, 300
WAIT = 1.0  # seconds a waiting call waits: short, the storm is fast


def storm_total(threads: int, rounds: int) -> int:
    return sum(3 * i + 2 * r + 1 for i in range(threads) for r in range(rounds))


def test_random_sequences_keep_the_execution_model_true(jvm_factory, line_of, jdk):
    lines = {"work": line_of("storm-work"), "after": line_of("storm-after")}

    class Storm(RuleBasedStateMachine):
        @initialize(suspend=st.sampled_from(["all", "thread"]))
        def start(self, suspend: str) -> None:
            self.loop = asyncio.new_event_loop()
            self.jvm = jvm_factory("Storm", str(THREADS), str(ROUNDS), jdk=jdk)
            self.debugger = Debugger()
            self.run(self.debugger.attach(self.jvm.address, timeout=10))
            self.delivered: set[int] = set()  # id() of every stop a waiting call returned
            self.delivered_stops: list = []  # keep them alive so ids stay unique
            self.bps: list[str] = []
            bp = self.run(self.debugger.breakpoint_set(f"fixtures.Storm:{lines['work']}", suspend=suspend))
            self.bps.append(bp.id)

        def run(self, coro):
            return self.loop.run_until_complete(asyncio.wait_for(coro, 60))

        def teardown(self) -> None:
            if not hasattr(self, "debugger"):
                return
            try:
                if self.debugger.session.state in (SessionState.RUNNING, SessionState.STOPPED):
                    self.run(self.debugger.breakpoint_remove("all"))
                    for _ in range(THREADS * 4):  # every stop not delivered yet comes out one resume at a time
                        result = self.run(self.debugger.resume(timeout=0))
                        if not result.stopped:
                            break
                    self.run(self.debugger.resume(timeout=0))
                    out = self.run(asyncio.to_thread(self.jvm.wait_for_output, "storm done", 30))
                    assert f"storm done {storm_total(THREADS, ROUNDS)}" in out
            finally:
                self.run(self.debugger.close())
                self.loop.close()
                self.jvm.close()

        # -- helpers ---------------------------------------------------------------------------------

        @property
        def session(self):
            return self.debugger.session

        def alive(self) -> bool:
            return self.session.state in (SessionState.RUNNING, SessionState.STOPPED)

        def took(self, result, *, new: bool) -> None:
            """A waiting call's answer: a stop it returns is new (resume, step) and never handed out twice."""
            if not result.stopped or result.stop is None or result.stop.kind is StopKind.VM_DEATH:
                return
            key = id(result.stop)
            if new:
                assert key not in self.delivered, f"delivered twice: {result.stop.headline()}"
            if key not in self.delivered:
                self.delivered.add(key)
                self.delivered_stops.append(result.stop)

        # -- rules ---------------------------------------------------------------------------------------

        @rule(line=st.sampled_from(["work", "after"]), suspend=st.sampled_from(["all", "thread"]))
        def set_breakpoint(self, line: str, suspend: str) -> None:
            if not self.alive():
                return
            bp = self.run(self.debugger.breakpoint_set(f"fixtures.Storm:{lines[line]}", suspend=suspend))
            self.bps.append(bp.id)

        # No preconditions and choices drawn as indices, never from the JVM's state: the same draws must replay
        # the same way (a rule that does not apply in the state the JVM is in does nothing).
        @rule(index=st.integers(0, 7))
        def toggle_breakpoint(self, index: int) -> None:
            if not self.alive() or not self.bps:
                return
            bp_id = self.bps[index % len(self.bps)]
            info = next(b for b in self.run(self.debugger.breakpoint_list()) if b.id == bp_id)
            self.run(self.debugger.breakpoint_update(bp_id, enabled=not info.enabled))

        @rule(index=st.integers(0, 7))
        def remove_breakpoint(self, index: int) -> None:
            if not self.alive() or not self.bps:
                return
            bp_id = self.bps[index % len(self.bps)]
            self.run(self.debugger.breakpoint_remove(bp_id))
            self.bps.remove(bp_id)

        @rule()
        def resume_all(self) -> None:
            if not self.alive():
                return
            self.took(self.run(self.debugger.resume(timeout=WAIT)), new=True)

        @rule(index=st.integers(0, 7))
        def resume_one(self, index: int) -> None:
            stops = self.session.threads.stops() if self.alive() else []
            if not stops:
                return
            record = stops[index % len(stops)]
            try:
                result = self.run(self.debugger.resume(thread=record.id, timeout=WAIT))
            except DebuggerError:
                return  # the thread ended meanwhile
            self.took(result, new=True)

        @rule()
        def step_over(self) -> None:
            stop = self.session.stop
            if not self.alive() or stop is None or stop.kind not in (StopKind.BREAKPOINT, StopKind.STEP):
                return
            try:
                result = self.run(self.debugger.step("over", timeout=WAIT))
            except DebuggerError:
                return  # e.g. the thread of the current stop is inside a call
            self.took(result, new=True)

        @rule()
        def pause(self) -> None:
            if not self.alive():
                return
            self.took(self.run(self.debugger.pause()), new=False)

        @rule()
        def evaluate_with_a_call(self) -> None:
            stop = self.session.stop
            if not self.alive() or stop is None or stop.kind is not StopKind.BREAKPOINT or \
                    stop.location.method not in ("work", "after"):
                return
            value = self.run(self.debugger.evaluate("compute(id)", thread=stop.thread_id))
            thread_id = int(self.run(self.debugger.evaluate("id", thread=stop.thread_id)).text)
            assert value.text == str(2 * thread_id + 1)

        @rule()
        def wait(self) -> None:
            if not self.alive():
                return
            self.took(self.run(self.debugger.wait_for_stop(WAIT)), new=False)

        @rule()
        def look(self) -> None:
            """status and threads always answer, and show every stop the debugger holds."""
            text = render.render(self.run(self.debugger.status()))
            if self.alive():
                for record in self.session.threads.stops():
                    assert (record.name or str(record.id)) in text, text

        # -- invariants ------------------------------------------------------------------------------

        @invariant()
        def stops_are_in_the_history_once(self) -> None:
            if not hasattr(self, "debugger"):
                return
            records = self.run(self.debugger.events(kinds=["stop"], limit=10_000))
            times = [r.data.get("stop", {}).get("time") for r in records]
            assert len(times) == len(set(times)), "a stop was recorded twice"
            seen = set(times)
            for stop in self.delivered_stops:
                assert stop.time in seen, f"delivered but not in the history: {stop.headline()}"

        @invariant()
        def suspend_counts_agree(self) -> None:
            if not hasattr(self, "debugger") or not self.alive():
                return
            vm = self.session.vm
            book = self.session.threads
            exact = self.session._all_held()  # noqa: SLF001 - the invariant is exact only when nothing runs
            for tid in self.run(vm.send(VirtualMachine.AllThreads)).threads:
                try:
                    count = self.run(vm.send(ThreadReference.SuspendCount, tid)).suspend_count
                except Exception:  # noqa: BLE001 - ended meanwhile
                    continue
                expected = book.expected_count(tid)
                if exact:
                    assert count == expected, f"{book.describe(tid)}: JVM {count}, debugger {expected}"
                else:  # a running thread may have been suspended by an event still on its way
                    assert expected <= count <= expected + 1, f"{book.describe(tid)}: JVM {count}, debugger {expected}"

    Storm.TestCase.settings = settings(max_examples=4, stateful_step_count=12, deadline=None,
                                       suppress_health_check=list(HealthCheck), derandomize=True)
    Storm.TestCase().runTest()
