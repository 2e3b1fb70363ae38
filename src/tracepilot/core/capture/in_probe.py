"""Captures taken inside the JVM by the probe, without holding the thread (issue 31, "In the JVM").

A capture point bound in the JVM gets an id in the take class (java/CaptureTake3__TracepilotProbe.java,
defined once per JVM in the system class loader next to the copier) and its probe calls take(...) once its
condition holds (instrument/take_call.py). take counts the point's captures and its rate in the JVM, copies the
values with the copier (the same walk and limits as a held capture's copy), and when the copy covers everything
the capture shows, puts {header, copy, the stack's classes, the thread} in a ring. This side drains the ring
over JDWP without suspending anything (every POLL_SECONDS while someone follows, else when asked: see
DEFER_SECONDS) and renders each record with
the reader a held capture uses, from the copy alone (copy_only: what changes is never read over JDWP). What the
copy does not cover falls back: take returns FALL_BACK, the probe calls hit(), and that capture is read with the
thread held (the round trip), saying why.

What the probe sees is its own caller's frame: the top frame's arguments, locals and `this`. The callers'
frames show their place (Class.method:line, mapped from class, method and bytecode index through the
debugger's own line tables), not their variables; each capture says so. Expressions: a local's or argument's
name (or `this`) is served from the values passed; a point with any other expression takes its captures by
round trip, and says why (`refusal`)."""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import time
from typing import Any

from ...jdwp import (
    ArrayReference,
    ClassType,
    JdwpError,
    JdwpTransportError,
    ModuleReference,
    ReferenceType,
    StringReference,
    Tag,
)
from ...jdwp.wire import Location, Value
from ..errors import DebuggerError
from ..inspect.stack import Frames
from ..instrument.naming import is_probe_class
from ..instrument.take_call import HIT
from ..model import Actor
from ..secrets import is_secret_name
from .done import mark_done
from .model import Capture, CapturedFrame, CapturedValue, CaptureState, frames_cut, in_order
from .objects import field_memo, one_capture
from .prefetch import COPIED, COPY_ONLY, MAX_CHARS, CopyIncomplete, Cursor, copy_depth, read_value
from .reader import CaptureRead
from .shared_bucket import SharedBuckets
from .take_bytes import NAME, class_bytes

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05
# While nobody follows the history or waits for a capture, records stay in the JVM's ring (the thread is never
# held for them) and are read and rendered when someone asks -- captures, events, breakpoint_list, a stop, a
# detach all drain the ring first -- or once the ring is half full, or its oldest record waited this long.
# Rendering is the debugger's CPU, on the cores the program runs on: not spent while the program is under load
# and nobody looks.
DEFER_SECONDS = 5.0
POINTS = 256  # ids the take class has room for (its arrays)
SLOTS = 512  # records its ring holds
SETTINGS = 6
NOT_HELD = "in-JVM (not held)"
NAME_ONLY = re.compile(r"[A-Za-z_$][\w$]*")
HELD_AFTER = 3  # copies in a row that fell short, after which the point's probe hands every hit over at once


