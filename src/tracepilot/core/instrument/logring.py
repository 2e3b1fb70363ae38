"""The debugger's side of a logpoint probe's ring of lines (probe.py): every line the JVM formatted reaches the
history, in the order the JVM added them, with the thread that logged it, ending as a round-trip logpoint's
line does (" — at Warehouse.reserve:19 [picker-2]", and the same record data); hits are counted exactly.

Two ways in, both ending in `_take`, run one after the other by one reader (a job queue), so each line is
taken once, and lines reach the history in the order the JVM added them:
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
import logging
import re
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...jdwp import ArrayReference, ClassType, JdwpTransportError, ReferenceType, StringReference
from ...jdwp.wire import Value
from ..errors import DebuggerError
from ..inspect.values import NESTED_STRING, quote_string
from ..model import Actor, CodeLocation
from ..render import log_where
from .probe import NEW_THREAD, RING_LINES, SEPARATOR, STRING_CLOSE, STRING_OPEN

if TYPE_CHECKING:
    from ..breakpoints import Breakpoint
    from .jvm import InJvm

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
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
    fields: dict[str, int] = field(default_factory=dict)
    arrays: tuple[int, int] = (0, 0)  # BUF, THR
    taken: int = 0  # the JVM's READ: lines read so far (mod 2^32, as the JVM counts)
    lost: int = 0  # the JVM's LOST as last read
    polled: int = 0  # N at the last poll


@dataclass
class Throttled:
    """What the history holds of a logpoint's lines (they differ once the throttle drops some)."""

    recorded: int = 0
    logged: int = 0


