"""Capture points: what a passing hit of a breakpoint with `capture` does. The hitting thread is held (by the
event's own suspension) only while the capture is read; the breakpoint answers no stop, so the dispatcher
resumes the thread at once. A point takes up to its limit of captures, at most `rate` a second (the hits the
rate lets by are counted and said), and is then done: its requests go, it stays listed with its captures."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

from ...jdwp import JdwpError, Value
from ..errors import DebuggerError, InvalidArgument
from ..model import Actor
from ..rate import TokenBucket, bucket_at
from .book import CaptureBook
from .done import mark_done
from .in_probe import InProbe
from .model import Capture, CaptureLimits, CaptureState, in_order
from .objects import CaptureObjects, field_memo, one_capture
from .prefetch import COPY_ONLY, Copier
from .reader import CaptureRead
from .settle import settle_point

log = logging.getLogger(__name__)

DEFAULT_RATE = 100.0  # captures a second per point
MAX_LIMIT = 10_000  # captures one point may take
COPY_FROM_OBJECTS = 15  # objects a point's first capture read over JDWP from which the copy in the JVM pays


def capture_state(capture: bool | int | None, expressions: list[str] | str | None = None, *,
                  depth: int | None = None, items: int | None = None, chars: int | None = None,
                  fields: int | None = None, frames: int | None = None, values: int | None = None,
                  rate: float | None = None, jdk_internals: bool | None = None) -> CaptureState | None:
    """The capture settings a breakpoint_set (or method_break, ...) asks for; None: not a capture point."""
    if capture is None or capture is False or capture == 0:
        if expressions or any(v is not None for v in (depth, items, chars, fields, frames, values, rate,
                                                      jdk_internals)):
            raise InvalidArgument("capture limits and expressions belong to a capture point",
                                  "add capture=true (one capture) or capture=N (up to N captures)")
        return None
    limit = 1 if capture is True else capture
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)
    if not isinstance(limit, int) or limit < 1 or limit > MAX_LIMIT:
        raise InvalidArgument(f"capture={capture!r}", f"use capture=true (one capture) or a number 1..{MAX_LIMIT}")
    if isinstance(expressions, str):
        expressions = [expressions]
    exprs = [e.strip() for e in expressions or [] if e and e.strip()]
    _check_parse(exprs)
    limits = CaptureLimits()
    for name, value in (("depth", depth), ("items", items), ("chars", chars), ("fields", fields),
                        ("frames", frames), ("values", values)):
        if value is None:
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # (a JSON number)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidArgument(f"capture_{name}={value!r}", f"use a whole number >= 0 (default "
                                  f"{getattr(CaptureLimits(), name)})")
        setattr(limits, name, value)
    if jdk_internals is not None:
        if not isinstance(jdk_internals, bool) and jdk_internals not in (0, 1):
            raise InvalidArgument(f"capture_jdk_internals={jdk_internals!r}",
                                  "use true (open the fields of JDK classes: captures hold the thread) or false")
        limits.jdk_internals = bool(jdk_internals)
    if rate is not None and rate <= 0:
        raise InvalidArgument(f"capture_rate={rate!r}", f"captures a second: a number > 0 (default {DEFAULT_RATE:g})")
    state = CaptureState(limit=limit, rate=float(rate or DEFAULT_RATE), expressions=exprs, limits=limits)
    return state


LIMIT_NAMES = ("depth", "items", "chars", "fields", "frames", "values", "rate", "jdk_internals")


def limits_arguments(capture_limits: dict[str, Any] | None) -> dict[str, Any]:
    """capture_limits as given ({"depth": 3, "rate": 10}) -> capture_state's keyword arguments, each checked."""
    given = dict(capture_limits or {})
    unknown = sorted(set(given) - set(LIMIT_NAMES))
    if unknown:
        raise InvalidArgument(f"capture_limits has no {', '.join(unknown)}", f"use {', '.join(LIMIT_NAMES)}")
    return given


def _check_parse(expressions: list[str]) -> None:
    from ..errors import EvaluationError  # noqa: PLC0415
    from ..evaluator.parse import ExpressionSyntaxError, parse_expression  # noqa: PLC0415

    for text in expressions:
        try:
            parse_expression(text)
        except ExpressionSyntaxError as exc:
            raise EvaluationError(f"capture expression {text!r} does not parse: {exc}", "fix the expression") from None


def check_point(info: Any) -> None:
    """What a capture point cannot also be (asked before the breakpoint is added)."""
    if info.capture is None:
        return
    if info.log:
        raise InvalidArgument("a capture point takes values, a logpoint writes a line: not both",
                              "drop log (add the values you want as expressions) or drop capture")
    if info.temporary:
        raise InvalidArgument("a capture point is done after its captures: temporary does not apply",
                              "drop temporary")
    info.suspend = "thread"  # only the hitting thread is ever held, and only while it is read


