"""A stop's first reads in one write (issue 32: resume -> stop).

At a stop the debugger reads the thread's top frame and depth, then that frame's locals, then previews of
the objects they hold: three round trips, each waiting on the one before. Here they leave together, in the
place the stop held for them in the write queue (stop_reads.py):

- the frame id is predicted. HotSpot's JDWP agent numbers a frame `generation << 16 | depth` and bumps a
  thread's generation each time it runs again, so the top frame of a thread's next stop is its last top
  frame + 1 << 16. The prediction is used only once this VM has shown that pattern (`FrameIdGuess`), and
  every read made with it is checked: its reply is taken only by a request for exactly the frame id the
  Frames reply of the same burst names (on a miss the JVM answers INVALID_FRAMEID, or the reply is simply
  never taken, and the values are read the usual way);
- the slots come from the method's cached variable table, at the index the event names;
- previews replay the reads the previous stop at the same place made for its locals' objects (`Recipes`):
  an object still held by the same local is read again with the same request, which then finds its reply.

A primed reply answers only the exact same read (same command, same arguments) asked during the same
stop's handling: nothing can have changed the JVM in between (only reads are primed, they leave before
anything sent once the stop was known, and the store closes before anything else runs), so each answer is
the one the request would have had. The values are read ahead only when the method's tables are cached
(from its first stop on): a request for a table would wait behind the held place.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...jdwp import (
    ArrayReference,
    Location,
    ObjectReference,
    StackFrame,
    StringReference,
    Tag,
    ThreadReference,
)

GENERATION_STEP = 1 << 16  # HotSpot: frame id = (frame generation << 16) | depth
RECIPE_LIMIT = 48  # reads replayed per stop place at most (previews are bounded: 10 items, 8 fields ...)
RECIPES_KEPT = 256  # stop places remembered

# Reads whose reply depends only on the JVM's state at the moment they run (and that change nothing).
PRIMABLE = frozenset({ArrayReference.GetValues, ArrayReference.Length, ObjectReference.GetValues,
                      ObjectReference.ReferenceType, StringReference.Value})


def request_key(command: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A hashable key for one request (lists of slots or field ids become tuples)."""
    key = (command, *args)
    try:
        hash(key)  # (ids and indexes: the arguments as they are)
    except TypeError:
        return (command, *[tuple(a) if isinstance(a, list) else a for a in args])
    return key


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # a primed read nobody took (or that failed) logs no "exception never retrieved"


def _retrieve(future: asyncio.Future[Any]) -> None:
    """A reply nobody may take any more: its outcome retrieved now, or when it comes. (Done once, at the
    end of the stop's handling, not by a callback per reply: that costs an event-loop step per reply.)"""
    if future.done():
        _retrieved(future)
    else:
        future.add_done_callback(_retrieved)


class FrameIdGuess:
    """Per thread, the id of the top frame at its last stop; predicts the next one once the VM has shown
    (for any thread) that a thread run once between two looks has its top frame id + GENERATION_STEP."""

    def __init__(self) -> None:
        self._top: dict[int, int] = {}
        self.confirmed = False

    def learn(self, thread_id: int, top_frame_id: int) -> None:
        last = self._top.get(thread_id)
        if last is not None and top_frame_id == last + GENERATION_STEP and not top_frame_id % GENERATION_STEP:
            self.confirmed = True
        if len(self._top) > 4096:
            self._top.clear()
        self._top[thread_id] = top_frame_id

    def predict(self, thread_id: int) -> int | None:
        last = self._top.get(thread_id)
        if not self.confirmed or last is None or last % GENERATION_STEP:
            return None
        return last + GENERATION_STEP

    def forget(self, thread_id: int) -> None:
        self._top.pop(thread_id, None)


class Recipes:
    """Per stop place (class, method, code index), the object reads the last stop there made for its
    locals' previews, in order."""

    def __init__(self) -> None:
        self._by_place: dict[tuple[int, int, int], list[tuple[Any, tuple[Any, ...]]]] = {}

    def get(self, location: Location) -> list[tuple[Any, tuple[Any, ...]]]:
        return self._by_place.get((location.class_id, location.method_id, location.index), [])

    def put(self, location: Location, reads: list[tuple[Any, tuple[Any, ...]]]) -> None:
        if len(self._by_place) >= RECIPES_KEPT:
            self._by_place.clear()
        self._by_place[(location.class_id, location.method_id, location.index)] = reads[:RECIPE_LIMIT]


