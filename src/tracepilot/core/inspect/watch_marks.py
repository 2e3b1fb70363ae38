"""Watchers and marks at the inspector: adding and removing watch expressions (their first value at the
current stop) and pinning objects under a label. Mixed into the Inspector (inspector.py), whose session,
parts (`_p`, `_ready`), handles and evaluation it uses."""

from __future__ import annotations

from typing import Any

from ...jdwp import JdwpError, ObjectReference, Value
from ..errors import DebuggerError, InvalidArgument
from ..model import Actor, MarkInfo, SessionState, StopKind, ValueView, WatchInfo


class WatchesAndMarks:
    # -- watchers and marks --------------------------------------------------------------------------

    async def watch_add(self, expression: str, breakpoint: str | None, actor: Actor) -> WatchInfo:
        if not expression.strip():
            raise InvalidArgument("empty watch expression")
        if breakpoint:
            self.session.breakpoints.get(breakpoint)  # raises NotFound for an unknown id
        watch = self.watchers.add(expression, breakpoint)
        stop = self.session.stop
        # At VM start no code has run (no frame to evaluate in): the first real stop gives the first value.
        if self.session.state is SessionState.STOPPED and stop and stop.thread_id \
                and stop.kind is not StopKind.VM_START and watch.applies(
                [i for i in [stop.breakpoint_id, *stop.also] if i]):
            try:
                value, static = await self._evaluate_value(watch.expression, stop.thread_id, 0)
                watch.record(await self._p().values.view(value, static, 0, self._secret(watch.expression)), None, 0)
            except (DebuggerError, JdwpError) as exc:
                watch.record(None, str(exc), 0)
        self.session.history.add("watch_add", f"watch {watch.id}: {expression}", actor, id=watch.id)
        return watch.info()

    async def watch_remove(self, id: str, actor: Actor) -> WatchInfo:  # noqa: A002
        watch = self.watchers.remove(id)
        self.session.history.add("watch_remove", f"watch {watch.id} removed", actor, id=watch.id)
        return watch.info()

    async def watches(self) -> list[WatchInfo]:
        return [w.info() for w in self.watchers.all()]

    async def mark(self, target: str, label: str, actor: Actor) -> MarkInfo:
        p = await self._ready()
        label = self._marks.clean(label)
        value, _ = await self._target_value(target, 0, None)
        if not value.is_object or value.is_null:
            raise InvalidArgument(f"'{target}' is not an object: only objects can be marked")
        held = self.handles.handle(value.value, value.tag)
        self._marks.add(label, held)
        view = await p.values.view(value)
        self.session.history.add("mark", f"${label} = {view.text}", actor, label=label, handle=held.name)
        return MarkInfo(label, view)

    async def rename_mark(self, old: str, new: str, actor: Actor = Actor.PERSON) -> MarkInfo:
        mark = self._marks.rename(old, new)
        self.session.history.add("mark", f"${old.lstrip('$')} renamed to ${mark.label}", actor, label=mark.label)
        return (await self.marks_info([mark]))[0]

    async def unmark(self, label: str, actor: Actor) -> MarkInfo:
        mark = self._marks.get(label)
        info = (await self.marks_info([mark]))[0]
        self._marks.remove(label)
        self.session.history.add("unmark", f"${mark.label} removed", actor, label=mark.label)
        return info

    async def marks_info(self, marks: list[Any]) -> list[MarkInfo]:
        result = []
        p = self._p()
        for mark in marks:
            value = Value(mark.held.tag, mark.held.object_id)
            try:
                collected = (await p.vm.send(ObjectReference.IsCollected, mark.held.object_id)).is_collected
                view = await p.values.view(value) if not collected else ValueView("?", "<collected>", "null")
                result.append(MarkInfo(mark.label, view, collected))
            except JdwpError:
                result.append(MarkInfo(mark.label, ValueView("?", "<collected>", "null", mark.held.name), True))
        return result

    async def marks(self) -> list[MarkInfo]:
        if self.session.conn is None:
            return []
        return await self.marks_info(self._marks.all())