class InProbe:
    """The capture points of one session taken in the JVM: their ids there, the ring's reader."""

    def __init__(self, points: Any) -> None:
        self.points = points  # CapturePoints
        self.ids: dict[str, int] = {}  # point -> its id in the take class
        self.bps: dict[int, Any] = {}  # id -> breakpoint
        self.next_id = 0
        self.vm: Any = None
        self._modules: tuple[Any, dict[int, str]] = (None, {})  # (the VM, class -> its module's name)
        self.type_id = 0
        self.fields: dict[str, int] = {}  # static field -> field id
        self.arrays: dict[str, int] = {}  # static array field -> the array's object id
        self._poller: asyncio.Task[None] | None = None
        self._draining = asyncio.Lock()
        self._defining = asyncio.Lock()
        self._ahead = False  # a hit's thread is defining the take class ahead of a move into the JVM
        self.short: dict[int, int] = {}  # id -> copies in a row that fell short
        self.buckets = SharedBuckets()  # the points' rate limits, one bucket each whichever side takes the hit
        self._skipped_seen: dict[int, int] = {}  # id -> its SKIPPED in the JVM as last written or read
        self._reads = 0
        self._waiting_since: float | None = None  # (monotonic) since when records wait in the ring (_due)
        # Held captures booked once the ring's records taken before them are: (N at their hit, booking)
        self._places: dict[tuple[int, str, str, int], tuple[Any, tuple[Any, ...], Location, Any]] = {}  # (_place)

    @property
    def session(self) -> Any:
        return self.points.session

    def serves(self, bp_id: str) -> bool:
        return bp_id in self.ids

    def refusal(self, state: CaptureState, kind: str) -> str | None:
        """Why this point's captures are taken by round trip even in the JVM (None: the probe takes them)."""
        copier = self.points.copier
        if copier is None:
            return "TRACEPILOT_CAPTURE_COPY=0: every capture is read over JDWP"
        if not copier.usable():
            return copier.refusal() or "the in-JVM copy cannot serve in this JVM"
        if kind not in ("line", "method_entry"):
            return f"a {kind.replace('_', ' ')} point's capture is read with the thread held"
        if state.limits.frames > 1:
            return (f"capture_limits frames={state.limits.frames} asks for the callers' variables, which only a held "
                    "thread shows")
        other = [e for e in state.expressions if not NAME_ONLY.fullmatch(e)]
        if other:
            return f"the expression {other[0]!r} is evaluated with the thread held (in the JVM: variable names only)"
        if len(self.ids) >= POINTS:
            return f"{POINTS} capture points were taken in the JVM in this session already"
        return None

    async def prepare(self, bp: Any, thread: int, type_id: int = 0) -> int | None:
        """The point's id in the take class, ready (its settings written) before its probe can run; None: its
        captures are taken by round trip (the point's mode says why). `type_id`: the class instrumented."""
        state: CaptureState = bp.info.capture
        why = await self.why_not(bp, type_id)
        if why is None:
            try:
                point = await self._register(bp, thread)
            except (DebuggerError, JdwpError) as exc:
                why = f"the in-JVM capture could not be set up ({exc})"
            else:
                return point
        state.path = f"taken with the thread held: {why}"
        return None

    async def why_not(self, bp: Any, type_id: int = 0) -> str | None:
        """Why prepare() would give the point no id (None: it would register it), asking the JVM nothing
        but the class's module."""
        why = self.refusal(bp.info.capture, bp.info.kind)
        if why is None and (getattr(bp, "thread_id", None) or getattr(bp, "instance_id", None)):
            why = "a thread or instance filter is the JVM's event request's to apply"
        if why is None and type_id:
            why = await self._module_refusal(type_id)
        return why

    async def refused_before_prepare(self, bp: Any, type_id: int) -> None:
        """A move refused before prepare() ran: the point's path says what prepare() would have said."""
        why = await self.why_not(bp, type_id)
        if why is not None:
            bp.info.capture.path = f"taken with the thread held: {why}"

    async def _module_refusal(self, type_id: int) -> str | None:
        """A class of a named module (jdk.jshell's, jdk.jartool's, a modular program's) does not read the
        unnamed module the take class is defined in: its probe's call would throw IllegalAccessError."""
        vm = self.session.require_vm()
        if self._modules[0] is not vm:
            self._modules = (vm, {})
        name = self._modules[1].get(type_id)  # (a class's module never changes: a move asks it once)
        if name is None:
            try:
                module = (await vm.send(ReferenceType.Module, type_id)).module
                name = (await vm.send(ModuleReference.Name, module)).name if module else ""
            except JdwpError:
                return None
            self._modules[1][type_id] = name
        if not name:
            return None
        return (f"the class is in module {name}, which does not read the unnamed module the in-JVM capture's "
                "class is defined in")

    def bound(self, bp: Any, point: int | None) -> None:
        """The point's probe is in place: its captures are taken in the JVM (or, `point` None, said why not)."""
        if point is not None:
            bp.info.capture.path = "taken in the JVM without holding the thread"

    async def define(self, thread: int) -> Any:
        """The copier and the take class in the JVM (once), on `thread`, held by an event."""
        copier = self.points.copier
        vm = copier.bind_vm()
        await copier.define(thread)  # (take calls the copier: defined first)
        async with self._defining:  # (hits of several threads come at once: one definition)
            if self.vm is not vm:
                type_id = await copier.define_class(thread, NAME, class_bytes())
                fields = {f.name: f.id for f in await vm.fields(type_id)}
                names = ["LIMIT", "HELD", "SETTING", "TAKEN", "SKIPPED", "LACKS", "TOKENS", "STAMP", "RING"]
                got = (await vm.send(ReferenceType.GetValues, type_id, [fields[n] for n in names])).values
                self.ids, self.bps, self.next_id = {}, {}, 0
                self.type_id, self.fields = type_id, fields
                self.arrays = {n: v.value for n, v in zip(names, got, strict=True)}
                self.buckets.reset()
                self._skipped_seen = {}
                await self.buckets.measure(self.session, vm, thread)
                await self._discard_earlier(vm)
                self.vm = vm
                await self._hold_death(vm)
        return vm

    async def _discard_earlier(self, vm: Any) -> None:
        """A take class an earlier session left defined (it stays after a detach) may hold its records: hits
        taken after that session's last read (in flight at its detach, or a tracepilot killed). This session
        numbers its points from 0 again: those records are not its captures. Dropped, and every earlier point
        switched off (a probe of a class left instrumented takes nothing more)."""
        n, read = (await vm.send(ReferenceType.GetValues, self.type_id,
                                 [self.fields["N"], self.fields["READ"]])).values
        await vm.send(ArrayReference.SetValues, self.arrays["LIMIT"], 0, [Value.int(0)] * POINTS)
        if n.value != read.value:
            await vm.send(ArrayReference.SetValues, self.arrays["RING"], 0, [Value(Tag.OBJECT, 0)] * SLOTS)
            await vm.send(ClassType.SetValues, self.type_id, [(self.fields["READ"], Value.int(n.value))])

    async def _hold_death(self, vm: Any) -> None:
        """Captures still in the ring when the program ends are read before the VM goes: the in-JVM path's
        hold of the dying VM (instrument/death_hold.py) reads the ring first, then the hits the probes counted
        that nobody read yet (a hit rule let them by uncaptured, skipped or not: counted by round trip as they
        happened; in the JVM they go with it)."""
        await self.points.tracker.in_jvm.at_death.hold(vm, self._read_at_death, order=0)

    async def _read_at_death(self) -> None:
        if self.vm is not None and self.vm is self.points.tracker.in_jvm.at_death.vm:  # (defined in this VM)
            await self.drain()

    async def define_ahead(self, bp: Any, thread: int) -> None:
        """A round-trip hit of a point that will move into the JVM: define what its probe calls now, while only
        this thread is held, not during the move (which holds every thread)."""
        if self.refusal(bp.info.capture, bp.info.kind) is not None or self._ahead \
                or self.vm is self.session.require_vm():
            return  # (defined, or another thread's hit is defining it: this one goes on)
        self._ahead = True
        try:
            await self.define(thread)
        except (DebuggerError, JdwpError) as exc:
            log.debug("defining the take class ahead: %s", exc)
        finally:
            self._ahead = False

    async def _register(self, bp: Any, thread: int) -> int:
        vm = await self.define(thread)
        point = self.ids.get(bp.info.id)
        if point is None:
            point = self.ids[bp.info.id] = self.next_id
            self.next_id += 1
        self.bps[point] = bp
        state: CaptureState = bp.info.capture
        limits = state.limits
        settings = [copy_depth(limits), max(limits.items, 20), max(limits.fields, 20), MAX_CHARS,
                    max(2 * limits.values, 200), min(int(state.rate * 1000), 2**31 - 1)]  # (the held copy's, prefetch.py)
        send = vm.send
        bucket = self.points.bucket(bp)
        await self.buckets.read(vm, self.arrays, point, bucket)  # (bound here before: what the JVM spent since)
        self._skipped_seen[point] = state.skipped
        await asyncio.gather(
            send(ArrayReference.SetValues, self.arrays["SETTING"], point * SETTINGS, [Value.int(v) for v in settings]),
            send(ArrayReference.SetValues, self.arrays["TAKEN"], point, [Value.int(state.taken)]),
            send(ArrayReference.SetValues, self.arrays["SKIPPED"], point, [Value.int(state.skipped)]),
            self.buckets.write(vm, self.arrays, point, bucket),
            send(ArrayReference.SetValues, self.arrays["HELD"], point, [Value(Tag.BOOLEAN, False)]))
        await send(ArrayReference.SetValues, self.arrays["LIMIT"], point, [Value.int(state.limit)])
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll(), name="tracepilot-capture-ring")
        return point

    async def take_token(self, bp: Any, bucket: Any) -> bool:
        """A hit the debugger takes itself (by round trip): from the point's one bucket, which the JVM may have
        taken from since the point was bound there (read first, written back after)."""
        point = self.ids.get(bp.info.id)
        vm = self.vm
        shared = point is not None and point in self.buckets.in_jvm and vm is not None \
            and vm is self.session.require_vm() and not vm.conn.is_closed
        if not shared:
            return bucket.take()
        await self.buckets.read(vm, self.arrays, point, bucket)
        took = bucket.take()
        try:
            await self.buckets.write(vm, self.arrays, point, bucket)
        except JdwpError as exc:
            log.debug("writing a capture point's rate limit into the JVM: %s", exc)
        return took

    def forget(self, bp_id: str) -> None:
        """The point went: its id takes nothing more (its probe goes with the class's restoration)."""
        point = self.ids.pop(bp_id, None)
        if point is None or self.vm is None:
            return
        self.bps.pop(point, None)
        try:
            self.vm.conn.send_unanswered(ArrayReference.SetValues, self.arrays["LIMIT"], point, [Value.int(0)])
        except Exception:  # noqa: BLE001 - the VM is gone: nothing to switch off
            pass

    async def fell_back(self, bp_id: str) -> str | None:
        """Why the point's last capture was handed to the round trip (the take class's word for it)."""
        point = self.ids.get(bp_id)
        if point is None or self.vm is None:
            return None
        try:
            value = (await self.vm.send(ArrayReference.GetValues, self.arrays["LACKS"], point, 1)).values[0]
            if not value.value:
                return None
            text = (await self.vm.send(StringReference.Value, value.value)).string_value
        except JdwpError:
            return None
        self.short[point] = self.short.get(point, 0) + 1
        bp = self.bps.get(point)
        if bp is not None and self.short[point] < HELD_AFTER:  # (the point's path says how its captures went)
            bp.info.capture.path = (f"taken with the thread held for its last {self.short[point]} hit(s): the "
                                    f"in-JVM copy lacks {text} (a hit whose copy is complete is taken in the JVM, "
                                    "not held)")
        if self.short[point] == HELD_AFTER:  # (a class whose fields the copy cannot read: every copy falls short)
            bp = self.bps.get(point)
            if bp is not None:
                bp.info.capture.path = (f"taken with the thread held: its last {HELD_AFTER} in-JVM copies fell short "
                                        f"(the copy lacks {text})")
            try:
                await self.vm.send(ArrayReference.SetValues, self.arrays["HELD"], point, [Value(Tag.BOOLEAN, True)])
            except JdwpError:
                pass
        return f"taken with the thread held: the in-JVM copy lacks {text}"

    # -- the ring ------------------------------------------------------------------------------------------

    async def _poll(self) -> None:
        while self.ids:
            await asyncio.sleep(POLL_SECONDS)
            vm = self.vm
            if vm is None or vm.conn is None or vm.conn.is_closed:
                return  # (the session let go of the VM: a new one starts its own poll)
            try:
                if self.session.history.followed or self.points.book.waited_on or await self._due():
                    await self.drain()
            except (DebuggerError, JdwpTransportError, ConnectionError) as exc:
                log.debug("reading the capture ring: %s", exc)
                return
            except Exception:
                log.exception("reading the capture ring failed")
                return

    async def _due(self) -> bool:
        """Records wait in the ring and nobody asks: read them all the same when the ring is half full (a full
        ring hands hits to the round trip, which holds the thread) or the oldest waited DEFER_SECONDS."""
        vm = self.vm
        n, read = (await vm.send(ReferenceType.GetValues, self.type_id, [self.fields["N"], self.fields["READ"]])).values
        if n.value == read.value:
            self._waiting_since = None
            return False
        now = time.monotonic()
        if self._waiting_since is None:
            self._waiting_since = now
        return n.value - read.value >= SLOTS // 2 or now - self._waiting_since >= DEFER_SECONDS

    @property
    def may_hold_records(self) -> bool:
        """Can a drain find records (a point in the JVM), or is one under way (that a caller must wait for)?"""
        return bool(self.ids) or self._draining.locked()

    async def drain_quietly(self) -> None:
        """drain(), for callers that go on whatever happens (a stop, an answer): a VM that went has no ring."""
        try:
            await self.drain()
        except (DebuggerError, JdwpTransportError, ConnectionError) as exc:
            log.debug("reading the capture ring: %s", exc)

    async def drain_and_reserve(self) -> int:
        """A held hit's place in the order of captures: after every record the ring holds now (hits the probe
        took before this one; the hitting thread is held, so none of its later ones), before any read after.
        Those records are read now, the thread held meanwhile: exact order and hit numbers, at the cost of the
        hold when many wait (a session nobody follows reads the ring only when asked)."""
        async with self._draining:
            try:
                await self._drain()
            except (DebuggerError, JdwpTransportError, ConnectionError) as exc:
                log.debug("reading the capture ring: %s", exc)
            return self.points.book.reserve()

    async def drain(self) -> None:
        """Every record the ring holds, rendered and booked; then its slots are cleared and READ moves on (the
        JVM writes only slots the debugger has read). Nothing is suspended."""
        async with self._draining:
            await self._drain()

    async def _drain(self) -> None:
        vm = self.vm
        if vm is None or not self.ids or vm.conn is None or vm.conn.is_closed:
            return
        n, read = (await vm.send(ReferenceType.GetValues, self.type_id,
                                 [self.fields["N"], self.fields["READ"]])).values
        n, read = n.value, read.value
        if n != read:
            first, count = read & (SLOTS - 1), n - read
            head = min(count, SLOTS - first)
            records = (await vm.send(ArrayReference.GetValues, self.arrays["RING"], first, head)).values
            if count > head:
                records += (await vm.send(ArrayReference.GetValues, self.arrays["RING"], 0, count - head)).values
            book = self.points.book
            places = [book.reserve() for _ in records]  # (in the ring's order: the order of the hits)
            for record, place in zip(records, places, strict=True):
                try:
                    await self._book(record.value, place)
                except (DebuggerError, JdwpError, ValueError, IndexError) as exc:
                    # Said, not only logged: a hit the JVM took and the debugger could not render is a lost
                    # capture, which --no-instrument would have shown.
                    log.debug("a capture record could not be read", exc_info=True)
                    self.session.history.add("error", f"a capture taken in the JVM could not be read ({exc}); "
                                             "its hit is not shown (set the point with --no-instrument to take "
                                             "it by round trip)", Actor.TARGET)
                finally:
                    book.give_up(place)  # (unless its capture was added)
            await vm.send(ArrayReference.SetValues, self.arrays["RING"], first, [Value(Tag.OBJECT, 0)] * head)
            if count > head:
                await vm.send(ArrayReference.SetValues, self.arrays["RING"], 0, [Value(Tag.OBJECT, 0)] * (count - head))
            await vm.send(ClassType.SetValues, self.type_id, [(self.fields["READ"], Value.int(n))])
        self._waiting_since = None
        await self._skipped()

    async def _skipped(self) -> None:
        """The hits the JVM's rate limit let by, per point (said by the point, as by round trip)."""
        if not self.bps:
            return
        points = list(self.bps.items())  # (before the read: a point registered meanwhile is not in its reply)
        values = (await self.vm.send(ArrayReference.GetValues, self.arrays["SKIPPED"], 0,
                                     max(p for p, _ in points) + 1)).values
        for point, bp in points:
            if self.bps.get(point) is bp:  # (not removed or replaced meanwhile)
                self._account_skipped(point, bp, values[point].value)

    def _account_skipped(self, point: int, bp: Any, skipped: int) -> int:
        """The JVM's count of the point's skipped hits at some moment (read now, or carried by a record): the
        hits it skipped since last seen are counted now (the debugger skips some too, while the point is not
        there). Returns how many of those already counted came after that moment (<= 0)."""
        state = bp.info.capture
        added = skipped - self._skipped_seen.get(point, state.skipped)
        if added <= 0:
            return added
        self._skipped_seen[point] = skipped
        if state.skipped == 0:
            self.session.history.add(
                "breakpoint_throttled", f"{bp.info.id} capture point fires faster than {state.rate:g} "
                "captures/s: the hits beyond are not captured (counted as skipped)", Actor.TARGET,
                breakpoint=bp.info.id)
        # (Passing hits, as by round trip: counted once, when first read. Not "at least taken + skipped": a
        # hit_count update restarts the count from 0, as by round trip. With a hit count the probe counts them,
        # see InJvm.refresh_hits.)
        if bp.hit_rule is None:
            bp.info.hits += added
        elif bp.jvm_counts:  # "==N" alone: the one hit it lets by is the N-th, captured or not (by round
            bp.info.hits = max(bp.info.hits, bp.hit_rule.n)  # trip: the Count filter's event)
        state.skipped += added
        return 0

    async def _book(self, record: int, place: int) -> None:
        header_v, copy_v, classes_v, thread_v = (await self.vm.send(ArrayReference.GetValues, record, 0, 4)).values
        header = (await self.vm.send(StringReference.Value, header_v.value)).string_value
        point = int(header[:header.index(";")])
        bp = self.bps.get(point)
        if bp is None:
            return  # (a point removed meanwhile)
        state: CaptureState = bp.info.capture
        if state.taken >= state.limit:
            return
        capture = await self._render(header, copy_v.value, classes_v.value, thread_v.value, state)
        # The hits skipped before this one, as the JVM counted them at its take (counted now if not yet; some
        # counted already may have come after it): the capture says those, and its hit number counts them.
        after = self._account_skipped(point, bp, capture.skipped)
        if self.short.get(point):
            state.path = "taken in the JVM without holding the thread"  # (again: this copy was complete)
        self.short[point] = 0
        state.taken += 1
        number = state.taken
        if capture.hit:  # the probe's count at this hit, which its hit count let by (the round trip's number)
            bp.info.hits = max(bp.info.hits, capture.hit)
        else:
            bp.info.hits += 1
            capture.hit = bp.info.hits + after
        capture.breakpoint_id, capture.number, capture.via = bp.info.id, number, NOT_HELD
        capture.skipped = state.skipped + after
        if state.taken >= state.limit:
            mark_done(bp)
        self.points.book.add(capture, place)
        if state.done:
            self.points.finish_later(bp)

    async def _render(self, header: str, copy: int, classes: int, thread: int, state: CaptureState) -> Capture:
        """A record as a capture: its frames' places, the top frame's values, rendered from the copy alone."""
        started = time.perf_counter()
        vm, copier = self.vm, self.points.copier
        cur = Cursor(header)
        cur.upto()  # (the point)
        millis = cur.number()
        skipped = cur.number()  # (the point's skipped hits at its take: _book reads them)
        kinds = cur.chars()
        letters, _, names = kinds.partition("|")
        capture = Capture(0, "", 0, millis / 1000, thread, await vm.thread_name(thread), 0, "", skipped=skipped)
        objects = self.points.capture_objects(vm)
        self._reads += 1
        read = CaptureRead(self.session, thread, 0, state.limits, -(10**6 + self._reads), objects, copier,
                           copy_only=True)
        read.reuse_openings(objects.openings)
        only = COPY_ONLY.set(False)
        copied, jvm_us = None, 0.0
        try:
            with one_capture():
                copied, refs = await copier.read_result(copy, objects, field_memo())
                values = [read_value(cur, refs) for _ in letters]
                if names.endswith(HIT):  # (a point with a hit count: its hit number comes last)
                    capture.hit = values[-1].value
                jvm_us = cur.number() / 1000
                frames = await self._frames(cur, classes)
                capture.frames = [CapturedFrame(n, code) for n, (_, code) in enumerate(frames)]
                capture.cuts = read.cuts
                if cut := frames_cut(1, len(capture.frames)):
                    read.cuts.append(cut)  # (first, as the round trip's reader says it)
                if capture.frames:
                    COPIED.set(copied)
                    read.copied = copied
                    COPY_ONLY.set(True)
                    by_slot = dict(zip(names.split(",") if names else [], values, strict=True))  # ("": no live local)
                    by_slot.pop(HIT, None)  # (read above)
                    names_at = await self._top(read, capture, by_slot, frames[0][0])
                    capture.expressions = [await self._expression(read, text, by_slot, names_at)
                                           for text in state.expressions]
        except CopyIncomplete as exc:
            capture.note = f"the in-JVM copy did not cover the capture: {exc}"
        finally:
            COPY_ONLY.reset(only)
        capture.cuts = in_order(capture.cuts)
        capture.took_ms = 0.0
        objects_copied = copied.objects if copied is not None else 0
        capture.copy = (f"taken in the JVM by the probe ({objects_copied} objects, {jvm_us:.0f} µs in the JVM), the "
                        f"thread not held; read from the ring in {(time.perf_counter() - started) * 1000:.1f} ms")
        return capture

    async def _frames(self, cur: Cursor, classes: int) -> list[Any]:
        """Each frame's place from its class, method and bytecode index (the probe's own frames left out)."""
        vm, copier = self.vm, self.points.copier
        entries = []
        while cur.at < len(cur.text):
            name, descriptor = cur.chars(), cur.chars()
            entries.append((name, descriptor, cur.number()))
        class_objects = (await vm.send(ArrayReference.GetValues, classes, 0, len(entries))).values if entries else []
        out = []
        for (name, descriptor, bci), class_object in zip(entries, class_objects, strict=True):
            type_id, tag = await copier.type_of(class_object.value)
            info = await vm.type(type_id, tag)
            if is_probe_class(info.name):
                continue
            out.append(await self._place(vm, info, tag, name, descriptor, bci))
        return out

    async def _place(self, vm: Any, info: Any, tag: int, name: str, descriptor: str, bci: int
                     ) -> tuple[Location, Any]:
        """A frame's (location, code location): worked out once per place (a server's stack is the same
        at every capture), again when the class was redefined or its inserted code moved."""
        type_id = info.id
        key = (type_id, name, descriptor, bci)
        found = self._places.get(key)
        if found is not None:
            known, inserted, location, code = found
            if known is info and tuple(vm.inserted.get((type_id, location.method_id), ())) == inserted:
                return location, copy.copy(code)
        method = next(m for m in await vm.methods(type_id) if m.name == name and m.signature == descriptor)
        location = Location(tag, type_id, method.id, bci)
        code = await vm.code_location(location)
        if len(self._places) > 20_000:
            self._places.clear()
        self._places[key] = (info, tuple(vm.inserted.get((type_id, method.id), ())), location, code)
        return location, copy.copy(code)

    async def _top(self, read: CaptureRead, capture: Capture, by_slot: dict[str, Value],
                   location: Location) -> dict[str, str]:
        """The top frame's `this`, arguments and locals, in the order a held reading lists them; returns each
        variable's slot by name."""
        slots, _ = await Frames(self.vm).live_slots(location)
        this = by_slot.get("t")
        jobs = []
        if this is not None and not this.is_null:
            jobs.append(read.value("this", this, None, "frame 0", opened=True))
        for slot in slots:
            value = by_slot.get(str(slot.slot))
            if value is None:
                read.cuts.append(f"frame 0: {slot.name} not captured in the JVM (the probe was not passed it)")
                continue
            jobs.append(read.value(slot.name, value, slot.type_name, "frame 0"))
        capture.frames[0].locals = await read.in_order(jobs)
        return {slot.name: str(slot.slot) for slot in slots}

    async def _expression(self, read: CaptureRead, text: str, by_slot: dict[str, Value], names_at: dict[str, str]
                          ) -> CapturedValue:
        """A point's expression: a variable's name, served from the values the probe passed."""
        key = "t" if text == "this" else names_at.get(text)
        value = by_slot.get(key) if key is not None else None
        if value is None:
            return CapturedValue(text, "?", f"<not captured in the JVM: {text} is not a variable at the line>",
                                 "error")
        secret = text if is_secret_name(text) else None
        return (await read.in_order([read.value(text, value, None, "expressions", name_for_redaction=secret)]))[0]