class Primed:
    """Replies to reads sent ahead, each taken at most once by the identical request (Vm.send asks here
    while this store is open on the Vm). Also records the primable reads asked meanwhile (a recipe)."""

    def __init__(self) -> None:
        self._replies: dict[tuple[Any, ...], asyncio.Future[Any]] = {}
        self._added: list[tuple[Any, tuple[Any, ...], asyncio.Future[Any]]] = []  # not in _replies yet
        self.last: asyncio.Future[Any] | None = None  # the last reply added
        self.recorded: list[tuple[Any, tuple[Any, ...]]] = []
        self.taken = 0

    def add(self, command: Any, args: tuple[Any, ...], future: asyncio.Future[Any]) -> None:
        self.last = future
        self._added.append((command, args, future))

    def index(self) -> None:
        """Key the replies added by their requests: done once the burst is written (while the JVM works on
        it), or at the first take."""
        added, self._added = self._added, []
        for command, args, future in added:
            key = request_key(command, args)
            if key in self._replies:
                _retrieve(future)  # (the same read twice: the first answers)
            else:
                self._replies[key] = future

    def close(self) -> None:
        """No read takes a reply from here any more: the replies left are retrieved (or will be)."""
        self.index()
        replies, self._replies = self._replies, {}
        for future in replies.values():
            _retrieve(future)

    def take(self, command: Any, args: tuple[Any, ...]) -> asyncio.Future[Any] | None:
        if command in PRIMABLE:
            self.recorded.append((command, args))
        if self._added:
            self.index()
        if not self._replies:
            return None
        future = self._replies.pop(request_key(command, args), None)
        if future is not None:
            self.taken += 1
        return future


class Burst:
    """What one stop's burst sent: the Frames and FrameCount futures, and the primed reads."""

    def __init__(self, thread_id: int, location: Location, frames: asyncio.Future[Any],
                 count: asyncio.Future[Any], primed: Primed, predicted: int | None) -> None:
        self.thread_id = thread_id
        self.location = location
        self.frames = frames
        self.count = count
        self.primed = primed
        self.predicted = predicted
        self.last = count  # the reply to the burst's last request (the JVM answers a connection's in order)

    def close(self) -> None:
        """The stop's handling is over: whatever of the burst was not taken is retrieved (or will be when
        it comes), so a failed read nobody took logs no "exception never retrieved"."""
        for future in (self.frames, self.count):
            if not future.done():
                future.add_done_callback(_retrieved)
            elif not future.cancelled():
                future.exception()
        self.primed.close()


class Plan:
    """What a stop's burst will read, decided while the stop is handled (it needs the method's tables,
    cached after the first stop there); the requests themselves are made just after the hand-over."""

    __slots__ = ("location", "predicted", "recipe", "slots", "thread_id", "with_this")

    def __init__(self, thread_id: int, location: Location, predicted: int | None,
                 slots: tuple[tuple[int, int], ...] | None, with_this: bool,
                 recipe: list[tuple[Any, tuple[Any, ...]]]) -> None:
        self.thread_id = thread_id
        self.location = location
        self.predicted = predicted
        self.slots = slots
        self.with_this = with_this
        self.recipe = recipe


def send_burst(place: Any, plan: Plan) -> Burst:
    """Make the stop's first reads at `place` (a JdwpConnection.hold_place, or the connection itself), to
    leave in one write: Frames(top) and FrameCount; with a predicted frame id, that frame's values at the
    plan's slots (and `this`); then the previews' reads of the last stop here."""
    primed = Primed()
    tid, predicted = plan.thread_id, plan.predicted
    frames = place.send_nowait(ThreadReference.Frames, tid, 0, 1)
    try:
        count = place.send_nowait(ThreadReference.FrameCount, tid)
    except BaseException:
        _retrieve(frames)
        raise
    burst = Burst(tid, plan.location, frames, count, primed, predicted)
    try:
        if predicted is not None:
            if plan.with_this:
                primed.add(StackFrame.ThisObject, (tid, predicted),
                           place.send_nowait(StackFrame.ThisObject, tid, predicted))
            if plan.slots:
                primed.add(StackFrame.GetValues, (tid, predicted, plan.slots),
                           place.send_nowait(StackFrame.GetValues, tid, predicted, plan.slots))
        for command, args in plan.recipe:
            primed.add(command, args, place.send_nowait(command, *args))
    except BaseException:  # (e.g. the VM went away meanwhile: what was sent is nobody's)
        burst.close()
        raise
    if primed.last is not None:
        burst.last = primed.last
    return burst


def slot_request(slots: list[Any]) -> tuple[tuple[int, int], ...]:
    """StackFrame.GetValues' (slot, signature tag) pairs for these variable slots (stack.py asks the same). A
    tuple: a primed read's key is the request as it is (request_key)."""
    tags = _SIGNATURE_TAGS
    try:
        return tuple([(s.slot, tags[s.signature]) for s in slots])
    except KeyError:
        for s in slots:
            if s.signature not in tags:
                if len(tags) > 4096:
                    tags.clear()
                tags[s.signature] = int(Tag.for_signature(s.signature))
        return tuple([(s.slot, tags[s.signature]) for s in slots])


_SIGNATURE_TAGS: dict[str, int] = {}  # a variable's JNI signature -> the tag its value carries (slot_request)
