"""Reading a capture from a thread held at a hit: every frame's place, the top frames' arguments and locals
(`this` with its fields), the point's expressions. Values are read as they are now, while the thread is
held, and copied (never kept as handles to read later): a list the code clears after the line shows its
elements as they were. Like `inspect`, it reads fields and the JDK collections' internals; it calls no
method of the program (only the point's own expressions may, as a condition may)."""

from __future__ import annotations

import asyncio
import contextvars
import re
from collections import deque
from collections.abc import Awaitable
from typing import Any

from ...jdwp import JdwpError, Tag, ThreadReference, Value
from ..errors import DebuggerError
from ..inspect.collections import Collections
from ..inspect.objects import Objects
from ..inspect.secret_values import SecretLearner
from ..inspect.stack import Frame, Frames
from ..inspect.values import NESTED_STRING, SUMMARY_FIELDS, SUMMARY_STRING, Values, quote_string, simple
from ..instrument.naming import is_probe_class
from ..model import Inspection, ValueView, Variable
from ..secrets import is_secret_name
from .jdk_fields import JdkFields, jdk_fields
from .model import CapturedFrame, CapturedValue, CaptureLimits, frames_cut
from .objects import CaptureObjects, field_memo
from .openings import Openings, RecordingHandles, consulted
from .prefetch import COPIED, COPY_ONLY, Copied, Copier, CopyIncomplete, copied_only, page

OPENED_KINDS = ("object", "collection", "map", "array")

# Set while a capture opens a value: its children's own summaries are kept short (type, size, handle), as a
# capture shows what they hold as children of their own (a rich summary of each would read every field of
# every field again: thousands of requests for a framework object, while the thread is held).
_OPENING: contextvars.ContextVar[bool] = contextvars.ContextVar("tracepilot_capture_opening", default=False)


# The view a capture already took of a value it opens (object id, view): `inspect` starts from it instead of
# reading the value's summary again (the summary's own fields and elements: requests while the thread is held).
_KNOWN: contextvars.ContextVar[tuple[int, Any] | None] = contextvars.ContextVar("tracepilot_capture_known",
                                                                                default=None)


