"""The debugger's side of a logpoint probe's ring of lines (probe.py): every line the JVM formatted reaches the
history, in the order the JVM added them, with the thread that logged it, ending as a round-trip logpoint's
line does (" — at Warehouse.reserve:19 [picker-2]", and the same record data); hits are counted exactly.

Reading needs nothing suspended: N (lines added, ever), the slots from READ to N, their strings and threads,
then READ = N (the probe writes only slots at or above N, so what we read stays put until READ moves on).
Lines are read
- every POLL_SECONDS while any logpoint runs in the JVM (so `events` shows them as the program runs);
- before a stop is recorded, so lines logged before a stop are in that stop's answer; before breakpoint_list
  and events answer (hit counts are exact at that moment); when the breakpoint is removed or changed; and
  before a detach;
- when a logging thread finds the ring half full: its handover() breakpoint holds that one thread while we
  read (a full ring makes the thread wait for the read, so no line is dropped while a debugger reads);
- at JVM shutdown: the probe's shutdown hook calls handover() (main returning, System.exit, an uncaught
  exception, SIGTERM/SIGINT), and we read before the JVM goes on exiting.
What no debugger can promise: a JVM killed hard (kill -9, a native crash, Runtime.halt) runs no hook, and the
lines it logged since the last read (at most POLL_SECONDS' worth) die with it.

The logpoint throttle (TRACEPILOT_LOGPOINT_RATE) limits only what the history records of these lines: the JVM
formats and counts every hit. When it drops lines it says so (a breakpoint_throttled event, and the
breakpoint's message with how many lines the history holds of how many were logged).
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...jdwp import ArrayReference, ClassType, JdwpError, ReferenceType, StringReference, VMDisconnected
from ...jdwp.wire import Value
from ..errors import DebuggerError
from ..inspect.values import NESTED_STRING, quote_string
from ..model import Actor, CodeLocation
from ..render import log_where
from .probe import RING_LINES, STRING_CLOSE, STRING_OPEN

if TYPE_CHECKING:
    from ..breakpoints import Breakpoint
    from .jvm import InJvm

log = logging.getLogger(__name__)

POLL_SECONDS = 0.2
_MASK = RING_LINES - 1
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
        self._lock = asyncio.Lock()
        self._poller: asyncio.Task[None] | None = None

    @property
    def session(self) -> Any:
        return self.in_jvm.session

    def add(self, bp: Breakpoint, probe_type: int, class_name: str, line: int) -> None:
        self.rings.setdefault(probe_type, Ring(bp.info.id, probe_type, class_name.replace("/", "."), line))
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll(), name="tracepilot-logpoint-poll")

    async def drain(self, bp_id: str | None = None) -> None:
        """Read every ring (of one breakpoint) into the history now. Never raises: a VM that is going away
        simply has nothing more to read."""
        if not self.rings:
            return
        async with self._lock:
            for ring in list(self.rings.values()):
                if bp_id is not None and ring.bp_id != bp_id:
                    continue
                try:
                    await self._read(ring)
                except (JdwpError, DebuggerError, VMDisconnected, OSError) as exc:
                    log.debug("reading the log ring of %s failed: %s", ring.bp_id, exc)

    async def close(self, bp_id: str) -> None:
        """The breakpoint's probes go: read what they logged, then stop reading them."""
        await self.drain(bp_id)
        for probe_type in [t for t, r in self.rings.items() if r.bp_id == bp_id]:
            self.rings.pop(probe_type, None)
        self.throttled.pop(bp_id, None)

    def reset_throttle(self, bp: Breakpoint) -> None:
        """breakpoint_update starts the history throttle afresh."""
        if self.throttled.pop(bp.info.id, None) is not None:
            bp.bucket = None
            if bp.info.message and bp.info.message.startswith("throttled"):
                bp.info.message = None

    def forget(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
        self.rings.clear()
        self.throttled.clear()

    async def _poll(self) -> None:
        while self.rings:
            await asyncio.sleep(POLL_SECONDS)
            conn = self.session.conn
            if conn is None or conn.is_closed:
                return
            await self.drain()

    async def _read(self, ring: Ring) -> None:
        vm = self.session.require_vm()
        if not ring.fields:
            ring.fields = {f.name: f.id for f in await vm.fields(ring.probe_type)}
            buf, thr = (await vm.send(ReferenceType.GetValues, ring.probe_type,
                                      [ring.fields["BUF"], ring.fields["THR"]])).values
            ring.arrays = (buf.value, thr.value)
        n, lost, hits = (v.value for v in (await vm.send(ReferenceType.GetValues, ring.probe_type, [
            ring.fields["N"], ring.fields["LOST"], ring.fields["HITS"]])).values)
        count = (n - ring.taken) & 0xFFFFFFFF
        dropped = (lost - ring.lost) & 0xFFFFFFFF
        if not count and not dropped:
            return
        texts, threads = await self._slots(ring, count)
        # Only now may the probe reuse the slots (the strings were referenced from them until here).
        await vm.send(ClassType.SetValues, ring.probe_type, [(ring.fields["READ"], Value.int(n))])
        ring.taken, ring.lost = n, lost
        bp = self.in_jvm.tracker.by_id.get(ring.bp_id)
        if bp is None:
            return
        bp.info.hits = hits if bp.hit_rule is not None else bp.info.hits + count + dropped
        if count:
            bp.fired = True
            await self.in_jvm.tracker.arm_dependants(bp)
        await self._record(bp, ring, texts, threads)
        if dropped:
            self.session.history.add(
                "error", f"{bp.info.id}: {dropped} log line{'s' if dropped != 1 else ''} lost: the probe's buffer "
                f"was full and no debugger read it", Actor.TARGET, breakpoint=bp.info.id, lost=dropped)

    async def _slots(self, ring: Ring, count: int) -> tuple[list[str], list[int]]:
        """The `count` lines from READ on (two runs when they wrap around the ring's end): texts and threads."""
        vm = self.session.require_vm()
        start = ring.taken & _MASK
        runs = [(start, min(count, RING_LINES - start))]
        if count > runs[0][1]:
            runs.append((0, count - runs[0][1]))
        ids: list[int] = []
        threads: list[int] = []
        for first, length in runs:
            if length <= 0:
                continue
            ids += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[0], first, length)).values]
            threads += [v.value for v in (await vm.send(ArrayReference.GetValues, ring.arrays[1], first, length)).values]
        unique = list(dict.fromkeys(i for i in ids if i))
        replies = await asyncio.gather(*(vm.send(StringReference.Value, i) for i in unique))
        strings = {i: r.string_value for i, r in zip(unique, replies, strict=True)}
        return [strings.get(i, "") for i in ids], threads

    async def _record(self, bp: Breakpoint, ring: Ring, texts: list[str], threads: list[int]) -> None:
        session = self.session
        vm = session.require_vm()
        location = self._location(bp, ring)
        rate = self.in_jvm.tracker.logpoint_rate
        if rate > 0 and (bp.bucket is None or bp.bucket.rate != rate):
            from ..breakpoints.throttle import TokenBucket

            bp.bucket = TokenBucket(rate)
        names = {t: await vm.thread_name(t) for t in dict.fromkeys(threads) if t}
        recorded = 0
        for text, thread in zip(texts, threads, strict=True):
            if rate > 0 and not bp.bucket.take():  # type: ignore[union-attr]
                continue
            recorded += 1
            if STRING_OPEN in text:
                text = _STRING_PART.sub(_as_logged, text)
            where, details = log_where(location, names.get(thread)) if location is not None else ("", {})
            session.history.add("log", text + where, Actor.TARGET, breakpoint=bp.info.id, thread=thread, **details)
        stats = self.throttled.setdefault(bp.info.id, Throttled())
        first = stats.recorded == stats.logged and recorded < len(texts)
        stats.logged += len(texts)
        stats.recorded += recorded
        if stats.recorded == stats.logged:
            return
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
