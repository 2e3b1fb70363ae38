"""Changing code at a stop: hot-swap of recompiled classes, popping frames and forcing a return. A part of
the `Inspector` (a mixin over its state: the session, the per-VM parts)."""

from __future__ import annotations

from typing import Any

from ...jdwp import (
    JdwpError,
    Tag,
    ThreadReference,
    Value,
    VirtualMachine,
)
from ..errors import (
    InvalidArgument,
    ReadOnlyViolation,
    TargetError,
    Unsupported,
    refused,
)
from ..model import (
    Actor,
    FrameChange,
    HotswapResult,
)
from . import hotswap as hotswap_mod
from . import paths


class CodeChanges:
    # -- changing code -------------------------------------------------------------------------------

    async def hotswap(self, path: str, since: float | None, actor: Actor) -> HotswapResult:
        if self.session.read_only:
            raise ReadOnlyViolation("hotswap")
        p = await self._ready()
        if not p.vm.capabilities.get("can_redefine_classes"):
            raise Unsupported("this JVM cannot redefine classes")
        result = HotswapResult()
        pairs: list[tuple[str, int, bytes]] = []
        for file in hotswap_mod.class_files(path, since):
            data = file.read_bytes()
            try:
                name = hotswap_mod.class_name_of(data)
            except (ValueError, KeyError, IndexError) as exc:
                result.errors[str(file)] = f"unreadable class file: {exc}"
                continue
            loaded = await p.vm.classes_by_name(name)
            if not loaded:
                result.not_loaded.append(name)
                continue
            pairs.extend((name, t.id, data) for t in loaded)
        # An instrumented class keeps its in-JVM probes: its new bytes get the probe calls, and probes
        # whose code changed are redefined with it (the redefinitions after the class's own).
        in_jvm = self.session.breakpoints.in_jvm
        redefinitions = []
        for name, type_id, data in pairs:
            with_probes = await in_jvm.hot_swap_bytes(type_id, data)
            redefinitions += with_probes if with_probes else [(name, type_id, data)]
        result.errors.update(await hotswap_mod.redefine(p.vm, redefinitions))
        for name, type_id, _ in pairs:
            await in_jvm.hot_swapped(type_id, name not in result.errors)
        for name, type_id, _ in pairs:
            if name in result.errors:
                continue
            if name not in result.redefined:
                result.redefined.append(name)
            p.vm.forget(type_id)
            p.values.objects._fields.pop(type_id, None)
            p.values.objects._instance_fields.pop(type_id, None)
            before = {b.id: b.locations for b in self.session.breakpoints.list()}
            await self.session.breakpoints.reinstall_class(type_id)
            for b in self.session.breakpoints.list():
                if b.id in before and any(outer_name(loc.class_name) == outer_name(name) for loc in b.locations) \
                        and b.id not in result.breakpoints_reinstalled:
                    result.breakpoints_reinstalled.append(b.id)
        self.session.stop_generation += 1  # frames of redefined methods are obsolete
        if result.redefined and self._evaluator is not None:
            self._evaluator.reset()  # cached plans and member facts describe the old class versions
        self.session.history.add("hotswap", result.headline(), actor, redefined=result.redefined, errors=result.errors)
        return result

    async def pop_frames(self, frame: int, thread: Any, actor: Actor) -> FrameChange:
        if self.session.read_only:
            raise ReadOnlyViolation("pop_frames")
        p, tid, f = await self._thread_frame(thread, frame)
        if not p.vm.capabilities.get("can_pop_frames"):
            raise Unsupported("this JVM cannot pop frames")
        try:  # one pop at a time, the thread parked outside the JDWP agent's pop code (instrument/pops.py)
            await self.session.breakpoints.in_jvm.pops.pop_and_hold(p.vm, tid, f.frame_id)
        except JdwpError as exc:
            raise TargetError(refused(exc, "popping the frames"),
                              "native frames and frames below a native one cannot be popped") from None
        self.session.stop_generation += 1
        top = await p.frames.frame(tid, self.session.stop_generation, 0)
        loc = await p.vm.code_location(top.location)
        if self.session.stop is not None and self.session.stop.thread_id == tid:
            self.session.stop.location = loc
        name = await p.vm.thread_name(tid)
        message = f"popped {frame + 1} frame(s); {name} is back in {loc} and re-executes the call when resumed"
        self.session.history.add("pop_frames", message, actor, thread=tid)
        return FrameChange(name, message, loc)

    async def force_return(self, value: str, thread: Any, actor: Actor) -> FrameChange:
        if self.session.read_only:
            raise ReadOnlyViolation("force_return")
        p, tid, f = await self._thread_frame(thread, 0)
        if not p.vm.capabilities.get("can_force_early_return"):
            raise Unsupported("this JVM cannot force an early return")
        method = await p.vm.method(f.location.class_id, f.location.method_id)
        if method.return_type == "void":
            if value.strip():
                raise InvalidArgument(f"{method.display()} returns void: it cannot return {value.strip()}",
                                      "force-return with no value leaves a void method at once")
            result = Value(Tag.VOID, None)
        else:
            text = value.strip()
            if len(text) >= 2 and text[0] == text[-1] == '"':
                result = Value(Tag.STRING, (await p.vm.send(VirtualMachine.CreateString, text[1:-1])).string_object)
            else:
                result, _ = await self._evaluate_value(text, tid, 0)
            result = paths.coerce(result, method.return_type)
        try:
            await p.vm.send(ThreadReference.ForceEarlyReturn, tid, result)
        except JdwpError as exc:
            raise TargetError(refused(exc, "the early return"),
                              "the value must match the method's return type, and native frames cannot return early") from None
        view = await p.values.view(result, method.return_type)
        name = await p.vm.thread_name(tid)
        message = f"{method.display()} will return {view.text} when {name} resumes"
        self.session.history.add("force_return", message, actor, thread=tid)
        return FrameChange(name, message, await p.vm.code_location(f.location), view)



def outer_name(class_name: str) -> str:
    return class_name.split("$", 1)[0]