class CapturePoints:
    """The capture points of one session's tracker, and the captures they took (`book`)."""

    def __init__(self, tracker: Any) -> None:
        self.tracker = tracker
        self.book = CaptureBook()
        self.book.on_listed = self._listed
        self._buckets: dict[str, TokenBucket] = {}
        self._finishing: set[asyncio.Task[None]] = set()
        self._objects: CaptureObjects | None = None  # what captures learned that never changes (reader.py)
        self.copier = Copier(tracker.session, getattr(tracker, "in_jvm", None)) if copy_in_jvm() else None  # values copied in the JVM (prefetch.py)
        self._reads = 0
        self._copy_pays: dict[str, bool] = {}  # point -> its captures are copied in the JVM (on_hit)
        self.in_probe = InProbe(self)  # points whose captures the probe takes in the JVM (in_probe.py)

    @property
    def session(self) -> Any:
        return self.tracker.session

    async def on_hit(self, bp: Any, thread: int, *, skip: int, via: str, extra: dict[str, Value] | None = None,
                     note: str | None = None, hit: int | None = None) -> None:
        """A passing hit of capture point `bp`; `thread` is suspended by the event (resumed by the caller).
        `hit`: its number, as counted at the event (other threads' hits may count on before this runs)."""
        hit = bp.info.hits if hit is None else hit  # (other threads' hits may count on during the awaits below)
        # Its place in the order of hits: after what the probe's ring holds now (hits before this one).
        place = await self.in_probe.drain_and_reserve()
        try:
            await self._take(bp, thread, place, hit, skip=skip, via=via, extra=extra, note=note)
        finally:
            self.book.give_up(place)  # (unless its capture was added)

    async def _take(self, bp: Any, thread: int, place: int, hit: int, *, skip: int, via: str,
                    extra: dict[str, Value] | None, note: str | None) -> None:
        state: CaptureState = bp.info.capture
        # A hit the probe handed over (its copy fell short): counted and rate-limited in the JVM already.
        in_probe = via == "in-JVM" and self.in_probe.serves(bp.info.id)
        if in_probe:
            why = await self.in_probe.fell_back(bp.info.id)
            note = f"{note}; {why}" if note and why else (why or note)
        if state.done or state.taken >= state.limit:
            return  # hits in flight when it got done (its requests are going)
        if not in_probe and not await self.in_probe.take_token(bp, self.bucket(bp)):
            state.skipped += 1
            if state.skipped == 1:
                self.session.history.add(
                    "breakpoint_throttled", f"{bp.info.id} capture point fires faster than {state.rate:g} captures/s: "
                    "the hits beyond are not captured (counted as skipped)", Actor.TARGET, breakpoint=bp.info.id)
            return
        if state.done or state.taken >= state.limit:
            return  # (another thread's hit took the last capture while this one waited for its token)
        state.taken += 1  # taken now: hits of other threads handled meanwhile see the count
        number = state.taken
        if state.taken >= state.limit:
            mark_done(bp)
        # The point's first capture is read over JDWP alone; when it had many objects to read (a web server's
        # request, say), its later captures are copied in the JVM by one call: the call costs a dozen requests,
        # which a handful of small values does not repay.
        pays = self._copy_pays.get(bp.info.id)
        stats: dict[str, int] = {}
        capture = await self.read(thread, state.limits, state.expressions, skip=skip, extra=extra,
                                  note=captured_note(note), copy=bool(pays), stats=stats)
        if pays is None:
            self._copy_pays[bp.info.id] = stats.get("objects", 0) >= COPY_FROM_OBJECTS
        if via == "round trip" and (bp.info.mode or "").startswith("round trip (the class was loaded before"):
            await self.in_probe.define_ahead(bp, thread)  # (it moves into the JVM when this hit returns)
        capture.breakpoint_id, capture.number, capture.hit, capture.via = bp.info.id, number, hit, via
        capture.skipped = state.skipped
        self.book.add(capture, place)
        if state.done:
            self._finish_later(bp)

    def _listed(self, capture: Capture) -> None:
        """A capture takes its place in the list: the history says so, in the same order."""
        self.session.history.add("capture", capture.headline() + _summary(capture), Actor.TARGET,
                                 breakpoint=capture.breakpoint_id, capture=capture.seq, thread=capture.thread_id)

    def bucket(self, bp: Any) -> TokenBucket:
        """The point's rate limit as the debugger keeps it (the JVM carries on from it when the point moves
        there, and it from the JVM's: shared_bucket.py)."""
        bucket = self._buckets[bp.info.id] = bucket_at(self._buckets.get(bp.info.id), bp.info.capture.rate)
        return bucket

    def finish_later(self, bp: Any) -> None:
        self._finish_later(bp)

    def capture_objects(self, vm: Any) -> CaptureObjects:
        """What captures learned that never changes (an object's class, a string's text), for this VM."""
        if self._objects is None or self._objects.vm is not vm:
            self._objects = CaptureObjects(vm)
        return self._objects

    async def read(self, thread: int, limits: CaptureLimits, expressions: list[str], *, skip: int = 0,
                   extra: dict[str, Value] | None = None, note: str | None = None, copy: bool = False,
                   stats: dict[str, int] | None = None, copy_only: bool = False) -> Capture:
        """A capture of suspended `thread` now (a point's hit, or a stop: the same reading, the same limits).
        `copy_only`: its values from the in-JVM copy alone, or CopyIncomplete (prefetch.py) says what it lacks."""
        started = time.perf_counter()
        only = COPY_ONLY.set(False)
        self._reads += 1
        capture = Capture(0, "", 0, time.time(), thread, "", 0, "", note=note)  # (its seq: when it is added)
        try:
            capture.thread_name = await self.session.require_vm().thread_name(thread)
            vm = self.session.require_vm()
            if self._objects is None or self._objects.vm is not vm:
                self._objects = CaptureObjects(vm)
            read = CaptureRead(self.session, thread, skip, limits, -self._reads, self._objects,
                               self.copier if copy or copy_only else None, copy_only=copy_only)
            with one_capture():
                capture.frames = await read.frames()
                capture.expressions = [await read.expression(text, extra) for text in expressions]
                if stats is not None:  # (objects whose fields were read: the copy's measure)
                    stats["objects"] = len(field_memo() or {})
            capture.cuts = in_order(read.cuts)
            capture.copy = _copy_said(read, self.copier)
        except (DebuggerError, JdwpError) as exc:
            capture.note = f"{note}; " if note else ""
            capture.note += f"the capture could not be read completely: {exc}"
        finally:
            COPY_ONLY.reset(only)
        capture.took_ms = (time.perf_counter() - started) * 1000
        return capture

    def _finish_later(self, bp: Any) -> None:
        """Done: its requests (or in-JVM probe) go once the thread runs again, not while it is held."""
        task = asyncio.get_running_loop().create_task(self._finish(bp))
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def _finish(self, bp: Any) -> None:
        await asyncio.sleep(0)
        try:
            if self.tracker.by_id.get(bp.info.id) is bp:
                await self.tracker.uninstall_done(bp)
        except Exception as exc:  # noqa: BLE001 - the VM went meanwhile (its requests went with it), or a bug
            log.debug("letting go of done capture point %s: %s", bp.info.id, exc)
        self.session.history.add("breakpoint_done", f"{bp.info.id} took its {bp.info.capture.limit} capture(s): "
                                 "done (captures shows them)", Actor.TARGET, breakpoint=bp.info.id)

    async def settled(self) -> None:
        """Wait until done points have let go of the target (tests, detach)."""
        if self._finishing:
            await asyncio.gather(*list(self._finishing), return_exceptions=True)

    async def settle(self, bp_id: str) -> None:
        """Before point `bp_id` goes: its captures still in the JVM's ring, or on their way there, are read
        (they are kept)."""
        if self.in_probe.serves(bp_id):
            await settle_point(self.in_probe, bp_id)

    def forget(self, bp_id: str) -> None:
        self.in_probe.forget(bp_id)
        self._buckets.pop(bp_id, None)
        self._copy_pays.pop(bp_id, None)

    def clear(self) -> None:
        self._objects = None
        self._buckets.clear()
        self.book.clear()


