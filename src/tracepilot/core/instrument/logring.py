"""The debugger's side of a logpoint probe's ring of lines (probe.py): every line the JVM formatted reaches the
history, in the order the JVM added them, with the thread that logged it, ending as a round-trip logpoint's
line does (" — at Warehouse.reserve:19 [picker-2]", and the same record data); hits are counted exactly.

Two ways in, both ending in `_take`, run one after the other by one reader (a job queue), so each line is
taken once; the lines taken together (a batch and what other logpoints logged meanwhile, or every ring at
a stop) reach the history in the order the JVM logged them (each line carries its nanoTime):
- a batch: a logging thread hands over the lines as one String and their threads (probe.py: when
  FLUSH_LINES wait, or 50 ms after the last batch; when the ring is full, the thread waits for the read, so
  no line is dropped while a debugger reads), and the probe's shutdown hook hands over the rest when the JVM
  exits (main returning, System.exit, an uncaught exception, SIGTERM/SIGINT);
- line by line, with nothing suspended: N (lines added, ever), the slots from READ to N, their strings and
  threads, then READ = N (the probe writes only slots the debugger has read). This runs before a stop is
  recorded (so lines logged before a stop are in that stop's answer), before breakpoint_list and events
  answer (hit counts are exact as of then), when the breakpoint is removed or changed, before a detach, and
  every POLL_SECONDS for a tail no batch will come for (a logpoint that went quiet: N did not move
  since the last poll).
What no debugger can promise: a JVM killed hard (kill -9, a native crash, Runtime.halt) runs no shutdown
hook, and the lines it logged since the last read (the last fraction of a second's) die with it.

The logpoint throttle (TRACEPILOT_LOGPOINT_RATE) limits only what the history records of these lines: the JVM
formats and counts every hit. When it drops lines it says so (a breakpoint_throttled event, and the
breakpoint's message with how many lines the history holds of how many were logged).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ...jdwp import ArrayReference, ClassType, JdwpTransportError, ReferenceType, StringReference
from ...jdwp.wire import Value
from ..errors import DebuggerError
from ..inspect.values import NESTED_STRING, quote_string
from ..model import Actor, CodeLocation
from ..rate import bucket_at
from ..render import log_where
from .method_probes import exit_line, logged_at
from .owner import Breakpoint, InJvmHost
from .probe import NEW_THREAD, RING_LINES, SEPARATOR, STRING_CLOSE, STRING_OPEN

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
MERGE_LINES = 1024  # with a batch, other logpoints' waiting lines are read to merge in, up to this many
_MASK = RING_LINES - 1
_U32 = 0xFFFFFFFF
_BATCH_PARTS = re.compile(f"([{SEPARATOR}{NEW_THREAD}])")
_STRING_PART = re.compile(f"{STRING_OPEN}(.*?){STRING_CLOSE}", re.DOTALL)


def _as_logged(match: re.Match[str]) -> str:
    """A String part of a log line as the round trip shows it: escaped, long ones cut (inspector.format_log)."""
    quoted = quote_string(match.group(1), NESTED_STRING)
    return quoted[1:-1] if quoted.endswith('"') else quoted


@dataclass
class Ring:
    """One logpoint probe's ring, as far as the debugger has read it."""

    bp_id: str
    probe_type: int
    class_name: str  # the user's class (dotted) and line: where its lines say they fired
    line: int
    method: str = ""  # a method logpoint's probe: the method (name + descriptor) it was placed in
    exit_sites: list[int] | None = None  # a method-exit logpoint's probe: the line of each of its returns
    placed_in: str = ""  # the method (name + descriptor) whose code calls the probe (a line's lambda is another)
    fields: dict[str, int] = field(default_factory=dict)
    arrays: tuple[int, int, int] = (0, 0, 0)  # BUF, THR, TIME
    taken: int = 0  # the JVM's READ: lines read so far (mod 2^32, as the JVM counts)
    lost: int = 0  # the JVM's LOST as last read
    polled: int = 0  # N at the last poll


@dataclass
class Slots:
    """Lines taken from a ring or a batch: each its text (or its String's id), thread and time."""

    lines: list[str | int] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    times: list[int] = field(default_factory=list)

    def __add__(self, other: Slots) -> Slots:
        return Slots(self.lines + other.lines, self.threads + other.threads, self.times + other.times)

    def __getitem__(self, part: slice) -> Slots:
        return Slots(self.lines[part], self.threads[part], self.times[part])


