"""Breakpoints over several targets (core/targets.py): one id space; a breakpoint without a target is set in
every target (a class lives where it lives: where it is not loaded it stays pending) under one id, and comes
to a target added later; `bound` says where each one is bound. With one target calls run as before."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from typing import Any

from .errors import DebuggerError
from .model import BreakpointInfo
from .target_context import CHOSEN

Target = Any  # a core/targets.py Target (not imported: that module builds on this one)


class BreakpointsOverTargets:
    """The breakpoint calls of `Targets` that span targets."""

    _everywhere: dict[str, list[tuple[str, tuple[Any, ...], dict[str, Any]]]]
    several: bool
    all: Any
    named: Any
    acting_on: Any
    selected: Any
    _on: Any

    def _next_breakpoint_number(self) -> int:
        return max(t.session.breakpoints.next_number for t in self._all.values())

    def _sync_breakpoint_numbers(self) -> None:
        number = self._next_breakpoint_number()
        for t in self._all.values():
            t.session.breakpoints.continue_ids_from(number)

    async def _span_breakpoint(self, method: Any, debugger: Any, args: tuple[Any, ...],
                               kwargs: dict[str, Any]) -> Any:
        chosen = CHOSEN.get()
        if not self.several:
            if chosen:
                self.named(chosen)
            info = await method(debugger, *args, **kwargs)
            self._everywhere[info.id] = [(method.__name__, args, kwargs)]
            return info
        self._sync_breakpoint_numbers()
        if chosen:
            target = self.named(chosen)
            with self.acting_on(target):
                info = await method(debugger, *args, **kwargs)
            self._sync_breakpoint_numbers()
            return self._merge_infos([(target, info)])
        number = self._next_breakpoint_number()
        done: list[tuple[Target, BreakpointInfo]] = []
        errors: list[tuple[Target, DebuggerError]] = []
        for target in self.all():
            target.session.breakpoints.continue_ids_from(number)
            try:
                with self.acting_on(target):
                    done.append((target, await method(debugger, *args, **kwargs)))
            except DebuggerError as exc:
                errors.append((target, exc))
        self._sync_breakpoint_numbers()
        if not done:
            raise errors[0][1]
        info = self._merge_infos(done)
        if info.bound is not None:
            for target, exc in errors:
                info.bound[target.name] = f"refused: {exc.message}"
        self._everywhere[info.id] = [(method.__name__, args, kwargs)]
        return info

    def _merge_infos(self, found: list[tuple[Target, BreakpointInfo]]) -> BreakpointInfo:
        """One breakpoint as bound in several targets: hits added up, every location, and where it is bound."""
        base = dataclasses.replace(found[0][1], locations=list(found[0][1].locations))
        for _target, info in found[1:]:
            base.hits += info.hits
            base.verified = base.verified or info.verified
            base.locations.extend(info.locations)
        base.bound = {t.name: ("verified" if i.verified else "pending") for t, i in found}
        return base

    async def _replay_breakpoints(self, target: Target, debugger: Any) -> None:
        """A target added to the session gets the breakpoints set without a target, under the same ids."""
        for bp_id, calls in list(self._everywhere.items()):
            number = int(bp_id.removeprefix("bp-")) if bp_id.removeprefix("bp-").isdigit() else None
            if number is None:
                continue
            target.session.breakpoints.continue_ids_from(number)
            for name, args, kwargs in calls:
                with contextlib.suppress(DebuggerError):
                    await getattr(type(debugger), name).raw_method(debugger, *args, **kwargs)
        self._sync_breakpoint_numbers()

    async def _span_breakpoint_list(self, method: Any, debugger: Any, args: tuple[Any, ...],
                                    kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            return await method(debugger, *args, **kwargs)
        targets = [self.named(CHOSEN.get() or "")] if CHOSEN.get() else self.all()
        by_id: dict[str, list[tuple[Target, BreakpointInfo]]] = {}
        for target in targets:
            with self.acting_on(target):
                for info in await method(debugger, *args, **kwargs):
                    by_id.setdefault(info.id, []).append((target, info))
        merged = [self._merge_infos(found) for found in by_id.values()]
        return sorted(merged, key=lambda i: (len(i.id), i.id))

    async def _span_breakpoint_update(self, method: Any, debugger: Any, args: tuple[Any, ...],
                                      kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            info = await method(debugger, *args, **kwargs)
            if info.id in self._everywhere:
                self._everywhere[info.id].append(("breakpoint_update", args, kwargs))
            return info
        bp_id = inspect.signature(method).bind(debugger, *args, **kwargs).arguments["id"]
        done = []
        for target in self._having(bp_id):
            with self.acting_on(target):
                done.append((target, await method(debugger, *args, **kwargs)))
        if not done:
            return await self._on(self.selected(), method, debugger, args, kwargs)  # (its own "no breakpoint")
        if done[0][1].id in self._everywhere and not CHOSEN.get():
            self._everywhere[done[0][1].id].append(("breakpoint_update", args, kwargs))
        return self._merge_infos(done)

    async def _span_breakpoint_remove(self, method: Any, debugger: Any, args: tuple[Any, ...],
                                      kwargs: dict[str, Any]) -> Any:
        bp_id = inspect.signature(method).bind(debugger, *args, **kwargs).arguments["id"]
        if CHOSEN.get() is None and not self.several:
            removed = await method(debugger, *args, **kwargs)
        else:
            holders = self._having(bp_id)
            if not holders:
                return await self._on(self.selected(), method, debugger, args, kwargs)  # (its own "no breakpoint")
            removed = []
            for target in holders:
                with self.acting_on(target):
                    removed += [r for r in await method(debugger, *args, **kwargs) if r not in removed]
        for gone in removed:
            if not CHOSEN.get():
                self._everywhere.pop(gone, None)
        return removed

    def _having(self, bp_id: str) -> list[Target]:
        targets = [self.named(CHOSEN.get() or "")] if CHOSEN.get() else self.all()
        if bp_id == "all":
            return targets
        wanted = {bp_id, f"bp-{bp_id}"}
        return [t for t in targets if wanted & set(t.session.breakpoints.by_id)]