class LogRings:
    def __init__(self, in_jvm: InJvm) -> None:
        self.in_jvm = in_jvm
        self.rings: dict[int, Ring] = {}  # probe type -> ring
        self.throttled: dict[str, Throttled] = {}  # breakpoint id -> what the history holds of its lines
        self._jobs: deque[tuple[Callable[[], Awaitable[None]], asyncio.Future[None]]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None

    @property
    def session(self) -> Any:
        return self.in_jvm.session

    def add(self, bp: Breakpoint, probe_type: int, class_name: str, line: int) -> None:
        self.rings.setdefault(probe_type, Ring(bp.info.id, probe_type, class_name.replace("/", "."), line))
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll(), name="tracepilot-logpoint-poll")

    async def drain(self, bp_id: str | None = None, polling: bool = False) -> None:
        """Read every ring (of one breakpoint) into the history now, after every batch handed over before.
        Never raises: a VM that is going away simply has nothing more to read."""
        if self.rings:
            await self._submit(lambda: self._drain_now(bp_id, polling))

    async def _drain_now(self, bp_id: str | None, polling: bool) -> None:
        for ring in list(self.rings.values()):
            if bp_id is None or ring.bp_id == bp_id:
                try:
                    await self._read(ring, polling)
                except (JdwpTransportError, DebuggerError, OSError, TimeoutError) as exc:
                    log.debug("reading the log ring of %s failed: %s", ring.bp_id, exc)

    async def handover(self, probe_type: int, batch: int, wait: bool = False) -> None:
        """A batch a logging thread (or the shutdown hook) handed over: Object[]{String, Thread[]}. Only
        reading it holds the thread (the batch is garbage once it runs on), unless `wait` (the JVM exits:
        names and counts must be read while it is still there); the rest is queued in order."""
        vm = self.session.require_vm()
        ring = self.rings.get(probe_type)
        if ring is None:
            return
        if not batch:  # a full ring whose lines are all in batches still on their way: the thread waits
            await self._submit(lambda: self._read(ring, polling=False))
            return
        try:
            text, threads = (await vm.send(ArrayReference.GetValues, batch, 0, 2)).values
            head, *parts = _BATCH_PARTS.split((await vm.send(StringReference.Value, text.value)).string_value)
            runs = parts[0::2].count(NEW_THREAD)
            run_threads = [v.value for v in (await vm.send(ArrayReference.GetValues, threads.value, 0,
                                                           runs)).values] if runs else []
            first = int(head) & _U32
        except (JdwpTransportError, DebuggerError, OSError, TimeoutError, ValueError) as exc:
            log.debug("reading a log batch of %s failed: %s", ring.bp_id, exc)
            return
        texts: list[str | int] = list(parts[1::2])
        thread_ids, run = [], -1
        for separator in parts[0::2]:
            run += separator == NEW_THREAD
            thread_ids.append(run_threads[run] if run >= 0 else 0)
        taken = self._submit(lambda: self._take(ring, first, texts, thread_ids))
        if wait:
            await taken

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
        self.rings.clear()
        self.throttled.clear()

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
            buf, thr = (await vm.send(ReferenceType.GetValues, ring.probe_type,
                                      [ring.fields["BUF"], ring.fields["THR"]])).values
            ring.arrays = (buf.value, thr.value)
        return ring.fields

    async def _read(self, ring: Ring, polling: bool) -> None:
        """The lines from READ to N from the ring: their String ids and threads in two commands, then a command
        per line the history takes (fine for a tail or a throttled logpoint; a flood comes in batches)."""
        vm = self.session.require_vm()
        fields = await self._fields(ring)
        n = (await vm.send(ReferenceType.GetValues, ring.probe_type, [fields["N"]])).values[0].value & _U32
        count = (n - ring.taken) & _U32
        if polling:
            growing, ring.polled = n != ring.polled, n
            if growing:
                return  # still logging: its threads hand the lines over in batches (cheaper than one by one)
        texts, threads = await self._slots(ring, count) if count else ([], [])
        await self._take(ring, ring.taken, texts, threads)

    async def _take(self, ring: Ring, first: int, lines: list[str | int], threads: list[int]) -> None:
        """Lines `first`, `first + 1`, ... (some may have been taken already; a line is its text, or the id of
        its String still in the ring): record them, move READ on, count."""
        vm = self.session.require_vm()
        fields = await self._fields(ring)
        gap = (first - ring.taken) & _U32
        if 0 < gap < 1 << 31:  # an earlier batch is still on its way: its lines come from the ring, first
            before, before_threads = await self._slots(ring, gap)
            lines, threads, first = [*before, *lines], before_threads + threads, ring.taken
        skip = min((ring.taken - first) & _U32, len(lines))
        lines, threads = lines[skip:], threads[skip:]
        bp = self.in_jvm.tracker.by_id.get(ring.bp_id)
        # What the history will hold, read before READ moves on (until then the ring keeps the strings).
        admitted = self._admit(bp, lines, threads) if bp is not None else []
        texts = await self._texts([line for line, _ in admitted])
        if lines:
            ring.taken = (ring.taken + len(lines)) & _U32
            signed = ring.taken - (1 << 32) if ring.taken >= 1 << 31 else ring.taken
            await vm.send(ClassType.SetValues, ring.probe_type, [(fields["READ"], Value.int(signed))])
        lost, hits = (v.value for v in (await vm.send(ReferenceType.GetValues, ring.probe_type, [
            fields["LOST"], fields["HITS"]])).values)
        dropped, ring.lost = (lost - ring.lost) & _U32, lost
        if bp is None or (not lines and not dropped):
            return
        bp.info.hits = hits if bp.hit_rule is not None else bp.info.hits + len(lines) + dropped
        if lines:
            bp.fired = True
            await self.in_jvm.tracker.arm_dependants(bp)
            await self._record(bp, ring, texts, [thread for _, thread in admitted], len(lines))
        if dropped:
            self.session.history.add(
                "error", f"{bp.info.id}: {dropped} log line{'s' if dropped != 1 else ''} lost: the probe's buffer "
                f"was full and no debugger read it", Actor.TARGET, breakpoint=bp.info.id, lost=dropped)

    async def _slots(self, ring: Ring, count: int) -> tuple[list[str | int], list[int]]:
        """The `count` lines from READ on (two runs when they wrap around the ring's end): their String ids
        (read as text only if the history takes them) and threads."""
        vm = self.session.require_vm()
        start = ring.taken & _MASK
        runs = [(start, min(count, RING_LINES - start))]
        if count > runs[0][1]:
            runs.append((0, count - runs[0][1]))
        ids: list[str | int] = []
        threads: list[int] = []
        for first, length in runs:
            if length <= 0:
                continue
            ids += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[0], first, length)).values]
            threads += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[1], first, length)).values]
        return ids, threads

    async def _texts(self, lines: list[str | int]) -> list[str]:
        vm = self.session.require_vm()
        unique = list(dict.fromkeys(i for i in lines if isinstance(i, int) and i))
        replies = await asyncio.gather(*(vm.send(StringReference.Value, i) for i in unique))
        strings = {i: r.string_value for i, r in zip(unique, replies, strict=True)}
        return [line if isinstance(line, str) else strings.get(line, "") for line in lines]

    def _admit(self, bp: Breakpoint, lines: list[str | int], threads: list[int]) -> list[tuple[str | int, int]]:
        """The lines the history takes: all, or under the logpoint throttle what its token bucket lets through."""
        rate = self.in_jvm.tracker.logpoint_rate
        if rate <= 0:
            return list(zip(lines, threads, strict=True))
        if bp.bucket is None or bp.bucket.rate != rate:
            from ..breakpoints.throttle import TokenBucket

            bp.bucket = TokenBucket(rate)
        admitted = bp.bucket.take_up_to(len(lines))
        return list(zip(lines[:admitted], threads[:admitted], strict=True))

    async def _record(self, bp: Breakpoint, ring: Ring, texts: list[str], threads: list[int], logged: int) -> None:
        """Into the history, as a round-trip logpoint's lines: `texts` of the `logged` lines (the throttle's
        share), and when that is not all of them, say so."""
        session = self.session
        vm = session.require_vm()
        location = self._location(bp, ring)
        names = {t: await vm.thread_name(t) for t in dict.fromkeys(threads) if t}
        for text, thread in zip(texts, threads, strict=True):
            if STRING_OPEN in text:
                text = _STRING_PART.sub(_as_logged, text)
            where, details = log_where(location, names.get(thread)) if location is not None else ("", {})
            session.history.add("log", text + where, Actor.TARGET, breakpoint=bp.info.id, thread=thread, **details)
        stats = self.throttled.setdefault(bp.info.id, Throttled())
        first = stats.recorded == stats.logged and len(texts) < logged
        stats.logged += logged
        stats.recorded += len(texts)
        if stats.recorded == stats.logged:
            return
        rate = self.in_jvm.tracker.logpoint_rate
        bp.info.sampled = -(-stats.logged // max(stats.recorded, 1))
        bp.info.message = (f"throttled: more than {rate:g} log lines/s; the history holds {stats.recorded} of "
                           f"{stats.logged} lines logged; hit counts stay exact")
        if first:
            session.history.add(
                "breakpoint_throttled",
                f"{bp.info.id} logpoint throttled: more than {rate:g} lines/s would flood the history, so it records "
                f"only some of them from here on (the JVM logs every hit and hit counts stay exact; breakpoint_list "
                f"says how many lines were recorded; breakpoint_update {bp.info.id} resets it)",
                Actor.TARGET, breakpoint=bp.info.id, rate=rate)

    @staticmethod
    def _location(bp: Breakpoint, ring: Ring) -> CodeLocation | None:
        for loc in bp.info.locations:
            if loc.class_name == ring.class_name and loc.line == ring.line:
                return loc
        return bp.info.locations[0] if bp.info.locations else None