@dataclass
class Line:
    """A line on its way into the history."""

    time: int  # the JVM's nanoTime when it was logged (0: not read, the only ring's batch)
    ring: int  # its probe
    bp_id: str
    text: str
    thread: int
    thread_name: str | None
    location: CodeLocation | None
    returned: str | None = None  # a method exit's line: the value returned, as the round trip shows it


@dataclass
class Throttled:
    """What the history holds of a logpoint's lines (they differ once the throttle drops some)."""

    recorded: int = 0
    logged: int = 0


class LogRings:
    def __init__(self, in_jvm: InJvmHost) -> None:
        self.in_jvm = in_jvm
        self.rings: dict[int, Ring] = {}  # probe type -> ring
        self.throttled: dict[str, Throttled] = {}  # breakpoint id -> what the history holds of its lines
        # Thread names, asked while the ring or the batch still holds the thread (a thread that ended may be
        # collected once nothing refers to it, and its name with it).
        self.names: dict[int, str] = {}
        self._jobs: deque[tuple[Callable[[], Awaitable[None]], asyncio.Future[None]]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._held: list[Line] = []  # taken, waiting for an older line of another ring (_cutoff)

    @property
    def session(self) -> Any:
        return self.in_jvm.session

    def add(self, bp: Breakpoint, probe_type: int, class_name: str, line: int, method: str = "",
            exit_sites: list[int] | None = None, placed_in: str = "") -> None:
        self.rings.setdefault(probe_type, Ring(bp.info.id, probe_type, class_name.replace("/", "."), line, method,
                                               exit_sites, placed_in))
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll(), name="tracepilot-logpoint-poll")

    async def drain(self, bp_id: str | None = None, polling: bool = False) -> None:
        """Read the rings into the history now, after every batch handed over before. Never raises: a VM that
        is going away simply has nothing more to read. (`bp_id`: the breakpoint whose lines must be in; with
        several logpoints every ring is read, so that the history keeps the order they were logged in.)"""
        if self.rings:
            await self._submit(lambda: self._drain_now(bp_id, polling))

    async def _drain_now(self, bp_id: str | None, polling: bool) -> None:
        lines: list[Line] = []
        for ring in list(self.rings.values()):
            if bp_id is None or ring.bp_id == bp_id or len(self.rings) > 1:
                try:
                    lines += await self._read(ring, polling)
                except (JdwpTransportError, DebuggerError, OSError, TimeoutError) as exc:
                    log.debug("reading the log ring of %s failed: %s", ring.bp_id, exc)
        self._record(lines, await self._cutoff())

    async def handover(self, probe_type: int, batch: int, wait: bool = False) -> None:
        """A batch a logging thread (or the shutdown hook) handed over: Object[]{String, Thread[], long[]}.
        Only reading it holds the thread (the batch is garbage once it runs on), unless `wait` (the JVM
        exits: names and counts must be read while it is still there); the rest is queued in order."""
        vm = self.session.require_vm()
        ring = self.rings.get(probe_type)
        if ring is None:
            return
        if not batch:  # a full ring whose lines are all in batches still on their way: the thread waits
            await self._submit(lambda: self._drain_now(None, False))
            return
        try:
            text, threads, times = (await vm.send(ArrayReference.GetValues, batch, 0, 3)).values
            head, *parts = _BATCH_PARTS.split((await vm.send(StringReference.Value, text.value)).string_value)
            runs = parts[0::2].count(NEW_THREAD)
            run_threads = [v.value for v in (await vm.send(ArrayReference.GetValues, threads.value, 0,
                                                           runs)).values] if runs else []
            # The times only order lines of several logpoints (the thread waits while they are decoded).
            stamps = [v.value for v in (await vm.send(ArrayReference.GetValues, times.value, 0, len(parts) // 2)
                                        ).values] if parts and len(self.rings) > 1 else [0] * (len(parts) // 2)
            first = int(head) & _U32
        except (JdwpTransportError, DebuggerError, OSError, TimeoutError, ValueError) as exc:
            log.debug("reading a log batch of %s failed: %s", ring.bp_id, exc)
            return
        await self._learn_names(run_threads)
        thread_ids, run = [], -1
        for separator in parts[0::2]:
            run += separator == NEW_THREAD
            thread_ids.append(run_threads[run] if run >= 0 else 0)
        got = Slots(list(parts[1::2]), thread_ids, stamps)
        taken = self._submit(lambda: self._take_batch(ring, first, got))
        if wait:
            await taken

    async def _take_batch(self, ring: Ring, first: int, got: Slots) -> None:
        """A batch, merged (by time) with every line logged since and not read yet, at any logpoint: a thread
        that logs at two logpoints has its lines in the order it logged them. (A flood of more than
        MERGE_LINES waiting is left to its own batches: reading it line by line would slow the target.)"""
        lines = await self._take(ring, first, got)
        others = list(self.rings.values()) if len(self.rings) > 1 else []  # (one ring is in order by itself)
        for other in others:  # (this ring too: the lines logged since its batch)
            try:
                lines += await self._read(other, polling=False, at_most=MERGE_LINES)
            except (JdwpTransportError, DebuggerError, OSError, TimeoutError) as exc:
                log.debug("reading the log ring of %s failed: %s", other.bp_id, exc)
        self._record(lines, await self._cutoff())

    def _submit(self, job: Callable[[], Awaitable[None]]) -> asyncio.Future[None]:
        """Run `job` after every job submitted before it: one reader of the rings, in order, so each line
        is taken once and lines reach the history in the order they were handed over or asked for."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._jobs.append((job, done))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="tracepilot-logpoint-read")
        return done

    async def _work(self) -> None:
        while self._jobs:
            job, done = self._jobs.popleft()
            try:
                await job()
            except (JdwpTransportError, DebuggerError, OSError, TimeoutError) as exc:
                log.debug("reading logpoint lines failed: %s", exc)
            except Exception:  # a bug here must cost log lines, never the stop or the answer waiting
                log.exception("reading logpoint lines failed")
            finally:
                if not done.done():
                    done.set_result(None)

    async def close(self, bp_id: str) -> None:
        """The breakpoint's probes go: read what they logged, then stop reading them."""
        await self.drain(bp_id)
        for probe_type in [t for t, r in self.rings.items() if r.bp_id == bp_id]:
            self.rings.pop(probe_type, None)
        self.throttled.pop(bp_id, None)

    def reset_throttle(self, bp: Breakpoint) -> None:
        """breakpoint_update starts the history throttle afresh."""
        if self.throttled.pop(bp.info.id, None) is not None:
            bp.bucket, bp.info.sampled = None, None
            if bp.info.message and bp.info.message.startswith("throttled"):
                bp.info.message = None

    def forget(self) -> None:
        for task in (self._poller, self._worker):
            if task is not None:
                task.cancel()
        self._poller = self._worker = None
        for _, done in self._jobs:
            if not done.done():
                done.set_result(None)
        self._jobs.clear()
        with contextlib.suppress(Exception):  # (the history may be going too)
            self._record([])  # lines held for an older one that will never come
        self.rings.clear()
        self.throttled.clear()
        self.names.clear()

    async def _poll(self) -> None:
        while self.rings:
            await asyncio.sleep(POLL_SECONDS)
            conn = self.session.conn
            if conn is None or conn.is_closed:
                return
            await self.drain(polling=True)

    async def _fields(self, ring: Ring) -> dict[str, int]:
        if not ring.fields:
            vm = self.session.require_vm()
            ring.fields = {f.name: f.id for f in await vm.fields(ring.probe_type)}
            arrays = (await vm.send(ReferenceType.GetValues, ring.probe_type,
                                    [ring.fields["BUF"], ring.fields["THR"], ring.fields["TIME"]])).values
            ring.arrays = (arrays[0].value, arrays[1].value, arrays[2].value)
        return ring.fields

    async def _read(self, ring: Ring, polling: bool, at_most: int | None = None) -> list[Line]:
        """The lines from READ to N from the ring: their String ids, threads and times in three commands,
        then a command per line the history takes (fine for a tail or a throttled logpoint; a flood comes in
        batches). Polling, or with more than `at_most` waiting, a ring that is still growing is left alone."""
        vm = self.session.require_vm()
        fields = await self._fields(ring)
        n = (await vm.send(ReferenceType.GetValues, ring.probe_type, [fields["N"]])).values[0].value & _U32
        count = (n - ring.taken) & _U32
        if polling:
            growing, ring.polled = n != ring.polled, n
            if growing:
                return []  # still logging: its threads hand the lines over in batches (cheaper than one by one)
        if at_most is not None and count > at_most:
            return []
        return await self._take(ring, ring.taken, await self._slots(ring, count) if count else Slots())

    async def _take(self, ring: Ring, first: int, got: Slots) -> list[Line]:
        """Lines `first`, `first + 1`, ... (some may have been taken already; a line is its text, or the id of
        its String still in the ring): move READ on, count; the lines the history takes, to record."""
        vm = self.session.require_vm()
        fields = await self._fields(ring)
        gap = (first - ring.taken) & _U32
        if 0 < gap < 1 << 31:  # an earlier batch is still on its way: its lines come from the ring, first
            got, first = (await self._slots(ring, gap)) + got, ring.taken
        got = got[min((ring.taken - first) & _U32, len(got.lines)):]
        bp = self.in_jvm.tracker.by_id.get(ring.bp_id)
        # What the history will hold, read before READ moves on (until then the ring keeps the strings).
        admitted = got[:self._admit(bp, len(got.lines))] if bp is not None else Slots()
        texts = await self._texts(admitted.lines)
        await self._learn_names(admitted.threads)
        if got.lines:
            ring.taken = (ring.taken + len(got.lines)) & _U32
        try:
            if got.lines:
                signed = ring.taken - (1 << 32) if ring.taken >= 1 << 31 else ring.taken
                await vm.send(ClassType.SetValues, ring.probe_type, [(fields["READ"], Value.int(signed))])
            lost, hits = (v.value for v in (await vm.send(ReferenceType.GetValues, ring.probe_type, [
                fields["LOST"], fields["HITS"]])).values)
        except (JdwpTransportError, DebuggerError, OSError, TimeoutError):
            # The JVM went (a batch read before it did is still recorded); no news of lost lines or of a
            # hit rule's count.
            lost = ring.lost
            hits = bp.info.hits if bp is not None else 0
        dropped, ring.lost = (lost - ring.lost) & _U32, lost
        if bp is None or (not got.lines and not dropped):
            return []
        bp.info.hits = hits if bp.hit_rule is not None else bp.info.hits + len(got.lines) + dropped
        if dropped:
            self.session.history.add(
                "error", f"{bp.info.id}: {dropped} log line{'s' if dropped != 1 else ''} lost: the probe's buffer "
                f"was full and no debugger read it", Actor.TARGET, breakpoint=bp.info.id, lost=dropped)
        if not got.lines:
            return []
        bp.fired = True
        await self.in_jvm.tracker.arm_dependants(bp)
        self._count(bp, len(texts), len(got.lines))
        location = self._location(bp, ring)
        lines = [Line(time, ring.probe_type, bp.info.id, text, thread, self.names.get(thread), location)
                 for text, thread, time in zip(texts, admitted.threads, admitted.times, strict=True)]
        if ring.exit_sites is not None:  # each line says which return fired and what it returned
            for line in lines:
                line.text, line.location, line.returned = exit_line(bp, ring.method, ring.exit_sites, line.text)
        return lines

    async def _slots(self, ring: Ring, count: int) -> Slots:
        """The `count` lines from READ on (two runs when they wrap around the ring's end): their String ids
        (read as text only if the history takes them), threads and times."""
        vm = self.session.require_vm()
        start = ring.taken & _MASK
        runs = [(start, min(count, RING_LINES - start))]
        if count > runs[0][1]:
            runs.append((0, count - runs[0][1]))
        out = Slots()
        for first, length in runs:
            if length <= 0:
                continue
            out.lines += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[0], first,
                                                          length)).values]
            out.threads += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[1], first,
                                                            length)).values]
            out.times += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[2], first,
                                                          length)).values]
        return out

    async def _learn_names(self, threads: list[int]) -> None:
        vm = self.session.require_vm()
        for thread in dict.fromkeys(threads):
            if thread and thread not in self.names:
                try:
                    self.names[thread] = await vm.thread_name(thread)
                except (JdwpTransportError, DebuggerError, OSError, TimeoutError):
                    return  # the JVM went: lines without a name rather than no lines

    async def _texts(self, lines: list[str | int]) -> list[str]:
        vm = self.session.require_vm()
        unique = list(dict.fromkeys(i for i in lines if isinstance(i, int) and i))
        replies = await asyncio.gather(*(vm.send(StringReference.Value, i) for i in unique))
        strings = {i: r.string_value for i, r in zip(unique, replies, strict=True)}
        return [line if isinstance(line, str) else strings.get(line, "") for line in lines]

    def _admit(self, bp: Breakpoint, count: int) -> int:
        """How many of `count` lines the history takes: all, or what the logpoint throttle's bucket allows."""
        rate = self.in_jvm.tracker.logpoint_rate
        if rate <= 0:
            return count
        bp.bucket = bucket_at(bp.bucket, rate)
        return bp.bucket.take_up_to(count)

    async def _cutoff(self) -> int | None:
        """With several rings: the JVM time of the oldest line logged and not taken yet (a ring left to its
        batches, or a line added after its ring was read): lines taken that are newer wait for it (held), so
        the history has every line in the order logged. None: nothing to wait for (or the JVM went)."""
        if len(self.rings) < 2:
            return None
        oldest: int | None = None
        try:
            vm = self.session.require_vm()
            for ring in list(self.rings.values()):
                fields = await self._fields(ring)
                n = (await vm.send(ReferenceType.GetValues, ring.probe_type, [fields["N"]])).values[0].value & _U32
                if n != ring.taken:
                    first = (await vm.send(ArrayReference.GetValues, ring.arrays[2], ring.taken & _MASK, 1)).values
                    oldest = first[0].value if oldest is None else min(oldest, first[0].value)
        except (JdwpTransportError, DebuggerError, OSError, TimeoutError):
            return None  # the JVM went: nothing more will come, everything held goes in
        return oldest

    def _record(self, lines: list[Line], cutoff: int | None = None) -> None:
        """Into the history in the order they were logged (by the JVM's clock, taken under each probe's
        lock), each as a round-trip logpoint's line; lines newer than `cutoff` are held for a later round."""
        add = self.session.history.add
        lines = self._held + lines
        if len({line.ring for line in lines}) > 1:
            lines = sorted(lines, key=lambda entry: entry.time)  # (each ring's own lines are in order already)
        if cutoff is not None:
            self._held = [line for line in lines if line.time >= cutoff]
            lines = [line for line in lines if line.time < cutoff]
        else:
            self._held = []
        for line in lines:
            text = _STRING_PART.sub(_as_logged, line.text) if STRING_OPEN in line.text else line.text
            where, details = log_where(line.location, line.thread_name) if line.location is not None else ("", {})
            if line.returned is not None:
                details["returned"] = line.returned
                where += f" returned {line.returned}"
            add("log", text + where, Actor.TARGET, breakpoint=line.bp_id, thread=line.thread, **details)

    def _count(self, bp: Breakpoint, recorded: int, logged: int) -> None:
        """What the history holds of the logpoint's lines; when the throttle drops some, say so."""
        stats = self.throttled.setdefault(bp.info.id, Throttled())
        first = stats.recorded == stats.logged and recorded < logged
        stats.logged += logged
        stats.recorded += recorded
        if stats.recorded == stats.logged:
            return
        rate = self.in_jvm.tracker.logpoint_rate
        bp.info.sampled = -(-stats.logged // max(stats.recorded, 1))
        bp.info.message = (f"throttled: more than {rate:g} log lines/s; the history holds {stats.recorded} of "
                           f"{stats.logged} lines logged; hit counts stay exact")
        if first:
            self.session.history.add(
                "breakpoint_throttled",
                f"{bp.info.id} logpoint throttled: more than {rate:g} lines/s would flood the history, so it records "
                f"only some of them from here on (the JVM logs every hit and hit counts stay exact; breakpoint_list "
                f"says how many lines were recorded; breakpoint_update {bp.info.id} resets it)",
                Actor.TARGET, breakpoint=bp.info.id, rate=rate)

    @staticmethod
    def _location(bp: Breakpoint, ring: Ring) -> CodeLocation | None:
        if ring.method:  # a method logpoint: the entry of the method whose probe logged
            return logged_at(bp, ring.method)
        at_line = [loc for loc in bp.info.locations if loc.class_name == ring.class_name and loc.line == ring.line]
        for loc in at_line:  # (a line with a lambda on it is in two methods: the one whose probe logged)
            if loc.method + (loc.method_signature or "") == ring.placed_in:
                return loc
        if at_line:
            return at_line[0]
        return bp.info.locations[0] if bp.info.locations else None
