"""Reading a capture from a thread held at a hit: every frame's place, the top frames' arguments and locals
(`this` with its fields), the point's expressions. Values are read as they are now, while the thread is
held, and copied (never kept as handles to read later): a list the code clears after the line shows its
elements as they were. Like `inspect`, it reads fields and the JDK collections' internals; it calls no
method of the program (only the point's own expressions may, as a condition may)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from ...jdwp import JdwpError, ThreadReference, Value
from ..errors import DebuggerError
from ..inspect.stack import Frame, Frames
from ..inspect.values import Values, java_length, quote_string
from ..instrument.naming import is_probe_class
from ..secrets import is_secret_name
from .model import CapturedFrame, CapturedValue, CaptureLimits

OPENED_KINDS = ("object", "collection", "map", "array")


class CaptureRead:
    """One capture being read: the thread, where its frames start, and the limits that cut."""

    def __init__(self, session: Any, thread: int, skip: int, limits: CaptureLimits, generation: int) -> None:
        self.session = session
        self.vm = session.require_vm()
        self.thread = thread
        self.skip = skip  # JVM frames above the program's (an in-JVM probe's): not the program's
        self.limits = limits
        handles = session.inspector.handles
        if handles.conn is None:
            handles.conn = self.vm.conn
        self.values = Values(self.vm, handles, session.redact, session.secrets)
        # Collection node caches live for one "generation": each capture is its own (the program runs between).
        self.values.set_generation(generation)
        self.frames_reader = Frames(self.vm)
        self.cuts: list[str] = []

    async def frames(self) -> list[CapturedFrame]:
        """Every frame's place; arguments and locals of the top `limits.frames` frames."""
        reply = await self.vm.send(ThreadReference.Frames, self.thread, self.skip, -1)
        raw = [Frame(self.skip + i, f.frame_id, f.location) for i, f in enumerate(reply.frames)]
        locations = await asyncio.gather(*(self.vm.code_location(f.location) for f in raw))
        shown = [(f, loc) for f, loc in zip(raw, locations, strict=True) if not is_probe_class(loc.class_name)]
        out = [CapturedFrame(n, loc) for n, (_, loc) in enumerate(shown)]
        top = shown[:self.limits.frames]
        read = await asyncio.gather(*(self._locals(f, out[n]) for n, (f, _) in enumerate(top)),
                                    return_exceptions=True)
        for n, result in enumerate(read):
            if isinstance(result, BaseException):
                out[n].locals = []
                self.cuts.append(f"frame {n}: its variables could not be read ({result})")
        return out

    async def _locals(self, frame: Frame, into: CapturedFrame) -> None:
        pairs, this = await self.frames_reader.raw_values(self.thread, frame)
        where = f"frame {into.index}"
        jobs = []
        if this is not None and not this.is_null:
            jobs.append(self.value("this", this, None, where))
        jobs += [self.value(slot.name, value, slot.type_name, where) for slot, value in pairs]
        into.locals = list(await asyncio.gather(*jobs))

    async def expression(self, text: str, extra: dict[str, Value] | None) -> CapturedValue:
        """A point's expression, evaluated in the program's top frame (as a condition is)."""
        inspector = self.session.inspector
        secret = next((w for w in re.findall(r"[A-Za-z_$][\w$]*", text) if is_secret_name(w)), None)
        try:
            result = await inspector.evaluator.evaluate(
                text, self.thread, self.skip, extra, allow_side_effects=not self.session.read_only)
        except (DebuggerError, JdwpError) as exc:
            return CapturedValue(text, "?", f"<error: {exc}>", "error")
        return await self.value(text, result, None, "expressions", name_for_redaction=secret)

    async def value(self, name: str, raw: Value | None, static: str | None, where: str,
                    name_for_redaction: str | None = None) -> CapturedValue:
        """A variable's value (its summary as `locals` shows it), opened down to the depth limit."""
        view = await self.values.view(raw, static, 0, name_for_redaction or name)
        captured = CapturedValue(name, view.type, view.text, view.kind)
        await self._fill(captured, raw, view, f"{where}: {name}", 0)
        return captured

    async def _fill(self, captured: CapturedValue, raw: Value | None, view: Any, path: str, level: int) -> None:
        if raw is None or not raw.is_object or raw.is_null or view.kind == "redacted":
            return
        limits = self.limits
        if view.kind == "string":
            text = await self.values.objects.string(raw.value)
            captured.text = quote_string(text, limits.chars)
            length = java_length(text)
            if len(text) > limits.chars:
                captured.cut = f"string cut at {limits.chars} of {length} chars"
                self.cuts.append(f"{path}: {captured.cut}")
            return
        if view.kind not in OPENED_KINDS or not view.expandable:
            return
        if level >= limits.depth:
            size = f" ({view.size} elements)" if view.size is not None else ""
            captured.cut = f"not opened: depth limit {limits.depth}{size}"
            self.cuts.append(f"{path}: {captured.cut}")
            return
        per_page = limits.fields if view.kind == "object" else limits.items
        try:
            ins = await self.values.inspect(path, raw, view.type, 0, per_page, captured.name)
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
        if ins.total is not None and ins.total > shown:
            what = "fields" if view.kind == "object" else ("entries" if view.kind == "map" else "elements")
            captured.cut = f"{shown} of {ins.total} {what}"
            self.cuts.append(f"{path}: {captured.cut}")
        await asyncio.gather(*(self._fill(c, self._raw(v), v, f"{path}.{c.name}", level + 1) for c, v in children))

    def _raw(self, view: Any) -> Value | None:
        """The object behind a summary shown with a handle (`@12`), to open it one level further."""
        if not view.handle:
            return None
        try:
            held = self.session.inspector.handles.get(view.handle)
        except DebuggerError:
            return None
        return Value(held.tag, held.object_id)