ROUND_TRIP_ERROR = "condition error, stopped: "


def captured_note(note: str | None) -> str | None:
    """A condition that fails counts as a true one, as at a plain breakpoint (whose stop reports the error):
    the capture it takes reports it, in the same words, saying it captured rather than stopped."""
    if note and note.startswith(ROUND_TRIP_ERROR):
        return "condition error, captured: " + note.removeprefix(ROUND_TRIP_ERROR)
    return note


def copy_in_jvm() -> bool:
    """TRACEPILOT_CAPTURE_COPY=0 reads every capture over JDWP alone (to compare, or if the copy misbehaves)."""
    return os.environ.get("TRACEPILOT_CAPTURE_COPY", "1") != "0"


def _copy_said(read: CaptureRead, copier: Copier | None) -> str:
    if read.copied is not None:
        c = read.copied
        return (f"values copied in the JVM by one call ({c.objects} objects, {c.call_ms:.1f} ms in the JVM, "
                f"{c.total_ms:.1f} ms with its reading, {c.decode_ms:.1f} decoding), the rest over JDWP")
    if read.copy_failed:
        return read.copy_failed
    if copier is None:
        return "values read over JDWP (TRACEPILOT_CAPTURE_COPY=0)"
    if copier.refusal():
        return copier.refusal()
    return "values read over JDWP (the point's first capture, or small values: the copy would not repay its call)"


def _summary(capture: Capture) -> str:
    """The top frame's variables in a few words, for the history line."""
    if not capture.frames or not capture.frames[0].locals:
        return ""
    parts = [f"{v.name}={v.text}" for v in capture.frames[0].locals if v.name != "this"][:4]
    text = ", ".join(parts)
    return f": {text[:200]}…" if len(text) > 200 else (f": {text}" if text else "")