class _CaptureValues(Values):
    """Values as a capture reads them: the same texts as `Values`, the requests of one level sent at once
    (the summaries of an object's fields or a collection's elements side by side, not one after another).
    The fields of JDK classes a capture leaves closed (jdk_fields.py) are left out of summaries and openings."""

    jdk: JdkFields | None = None  # set by CaptureRead
    jdk_internals = False  # capture_limits jdk_internals: show them anyway

    async def open_fields(self, type_id: int, synthetic: bool) -> list[tuple[Any, str]]:
        """The instance fields (with their type names) a capture shows of an object of `type_id`."""
        typed = await self.objects.typed_fields(type_id, synthetic)
        if self.jdk is None or self.jdk_internals or not typed:
            return typed
        _, closed = await self.jdk.closed(type_id)
        return [pair for pair in typed if pair[0].id not in closed] if closed else typed

    async def view(self, value: Value | None, static_type: str | None = None, depth: int = 0,
                   name: str | None = None) -> Any:
        if _OPENING.get() and depth == 1:
            depth = 2
        known = _KNOWN.get()
        if depth == 0 and known is not None and value is not None and value.is_object and value.value == known[0]:
            return known[1]
        return self._short_view(value, depth, name) or await super().view(value, static_type, depth, name)

    def _short_view(self, value: Value | None, depth: int, name: str | None) -> ValueView | None:
        """The short summary (`Order @12`) of an object of a program's class already seen, without a request
        or a task: what `Values.view` shows at depth 2 for it (None: ask `Values.view`)."""
        if depth < 2 or value is None or value.tag != Tag.OBJECT or not value.value or self.redact:
            return None
        objects = self.objects
        if not isinstance(objects, CaptureObjects):
            return None
        oid = value.value
        type_id = objects._type_of.get(oid)  # noqa: SLF001 - (the class of an object already seen)
        shape = objects.short_shapes.get(type_id) if type_id is not None else None
        if shape is None:
            known = objects.known_class(oid)
            if known is None:
                return None
            type_name, supers, typed = known
            shown = not (type_name.startswith("java.") or type_name.endswith("[]") or "java.lang.Enum" in supers
                         or self.collections.is_list_like(type_name) or self.collections.is_map_like(type_name))
            # (java.*: strings, boxes, dates, collections... have views of their own; a class's are for good)
            shape = objects.short_shapes[type_id] = (type_name, simple(type_name), bool(typed)) if shown else ()
        if not shape:
            return None
        type_name, short, expandable = shape
        handle = None if oid in self.transient else self.handles.handle(oid, value.tag).name
        return ValueView(type_name, f"{short} {handle}", "object", handle, expandable=expandable)

    async def _views(self, asked: list[tuple[Value | None, str | None, int, str | None]]) -> list[Any]:
        """Several summaries side by side; the short ones that need no request are made at once."""
        if _OPENING.get():
            asked = [(v, t, 2 if d == 1 else d, n) for v, t, d, n in asked]
        out: list[Any] = [self._short_view(v, d, n) for v, _, d, n in asked]
        missing = [i for i, view in enumerate(out) if view is None]
        if missing and COPY_ONLY.get():  # (from the copy: nothing to wait for, and no task each)
            for i in missing:
                out[i] = await self.view(*asked[i])
        elif missing:
            got = await asyncio.gather(*(self.view(*asked[i]) for i in missing))
            for i, view in zip(missing, got, strict=True):
                out[i] = view
        return out

    async def inspect(self, target: str, value: Value, static_type: str | None, start: int, count: int,
                      name: str | None = None, known: Any = None) -> Any:
        token = _OPENING.set(True)
        known_token = _KNOWN.set((value.value, known) if known is not None and value.is_object else None)
        try:
            return await super().inspect(target, value, static_type, start, count, name)
        finally:
            _KNOWN.reset(known_token)
            _OPENING.reset(token)

    async def _plain_object(self, oid: int, type_name: str, handle: str, depth: int) -> Any:
        type_id = await self.objects.type_id(oid)
        typed = await self.open_fields(type_id, False)
        if depth >= 2 or not typed:
            # (expandable: it has fields, shown or closed; opening a JDK object says what is closed)
            has = bool(typed) or bool(await self.objects.typed_fields(type_id, False))
            return ValueView(type_name, f"{simple(type_name)} {handle}", "object", handle, expandable=has)
        record = await self._is_record(oid)
        shown = typed[:SUMMARY_FIELDS]
        values = await self.shown_field_values(oid, [f for f, _ in shown])
        secret = await self._entry_secret([f for f, _ in shown], values)
        views = await self._views([(v, t, depth + 1, f.name if f.name != secret else "secret")
                                   for (f, t), v in zip(shown, values, strict=True)])
        parts = [f"{f.name}={view.text}" for (f, _), view in zip(shown, views, strict=True)]
        if len(typed) > len(shown):
            parts.append("…")
        open_, close = ("[", "]") if record else ("{", "}")
        return ValueView(type_name, f"{simple(type_name)}{open_}{', '.join(parts)}{close}",
                         "record" if record else "object", handle, expandable=True)

    async def _fields(self, result: Inspection, oid: int, start: int, count: int) -> Inspection:
        typed = await self.open_fields(await self.objects.type_id(oid), True)
        result.total = len(typed)
        page = typed[start:start + count]
        fields = [f for f, _ in page]
        values = await self.shown_field_values(oid, fields)
        secret = await self._entry_secret(fields, values)
        views = await self._views([(v, t, 1, f.name if f.name != secret else "secret")
                                   for (f, t), v in zip(page, values, strict=True)])
        result.children = [Variable(f.name, view, "field") for f, view in zip(fields, views, strict=True)]
        return result

    async def _indexed(self, elements: list[Value], start: int, elem_type: str | None) -> list[Variable]:
        views = await self._views([(v, elem_type, 1, None) for v in elements])
        return [Variable(f"[{start + i}]", v, "element") for i, v in enumerate(views)]


class _CopiedCollections(Collections):
    """JDK collections and maps as the capture's in-JVM copy holds them (the same view, in the same order);
    read over JDWP when it holds none (or too few)."""

    async def elements(self, oid: int, type_name: str, start: int, count: int) -> tuple[int, list[Value]] | None:
        copied = COPIED.get()
        consulted(oid)
        found = page(copied.lists.get(oid), start, count) if copied is not None else None
        if found is None:
            copied_only(f"the elements of {type_name} {oid}")
        return found if found is not None else await super().elements(oid, type_name, start, count)

    async def entries(self, oid: int, type_name: str, start: int, count: int) -> Any:
        copied = COPIED.get()
        consulted(oid)
        found = page(copied.maps.get(oid), start, count) if copied is not None else None
        if found is None:
            copied_only(f"the entries of {type_name} {oid}")
        return found if found is not None else await super().entries(oid, type_name, start, count)


class CaptureRead:
    """One capture being read: the thread, where its frames start, and the limits that cut."""

    def __init__(self, session: Any, thread: int, skip: int, limits: CaptureLimits, generation: int,
                 objects: Objects | None = None, copier: Copier | None = None, copy_only: bool = False) -> None:
        self.session = session
        self.copier = copier  # copies the values in the JVM by one call (prefetch.py); None: JDWP alone
        # The values rendered from the copy alone: a value it has no record of raises CopyIncomplete (the rule
        # of a capture taken without holding the thread; here, with the thread held, it checks the copy).
        self.copy_only = copy_only
        self.copied: Copied | None = None
        self.copy_failed: str | None = None
        self.vm = session.require_vm()
        self.thread = thread
        self.skip = skip  # JVM frames above the program's (an in-JVM probe's): not the program's
        self.limits = limits
        handles = session.inspector.handles
        if handles.conn is None:
            handles.conn = self.vm.conn
        self.values = _CaptureValues(self.vm, handles, session.redact, session.secrets)
        if objects is not None and objects.vm is self.vm:
            # What never changes (an object's class, a class's fields, a string's text) is known from the
            # point's earlier captures: the thread is held for fewer requests.
            self.values.objects = objects
            self.values.collections = _CopiedCollections(objects)
            self.values.learner = SecretLearner(objects, self.values.collections, self.values.learner.book)
        # Collection node caches live for one "generation": each capture is its own (the program runs between).
        self.values.set_generation(generation)
        self.values.jdk, self.values.jdk_internals = jdk_fields(self.vm), limits.jdk_internals
        self.frames_reader = Frames(self.vm)
        self.openings: Openings | None = None  # openings reused from earlier captures (reuse_openings)
        self.cuts: list[str] = []
        self.read = 0  # values read so far (limits.values)
        self._later: deque[tuple[Any, ...]] | None = None  # openings waiting their turn (in_order)

    def reuse_openings(self, openings: Openings) -> None:
        """Openings of this VM's earlier captures are reused when what they were made from is unchanged (a
        capture rendered from its in-JVM copy: openings.py); the handles they show are noted."""
        if self.session.redact or openings.vm is not self.vm:
            return
        self.openings = openings
        self.values.handles = RecordingHandles(self.values.handles)

    async def in_order(self, jobs: list[Awaitable[CapturedValue]]) -> list[CapturedValue]:
        """The values of `jobs` (value() calls), each read in turn and opened breadth first: the order in
        which gather's tasks read them when nothing waits on the JVM (a capture rendered from its in-JVM
        copy), so the same values count against limits.values, without a task for each value opened."""
        self._later = deque()
        try:
            out = [await job for job in jobs]
            while self._later:
                await self._fill(*self._later.popleft())
        finally:
            self._later = None
        return out

    async def frames(self) -> list[CapturedFrame]:
        """Every frame's place; arguments and locals of the top `limits.frames` frames."""
        reply = await self.vm.send(ThreadReference.Frames, self.thread, self.skip, -1)
        raw = [Frame(self.skip + i, f.frame_id, f.location) for i, f in enumerate(reply.frames)]
        locations = await asyncio.gather(*(self.vm.code_location(f.location) for f in raw))
        shown = [(f, loc) for f, loc in zip(raw, locations, strict=True) if not is_probe_class(loc.class_name)]
        out = [CapturedFrame(n, loc) for n, (_, loc) in enumerate(shown)]
        top = shown[:self.limits.frames]
        if cut := frames_cut(self.limits.frames, len(shown)):
            self.cuts.append(cut)
        # The top frames' raw values in one burst; then opened one frame after another, the top frame first:
        # it gets the value budget.
        raws = await asyncio.gather(*(self.frames_reader.raw_values(self.thread, f) for f, _ in top),
                                    return_exceptions=True)
        await self._copy_in_jvm(raws)
        if self.copy_only:
            if self.copied is None:
                raise CopyIncomplete(self.copy_failed or "the values were not copied in the JVM")
            if self.copied.lacks:  # (the copier's own verdict: what a probe decides by in the JVM)
                raise CopyIncomplete(f"the in-JVM copy lacks {self.copied.lacks}")
            COPY_ONLY.set(True)  # (the caller's context: CapturePoints.read resets it)
        for n, raw in enumerate(raws):
            try:
                if isinstance(raw, BaseException):
                    raise raw
                await self._locals(raw, out[n])
            except (DebuggerError, JdwpError) as exc:
                out[n].locals = []
                self.cuts.append(f"frame {n}: its variables could not be read ({exc})")
        return out

    async def _copy_in_jvm(self, raws: list[Any]) -> None:
        """The roots' values copied in the JVM by one call (prefetch.py); what it does not hold is read over
        JDWP below as before. A copy that fails leaves the reading to JDWP, and says so."""
        copier, objects, memo = self.copier, self.values.objects, field_memo()
        if copier is None or memo is None or not isinstance(objects, CaptureObjects) or not copier.usable():
            return
        # The top frame's values are opened (to the depth limit), the callers' shown as summaries.
        per_frame = [[v for v in [raw[1], *(value for _, value in raw[0])] if v is not None and v.is_object
                      and not v.is_null] if not isinstance(raw, BaseException) else [] for raw in raws]
        roots = [v for values in per_frame for v in values]
        if not self.copy_only and not any(v.tag == Tag.OBJECT for v in per_frame[0]):
            return  # (strings and arrays alone in the top frame: fewer requests over JDWP than the call takes)
        try:
            self.copied = await copier.copy(self.thread, roots, len(per_frame[0]), self.limits, objects, memo)
        except (DebuggerError, JdwpError, ValueError, IndexError, StopIteration) as exc:
            self.copy_failed = f"the in-JVM copy failed ({exc}): values read over JDWP"
            return
        COPIED.set(self.copied)

    async def _locals(self, raw: tuple[list[Any], Value | None], into: CapturedFrame) -> None:
        pairs, this = raw
        where = f"frame {into.index}"
        jobs = []
        if this is not None and not this.is_null:  # opened in the top frame; the callers' are summaries
            jobs.append(self.value("this", this, None, where, opened=into.index == 0))
        jobs += [self.value(slot.name, value, slot.type_name, where) for slot, value in pairs]
        into.locals = list(await asyncio.gather(*jobs))

    async def expression(self, text: str, extra: dict[str, Value] | None) -> CapturedValue:
        """A point's expression, evaluated in the program's top frame (as a condition is)."""
        if self.copy_only:
            raise CopyIncomplete(f"the expression {text!r} is evaluated over JDWP, not copied")
        inspector = self.session.inspector
        secret = next((w for w in re.findall(r"[A-Za-z_$][\w$]*", text) if is_secret_name(w)), None)
        created: set[int] = set()
        try:
            result = await inspector.evaluator.evaluate(
                text, self.thread, self.skip, extra, allow_side_effects=not self.session.read_only, created=created)
        except (DebuggerError, JdwpError) as exc:
            return CapturedValue(text, "?", f"<error: {exc}>", "error")
        if result.is_object and result.value in created:  # a String it built: read once, then let go
            self.values.mark_transient(result.value)
        return await self.value(text, result, None, "expressions", name_for_redaction=secret)

    async def value(self, name: str, raw: Value | None, static: str | None, where: str,
                    name_for_redaction: str | None = None, opened: bool = True) -> CapturedValue:
        """A variable's value (its summary as `locals` shows it), opened down to the depth limit."""
        self.read += 1
        view = await self._view(raw, static, name_for_redaction or name)
        captured = CapturedValue(name, view.type, view.text, view.kind)
        if opened or view.kind == "string":
            await self._fill(captured, raw, view, f"{where}: {name}", 0, SUMMARY_STRING)
        return captured

    async def _fill(self, captured: CapturedValue, raw: Value | None, view: Any, path: str, level: int,
                    shown_chars: int = NESTED_STRING) -> None:
        """Open `captured` (its summary `view`, which showed `shown_chars` of a string) below `level`."""
        if raw is None or not raw.is_object or raw.is_null or view.kind == "redacted":
            return
        limits = self.limits
        if view.kind == "string":
            length = view.size or 0
            if length > min(shown_chars, limits.chars) or limits.chars < shown_chars:  # else the summary is whole
                text = await self.values.objects.string(raw.value)
                captured.text = quote_string(text, limits.chars)
            if length > limits.chars:
                captured.cut = f"string cut at {limits.chars} of {length} chars"
                self.cuts.append(f"{path}: {captured.cut}")
            return
        if view.kind not in OPENED_KINDS or not view.expandable:
            return
        if level >= limits.depth or self.read >= limits.values:
            size = f" ({view.size} elements)" if view.size is not None else ""
            why = f"depth limit {limits.depth}" if level >= limits.depth else \
                f"the capture read its {limits.values} values"
            captured.cut = f"not opened: {why}{size}"
            self.cuts.append(f"{path}: {captured.cut}")
            return
        jdk_cut = None
        if view.kind == "object" and not limits.jdk_internals:  # (JDK internals: one cut, see jdk_fields.py)
            type_id = await self.values.objects.type_id(raw.value)
            jdk_cut = await self.values.jdk.cut(type_id)
            if jdk_cut is not None:
                captured.cut = jdk_cut
                self.cuts.append(f"{path}: {jdk_cut}")
                if not await self.values.open_fields(type_id, True):
                    return  # (nothing else to show: summarized, not opened)
        per_page = limits.fields if view.kind == "object" else limits.items
        try:
            ins = await self._inspect(path, raw, view, per_page, captured.name)
        except (DebuggerError, JdwpError) as exc:
            captured.cut = f"could not be opened: {exc}"
            self.cuts.append(f"{path}: {captured.cut}")
            return
        children: list[tuple[CapturedValue, Any]] = []
        for child in ins.children:
            children.append((CapturedValue(child.name, child.value.type, child.value.text, child.value.kind),
                             child.value))
        for entry in ins.entries:
            children.append((CapturedValue(f"[{entry.key.text}]", entry.value.type, entry.value.text,
                                           entry.value.kind), entry.value))
        captured.children = [c for c, _ in children]
        shown = len(children)
        self.read += shown
        if ins.total is not None and ins.total > shown:
            what = "fields" if view.kind == "object" else ("entries" if view.kind == "map" else "elements")
            cut = f"{shown} of {ins.total} {what}"
            captured.cut = f"{cut}; {jdk_cut}" if jdk_cut else cut
            self.cuts.append(f"{path}: {cut}")
        # (A string its nested summary shows whole, within the limit, has nothing more to read.)
        whole = min(NESTED_STRING, limits.chars) if limits.chars >= NESTED_STRING else -1
        opened = [(c, self._raw(v), v, f"{path}.{c.name}", level + 1) for c, v in children
                  if (v.kind == "string" and (v.size or 0) > whole) or (v.kind in OPENED_KINDS and v.expandable)]
        if self._later is not None:
            self._later.extend(opened)  # (read after the values queued before them: see in_order)
            return
        await asyncio.gather(*(self._fill(*args) for args in opened))

    async def _view(self, raw: Value | None, static: str | None, name: str) -> Any:
        """A variable's summary: the same as an earlier capture's when what it was made from is unchanged."""
        memo, copied = field_memo(), COPIED.get()
        if self.openings is None or memo is None or copied is None or not COPY_ONLY.get() or raw is None \
                or not raw.is_object or raw.is_null or raw.tag == Tag.STRING:
            return await self.values.view(raw, static, 0, name)
        return await self.openings.view(self.values, raw, static, name, memo, copied, self.limits.jdk_internals)

    async def _inspect(self, path: str, raw: Value, view: Any, per_page: int, name: str) -> Any:
        """The opening of `raw` (its fields, elements or entries): the same opening as an earlier capture's
        when what it was made from is unchanged (openings.py; a capture rendered from its in-JVM copy)."""
        memo, copied = field_memo(), COPIED.get()
        if self.openings is None or memo is None or copied is None or not COPY_ONLY.get():
            return await self.values.inspect(path, raw, view.type, 0, per_page, name, known=view)
        return await self.openings.inspect(self.values, path, raw, view, per_page, name, memo, copied,
                                           self.limits.jdk_internals)

    def _raw(self, view: Any) -> Value | None:
        """The object behind a summary shown with a handle (`@12`), to open it one level further."""
        if not view.handle:
            return None
        held = self.values.handles.held(view.handle)
        return Value(held.tag, held.object_id) if held is not None else None
