"""BreakpointTracker: line, method, exception and field breakpoints in one id space (bp-1, bp-2, ...).

A breakpoint is a wish plus its bindings. Line breakpoints wait for their classes (a ClassPrepare request
that suspends the loading thread, so the breakpoint is in before the class runs) and bind to every code
location of the line in the class and its inner, local, anonymous classes and lambdas, in every class
loader. Hit counts without conditions are counted by the JVM (Count modifier); conditions, logpoints and
chains are decided here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..jdwp import (
    EventKind,
    EventRequest,
    JdwpError,
    Location,
    Mod,
    ObjectReference,
    ReferenceType,
    StringReference,
    SuspendPolicy,
    TypeTag,
    Value,
)
from ..jdwp.constants import ClassStatus
from . import hot_conditions
from .errors import DebuggerError, EvaluationError, InvalidArgument, NotFound
from .hot_conditions import ConditionRate
from .instrument.jvm import EVENT_THREAD, InJvm
from .locations import LineSpec, MethodSpec, parse_location, parse_method, suggest
from .model import Actor, BreakpointInfo, CodeLocation, ExceptionInfo, StopKind, StopReason
from .sources import class_name_for_file
from .vm import MethodInfo, TypeInfo

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger(__name__)

# Logpoint lines per second per breakpoint before the logpoint is throttled (TRACEPILOT_LOGPOINT_RATE or
# Debugger(logpoint_rate=...)). Every logpoint hit suspends its thread for a round trip or more, so an
# unthrottled logpoint in a hot loop would slow the target without bound.
DEFAULT_LOGPOINT_RATE = float(os.environ.get("TRACEPILOT_LOGPOINT_RATE", "200"))
MAX_SAMPLING = 1 << 24


class TokenBucket:
    """`rate` tokens a second, at most `rate` (and at least one) saved up: a one-second burst."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.capacity = max(rate, 1.0)
        self.tokens = self.capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass
class HitRule:
    """When a breakpoint fires by hit count: the n-th hit ("eq"), every n-th ("every"), from the n-th on ("ge")."""

    mode: str
    n: int

    @staticmethod
    def parse(value: str | int | None) -> HitRule | None:
        if value is None or value == "" or value == 0:
            return None
        text = str(value).strip().replace(" ", "")
        try:
            if text.startswith("%") or text.lower().startswith("every"):
                rule = HitRule("every", int(text.lstrip("%").lower().removeprefix("every")))
            elif text.startswith(">="):
                rule = HitRule("ge", int(text[2:]))
            elif text.startswith(">"):
                rule = HitRule("ge", int(text[1:]) + 1)
            else:
                rule = HitRule("eq", int(text.lstrip("=")))
        except ValueError:
            raise InvalidArgument(f"bad hit count '{value}'", "use N (the N-th hit), %N (every N-th) or >=N") from None
        if rule.n < 1:
            raise InvalidArgument(f"hit count must be at least 1, got {rule.n}")
        return rule

    def __str__(self) -> str:
        return {"eq": str(self.n), "every": f"%{self.n}", "ge": f">={self.n}"}[self.mode]

    def passes(self, hits: int) -> bool:
        if self.mode == "eq":
            return hits == self.n
        if self.mode == "every":
            return hits % self.n == 0
        return hits >= self.n


@dataclass
class Breakpoint:
    info: BreakpointInfo
    spec: Any  # LineSpec | MethodSpec | exception class name | (class, field)
    hit_rule: HitRule | None = None
    thread_id: int | None = None
    internal: bool = False  # run_to's temporary breakpoint
    requests: dict[int, int] = field(default_factory=dict)  # request id -> event kind
    prepare_requests: list[int] = field(default_factory=list)
    bound: set[tuple[int, int, int]] = field(default_factory=set)  # (type, method, index)
    bound_types: set[int] = field(default_factory=set)
    method_ids: set[tuple[int, int]] = field(default_factory=set)  # method breakpoints: (type, method)
    instance_id: int | None = None
    fired: bool = False
    request_mods: dict[int, list[Any]] = field(default_factory=dict)  # request id -> its modifiers
    bucket: TokenBucket | None = None  # logpoint throttle
    sample_every: int = 1  # > 1: a throttled logpoint (or sampled condition): the JVM's Count modifier
    condition_rate: ConditionRate = field(default_factory=ConditionRate)  # hot-condition measurement

    def unbind(self) -> None:
        """Forget every binding in the VM (its requests were cleared, or died with the VM)."""
        self.requests.clear()
        self.request_mods.clear()
        self.prepare_requests.clear()
        self.bound.clear()
        self.bound_types.clear()
        self.method_ids.clear()
        self.info.verified = False
        self.info.locations = []

    @property
    def jvm_counts(self) -> bool:
        """A pure hit count (no condition) is left to the JVM's Count modifier."""
        return self.hit_rule is not None and not self.info.condition

    @property
    def client_filter(self) -> bool:
        """Must the client see every hit (condition, log message, client-side counting, method exit filter)?"""
        return bool(self.info.condition or self.info.log or (self.hit_rule and not self.jvm_counts)
                    or self.info.kind == "method_exit")


class BreakpointTracker:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._bps: dict[str, Breakpoint] = {}
        self._next_id = 1
        self._by_request: dict[int, Breakpoint] = {}
        self._prepare_owner: dict[int, Breakpoint] = {}
        self.logpoint_rate = DEFAULT_LOGPOINT_RATE  # <= 0: never throttle
        self.in_jvm = InJvm(self)  # conditions and logpoints compiled into the target (core/instrument)

    # -- queries -------------------------------------------------------------------------------------

    def list(self, include_internal: bool = False) -> list[BreakpointInfo]:
        return [bp.info for bp in self._bps.values() if include_internal or not bp.internal]

    def get(self, bp_id: str) -> Breakpoint:
        bp = self._bps.get(bp_id) or self._bps.get(f"bp-{bp_id}")
        if bp is None:
            raise NotFound(f"no breakpoint {bp_id}", suggest(bp_id, list(self._bps)),
                           "breakpoint_list shows the ids")
        return bp

    # -- creation ------------------------------------------------------------------------------------

    def _new_id(self) -> str:
        """The id the next breakpoint will get. It is taken only when the breakpoint is added (see `_add`),
        so a breakpoint_set that fails does not use up an id."""
        return f"bp-{self._next_id}"

    def _take_id(self, bp: Breakpoint) -> int:
        """Give `bp` the next free id now (another set may have taken the one it was shown); returns its number."""
        number = self._next_id
        self._next_id += 1
        bp.info.id = f"bp-{number}"
        return number

    async def _resolve_thread_filter(self, thread: str | int | None) -> int | None:
        if thread is None or thread == "":
            return None
        return await self.session.resolve_thread(thread)

    def _check_chain(self, bp_id: str, after: str | None) -> None:
        if not after:
            return
        if after not in self._bps:
            raise NotFound(f"breakpoint {after} (for after=) does not exist", suggest(after, list(self._bps)))
        seen = {bp_id}
        current: str | None = after
        while current:
            if current in seen:
                raise InvalidArgument(f"chaining {bp_id} after {after} would make a cycle",
                                      "a breakpoint cannot (indirectly) wait for itself")
            seen.add(current)
            nxt = self._bps.get(current)
            current = nxt.info.after if nxt else None

    async def _add(self, bp: Breakpoint, actor: Actor) -> BreakpointInfo:
        number = None if bp.internal else self._take_id(bp)
        self._bps[bp.info.id] = bp
        if bp.info.after and not self._bps[bp.info.after].fired:
            bp.info.armed = False
        if self.session.conn is not None and not self.session.conn.is_closed:
            try:
                await self._install(bp)
            except DebuggerError:
                # A request that cannot be right (no such method or field) leaves nothing behind, not
                # even a used-up id (unless another breakpoint took the next one meanwhile).
                await self._uninstall(bp)
                self._bps.pop(bp.info.id, None)
                if number is not None and self._next_id == number + 1:
                    self._next_id = number
                raise
        if not bp.internal:
            self.session.history.add("breakpoint_set", f"set {bp.info.describe()}", actor, breakpoint=bp.info.id)
        return bp.info

    async def set_line(self, location: str, *, condition: str | None = None, hit_count: str | int | None = None,
                       log: str | None = None, thread: str | int | None = None, temporary: bool = False,
                       suspend: str = "all", after: str | None = None, enabled: bool = True,
                       actor: Actor = Actor.PERSON, internal: bool = False) -> BreakpointInfo:
        spec = parse_location(location)
        if isinstance(spec, MethodSpec):
            return await self.set_method(location, on="entry", condition=condition, log=log, thread=thread,
                                         actor=actor, hit_count=hit_count, temporary=temporary, suspend=suspend,
                                         after=after, enabled=enabled)
        spec = self._normalise_line_spec(spec)
        _check_suspend(suspend)
        bp_id = self._new_id() if not internal else f"run-to-{self._next_id}"
        if internal:
            self._next_id += 0
        self._check_chain(bp_id, after)
        info = BreakpointInfo(id=bp_id, kind="line", spec=str(spec), enabled=enabled, condition=condition or None,
                              log=log or None, temporary=temporary, suspend=suspend, after=after or None)
        bp = Breakpoint(info, spec, HitRule.parse(hit_count), internal=internal)
        info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        self._refuse_line_without_code(spec)
        return await self._add(bp, actor)

    def _refuse_line_without_code(self, spec: LineSpec) -> None:
        """A line past the end of its file, or after the file's last code, can never bind: say so at once,
        with the nearest line that can (only the source can tell; without it the breakpoint waits)."""
        path = self._spec_source(spec)
        if path is None:
            return
        from .sources import read_lines  # noqa: PLC0415

        lines = read_lines(path)
        last_code = next((n for n in range(len(lines), 0, -1) if not _looks_code_free(lines[n - 1])), None)
        if last_code is None or spec.line <= last_code:
            return
        where = spec.class_name or spec.file
        why = (f"{path.name} has only {len(lines)} lines" if spec.line > len(lines)
               else f"line {spec.line} of {path.name} and the lines after it have no code")
        raise InvalidArgument(f"{where}:{spec.line} can never be reached: {why}",
                              f"the nearest line with code is {last_code}: use {where}:{last_code}")

    def _spec_source(self, spec: LineSpec) -> Path | None:
        """The source file a line spec means, when it can be found without the VM."""
        sources = self.session.sources
        try:
            if spec.class_name and "." in spec.class_name:
                return sources.find(spec.class_name)
            name = f"{spec.class_name.split('$', 1)[0]}.java" if spec.class_name else spec.file
            found = sources.files_named(name) if name else []
            return found[0] if len(found) == 1 else None  # two files of that name: cannot tell which
        except DebuggerError:  # a file outside the source roots: not read, so not judged
            return None

    def _validate_expressions(self, bp: Breakpoint) -> None:
        _check_expressions(bp.info.condition, bp.info.log)

    def _normalise_line_spec(self, spec: LineSpec) -> LineSpec:
        """File paths become class names when the file is on disk (its package tells the class)."""
        if spec.file and ("/" in spec.file or "\\" in spec.file):
            try:
                path = self.session.sources.find_file(spec.file)
            except DebuggerError:  # outside the source roots: not read, so its file name must do
                path = None
            if path is not None:
                return LineSpec(spec.line, class_name=class_name_for_file(path), file=path.name)
            return LineSpec(spec.line, file=spec.file.replace("\\", "/").rsplit("/", 1)[-1])
        if spec.file:
            return spec
        if spec.is_simple_name:
            return spec
        return spec

    async def set_method(self, method: str, *, on: str = "entry", condition: str | None = None,
                         log: str | None = None, thread: str | int | None = None, actor: Actor = Actor.PERSON,
                         hit_count: str | int | None = None, temporary: bool = False, suspend: str = "all",
                         after: str | None = None, enabled: bool = True) -> BreakpointInfo:
        if on not in ("entry", "exit"):
            raise InvalidArgument(f"on='{on}'", "use on='entry' or on='exit'")
        spec = parse_method(method)
        _check_suspend(suspend)
        bp_id = self._new_id()
        self._check_chain(bp_id, after)
        info = BreakpointInfo(id=bp_id, kind=f"method_{on}", spec=str(spec), enabled=enabled,
                              condition=condition or None, log=log or None, temporary=temporary, suspend=suspend,
                              after=after or None)
        bp = Breakpoint(info, spec, HitRule.parse(hit_count))
        info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        return await self._add(bp, actor)

    async def set_exception(self, exception: str = "*", *, caught: bool = True, uncaught: bool = True,
                            condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                            enabled: bool = True, actor: Actor = Actor.PERSON) -> BreakpointInfo:
        name = (exception or "*").strip()
        if name not in ("*", "all") and not all(part.replace("$", "").isidentifier() for part in name.split(".")):
            raise InvalidArgument(f"'{exception}' is not an exception class name",
                                  "use a class like java.lang.NullPointerException, or * for all")
        if not caught and not uncaught:
            raise InvalidArgument("neither caught nor uncaught exceptions selected", "set caught and/or uncaught")
        bp_id = self._new_id()
        info = BreakpointInfo(id=bp_id, kind="exception", spec="*" if name in ("*", "all") else name,
                              enabled=enabled, condition=condition or None, log=log or None, caught=caught,
                              uncaught=uncaught)
        bp = Breakpoint(info, info.spec)
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        return await self._add(bp, actor)

    async def set_watchpoint(self, field_name: str, *, access: bool = False, modify: bool = True,
                             instance: str | None = None, condition: str | None = None, log: str | None = None,
                             thread: str | int | None = None, actor: Actor = Actor.PERSON) -> BreakpointInfo:
        class_name, _, fname = (field_name or "").strip().rpartition(".")
        if not class_name or not fname:
            raise InvalidArgument(f"'{field_name}' is not Class.field", "use e.g. com.acme.Order.totalCents")
        if not access and not modify:
            raise InvalidArgument("neither access nor modify selected", "set access and/or modify")
        bp_id = self._new_id()
        info = BreakpointInfo(id=bp_id, kind="watchpoint", spec=f"{class_name}.{fname}", condition=condition or None,
                              log=log or None, access=access, modify=modify, instance=instance)
        bp = Breakpoint(info, (class_name, fname))
        if instance:
            bp.instance_id = await self.session.inspector.object_id_of(instance)
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        return await self._add(bp, actor)

    # -- update / remove -----------------------------------------------------------------------------

    async def update(self, bp_id: str, *, actor: Actor = Actor.PERSON, **options: Any) -> BreakpointInfo:
        bp = self.get(bp_id)
        allowed = {"condition", "hit_count", "log", "thread", "temporary", "suspend", "after", "enabled", "sample"}
        unknown = set(options) - allowed
        if unknown:
            raise InvalidArgument(f"unknown option(s) {', '.join(sorted(unknown))}", f"use {', '.join(sorted(allowed))}")
        options = {k: v for k, v in options.items() if v is not None}
        _check_expressions(options.get("condition"), options.get("log"))  # before anything changes
        if "after" in options:
            self._check_chain(bp.info.id, options["after"] or None)
            bp.info.after = options["after"] or None
            bp.info.armed = not bp.info.after or self._bps[bp.info.after].fired
        if "condition" in options:
            bp.info.condition = options["condition"] or None
        if "hit_count" in options:
            bp.hit_rule = HitRule.parse(options["hit_count"])
            bp.info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
            # The new rule counts from now on, and so does the hit label the user sees ("hit 5" is the 5th
            # hit since the update, not the 1,000,005th since the breakpoint was set).
            bp.info.hits = 0
            bp.fired = False
        if "log" in options:
            bp.info.log = options["log"] or None
        if "thread" in options:
            bp.thread_id = await self._resolve_thread_filter(options["thread"])
            bp.info.thread = str(options["thread"]) if options["thread"] not in (None, "") else None
        if "temporary" in options:
            bp.info.temporary = bool(options["temporary"])
        if "suspend" in options:
            _check_suspend(options["suspend"])
            bp.info.suspend = options["suspend"]
        if "enabled" in options:
            bp.info.enabled = bool(options["enabled"])
        if bp.sample_every > 1:  # a change starts the logpoint throttle afresh
            bp.sample_every, bp.bucket, bp.info.sampled = 1, None, None
            if bp.info.message and bp.info.message.startswith("throttled"):
                bp.info.message = None
        if "sample" in options:  # the throttle a hot condition offers: the JVM reports 1 hit in N
            bp.sample_every = _sample(options["sample"])
            bp.info.sampled = bp.sample_every if bp.sample_every > 1 else None
            bp.condition_rate = ConditionRate()
            if bp.info.message and bp.info.message.startswith("hot:"):
                bp.info.message = None
        if self.session.conn is not None and not self.session.conn.is_closed \
                and not await self.in_jvm.update(bp):  # in-JVM: a new condition may only redefine its probe
            await self._uninstall(bp)
            await self._install(bp)
        self.session.history.add("breakpoint_changed", f"changed {bp.info.describe()}", actor, breakpoint=bp.info.id)
        return bp.info

    async def remove(self, bp_id: str, *, actor: Actor = Actor.PERSON, quiet: bool = False) -> list[str]:
        targets = [b for b in self._bps.values() if not b.internal] if bp_id == "all" else [self.get(bp_id)]
        removed = []
        for bp in targets:
            await self._uninstall(bp)
            self._bps.pop(bp.info.id, None)
            removed.append(bp.info.id)
            for other in self._bps.values():  # dependants of a removed breakpoint are armed for good
                if other.info.after == bp.info.id:
                    other.info.after = None
                    if not other.info.armed:
                        other.info.armed = True
                        if self.session.conn is not None:
                            await self._install(other)
        if removed and not quiet:
            self.session.history.add("breakpoint_removed", f"removed {', '.join(removed)}", actor, breakpoints=removed)
        return removed

    # -- lifecycle -----------------------------------------------------------------------------------

    async def install_all(self) -> None:
        """After (re)connecting: install every breakpoint we know, under the same ids."""
        # First learn where the target's sources are (its working directory's project layout, sources jars
        # of its class path): binding and the line checks read the source.
        with contextlib.suppress(DebuggerError):
            await self.session.sources.learn_from_vm(self.session.require_vm())
        for bp in list(self._bps.values()):
            bp.unbind()
            await self._install(bp)

    def forget_vm(self) -> None:
        """The VM is gone: requests died with it; breakpoints stay, unverified, for a reconnect."""
        self.in_jvm.forget_vm()
        self._by_request.clear()
        self._prepare_owner.clear()
        for bp in list(self._bps.values()):
            if bp.internal:
                self._bps.pop(bp.info.id, None)
                continue
            bp.unbind()

    def clear_all_local(self) -> None:
        self.in_jvm.forget_vm()
        self._bps.clear()
        self._by_request.clear()
        self._prepare_owner.clear()
        self._next_id = 1

    async def clear_in_vm(self) -> None:
        for bp in list(self._bps.values()):
            await self._uninstall(bp)

    async def reinstall_class(self, type_id: int) -> None:
        """After a class was redefined: re-bind breakpoints that were bound in it."""
        self.in_jvm.class_redefined(type_id)
        for bp in self._bps.values():
            if type_id in bp.bound_types:
                await self._uninstall(bp)
                await self._install(bp)

    # -- installing ----------------------------------------------------------------------------------

    def _policy(self, bp: Breakpoint) -> int:
        if bp.client_filter:
            return SuspendPolicy.EVENT_THREAD
        return SuspendPolicy.ALL if bp.info.suspend == "all" else SuspendPolicy.EVENT_THREAD

    def _common_mods(self, bp: Breakpoint) -> list[Any]:
        mods: list[Any] = []
        if bp.jvm_counts and bp.hit_rule is not None:
            mods.append(Mod.Count(bp.hit_rule.n))
        elif bp.sample_every > 1:
            mods.append(Mod.Count(bp.sample_every))
        if bp.thread_id:
            mods.append(Mod.ThreadOnly(bp.thread_id))
        if bp.instance_id:
            mods.append(Mod.InstanceOnly(bp.instance_id))
        return mods

    async def _request(self, bp: Breakpoint, kind: int, mods: list[Any]) -> int:
        vm = self.session.require_vm()
        # Count modifiers must come first so the other filters apply before counting (JDWP: in order).
        ordered = [m for m in mods if not isinstance(m, Mod.Count)] + [m for m in mods if isinstance(m, Mod.Count)]
        reply = await vm.send(EventRequest.Set, kind, self._policy(bp), ordered)
        bp.requests[reply.request_id] = kind
        bp.request_mods[reply.request_id] = ordered
        self._by_request[reply.request_id] = bp
        return reply.request_id

    async def _uninstall(self, bp: Breakpoint) -> None:
        await self.in_jvm.release(bp)  # the class's original bytes back, when its probe was compiled in
        conn = self.session.conn
        for request_id, kind in list(bp.requests.items()):
            self._by_request.pop(request_id, None)
            if conn is not None and not conn.is_closed:
                with contextlib.suppress(JdwpError):
                    await conn.send(EventRequest.Clear, kind, request_id)
        for request_id in bp.prepare_requests:
            self._prepare_owner.pop(request_id, None)
            if conn is not None and not conn.is_closed:
                with contextlib.suppress(JdwpError):
                    await conn.send(EventRequest.Clear, EventKind.CLASS_PREPARE, request_id)
        bp.unbind()

    async def _install(self, bp: Breakpoint) -> None:
        if not bp.info.enabled or not bp.info.armed:
            return
        try:
            if bp.info.kind == "line":
                await self._install_line(bp)
            elif bp.info.kind in ("method_entry", "method_exit"):
                await self._install_method(bp)
            elif bp.info.kind == "exception":
                await self._install_exception(bp)
            elif bp.info.kind == "watchpoint":
                await self._install_watchpoint(bp)
        except JdwpError as exc:
            bp.info.message = f"could not install: {exc}"
            log.warning("installing %s failed: %s", bp.info.id, exc)

    async def _watch_prepare_class(self, bp: Breakpoint, class_name: str) -> None:
        """Be told when a class of this name loads: a qualified name exactly, a simple one in any package."""
        await self._watch_prepare(bp, [Mod.ClassMatch(class_name)])
        if "." not in class_name:
            await self._watch_prepare(bp, [Mod.ClassMatch(f"*.{class_name}")])

    async def _loaded_classes_named(self, class_name: str) -> list[TypeInfo]:
        """Loaded classes a qualified or simple name ("Feat", "Feat$Inner") stands for."""
        vm = self.session.require_vm()
        if "." in class_name:
            return await vm.classes_by_name(class_name)
        return [t for t in await vm.all_classes(refresh=True)
                if not t.is_array and t.status & ClassStatus.PREPARED and t.simple_name == class_name]

    async def _watch_prepare(self, bp: Breakpoint, mods: list[Any]) -> None:
        vm = self.session.require_vm()
        reply = await vm.send(EventRequest.Set, EventKind.CLASS_PREPARE, SuspendPolicy.EVENT_THREAD, mods)
        bp.prepare_requests.append(reply.request_id)
        self._prepare_owner[reply.request_id] = bp

    def _line_class_matches(self, bp: Breakpoint, info: TypeInfo, source_file: str | None) -> bool:
        spec: LineSpec = bp.spec
        name = info.name
        if spec.class_name and "." in spec.class_name:
            return name == spec.class_name or name.startswith(spec.class_name + "$")
        if spec.class_name:  # a simple name matches as its qualified form would, in any package
            simple = name.rsplit(".", 1)[-1]
            if simple == spec.class_name or simple.startswith(spec.class_name + "$"):
                return True
            return "$" not in spec.class_name and source_file == f"{spec.class_name}.java"
        return source_file == spec.file

    async def _install_line(self, bp: Breakpoint) -> None:
        spec: LineSpec = bp.spec
        vm = self.session.require_vm()
        if spec.class_name and "." in spec.class_name:
            await self._watch_prepare(bp, [Mod.ClassMatch(spec.class_name)])
            await self._watch_prepare(bp, [Mod.ClassMatch(spec.class_name + "$*")])
            outer_sig = spec.class_name
            candidates = await vm.classes_by_name(outer_sig)
            # Inner classes already loaded: find them among all classes with that prefix.
            prefix = "L" + spec.class_name.replace(".", "/") + "$"
            if candidates:
                all_types = await vm.all_classes(refresh=True)
                candidates += [t for t in all_types if t.signature.startswith(prefix)]
        else:
            source_name = f"{spec.class_name.split('$', 1)[0]}.java" if spec.class_name else spec.file
            await self._watch_prepare(bp, [Mod.SourceNameMatch(source_name)])
            if spec.class_name:
                await self._watch_prepare(bp, [Mod.ClassMatch(f"*.{spec.class_name}")])
                # A class of the default package declared in a file of another name.
                await self._watch_prepare(bp, [Mod.ClassMatch(spec.class_name)])
            all_types = await vm.all_classes(refresh=True)
            candidates = [t for t in all_types if t.tag != TypeTag.ARRAY and t.status & ClassStatus.PREPARED
                          and self._maybe_same_source(t, spec)]
        for info in candidates:
            if info.status and not info.status & ClassStatus.PREPARED:
                continue
            await self._bind_line(bp, info)
        if not bp.info.verified:
            await self._explain_pending(bp)

    def _maybe_same_source(self, info: TypeInfo, spec: LineSpec) -> bool:
        outer = info.name.rsplit(".", 1)[-1].split("$", 1)[0]
        wanted = (spec.class_name or (spec.file or "").removesuffix(".java")).split("$", 1)[0]
        return outer == wanted or bool(spec.file)

    async def _explain_pending(self, bp: Breakpoint) -> None:
        spec: LineSpec = bp.spec
        if bp.info.message:
            return
        name = spec.class_name or spec.file or ""
        vm = self.session.require_vm()
        if spec.file and not spec.class_name:
            bp.info.message = f"pending: no loaded class comes from {spec.file} yet"
            return
        names = [t.name for t in await vm.all_classes(refresh=True) if not t.is_array]
        loaded = [n for n in names if n == name or n.rsplit(".", 1)[-1] == name]
        if loaded:
            bp.info.message = f"pending: line {spec.line} has no code in {loaded[0]} (yet)"
            return
        close = suggest(name, [n for n in names if "$" not in n])
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        bp.info.message = f"pending: class {name} is not loaded yet{hint}"

    async def _bind_line(self, bp: Breakpoint, info: TypeInfo) -> None:
        spec: LineSpec = bp.spec
        vm = self.session.require_vm()
        if info.id in bp.bound_types:
            return
        source_file = await vm.source_file(info.id)
        if not self._line_class_matches(bp, info, source_file):
            return
        methods = await vm.line_tables(info.id)
        line = spec.line
        targets = _locations_of_line(methods, line)
        if not targets:
            moved = _next_line_with_code(methods, line, self._source_lines(info.name, source_file),
                                         top_level="$" not in info.name)
            if moved is None:
                return
            targets = _locations_of_line(methods, moved)
            bp.info.message = f"line {line} has no code; moved to line {moved}"
        bp.bound_types.add(info.id)
        if self.in_jvm.wanted(bp) and await self._bind_in_jvm(bp, info, method_line(targets), source_file):
            return
        for method, index in targets:
            key = (info.id, method.id, index)
            if key in bp.bound:
                continue
            loc = Location(info.tag, info.id, method.id, index)
            await self._request(bp, EventKind.BREAKPOINT, [Mod.LocationOnly(loc), *self._common_mods(bp)])
            bp.bound.add(key)
            bp.info.locations.append(CodeLocation(info.name, method.name, method.line_at(index), source_file,
                                                  method_signature=method.signature, code_index=index))
        bp.info.verified = bool(bp.bound)
        if bp.info.verified and bp.info.message and bp.info.message.startswith("pending"):
            bp.info.message = None

    async def _bind_in_jvm(self, bp: Breakpoint, info: TypeInfo, line: int, source_file: str | None) -> bool:
        """Compile the condition/log into the class (core/instrument); False (and why) means the round trip."""
        reason = await self.in_jvm.bind(bp, info, line)
        bp.info.mode = "in-JVM" if reason is None else f"round trip ({reason})"
        if reason is not None:
            return False
        for method, index in _locations_of_line(await self.session.require_vm().line_tables(info.id), line):
            bp.info.locations.append(CodeLocation(info.name, method.name, line, source_file,
                                                  method_signature=method.signature, code_index=index))
        bp.info.verified = True
        if bp.info.message and bp.info.message.startswith("pending"):
            bp.info.message = None
        return True

    def _source_lines(self, class_name: str, source_file: str | None) -> list[str] | None:
        path = self.session.sources.find(class_name, source_file)
        if path is None:
            return None
        from .sources import read_lines

        return read_lines(path)

    async def _install_method(self, bp: Breakpoint) -> None:
        spec: MethodSpec = bp.spec
        vm = self.session.require_vm()
        await self._watch_prepare_class(bp, spec.class_name)
        types = await self._loaded_classes_named(spec.class_name)
        for info in types:
            await self._bind_method(bp, info)
        if not bp.info.verified and not bp.info.message:
            names = [t.name for t in await vm.all_classes() if not t.is_array and "$" not in t.name]
            close = suggest(spec.class_name, names)
            bp.info.message = f"pending: class {spec.class_name} is not loaded yet" + (
                f"; did you mean {' or '.join(close)}?" if close else "")

    async def _bind_method(self, bp: Breakpoint, info: TypeInfo) -> None:
        spec: MethodSpec = bp.spec
        vm = self.session.require_vm()
        if info.id in bp.bound_types:
            return
        methods = [m for m in await vm.methods(info.id) if m.name == spec.method]
        if spec.arg_types is not None:
            wanted = [a.rsplit(".", 1)[-1] for a in spec.arg_types]
            methods = [m for m in methods if [t.rsplit(".", 1)[-1] for t in m.arg_types] == wanted]
        if not methods:
            all_names = sorted({m.name for m in await vm.methods(info.id)})
            close = suggest(spec.method, all_names)
            raise NotFound(f"{info.name} has no method {spec.method}"
                           + (f"({', '.join(spec.arg_types)})" if spec.arg_types is not None else ""), close)
        bp.bound_types.add(info.id)
        source_file = await vm.source_file(info.id)
        for method in methods:
            bp.method_ids.add((info.id, method.id))
            method = await vm.line_table(info.id, method.id)
            bp.info.locations.append(CodeLocation(info.name, method.name, method.line_at(method.start if method.start >= 0 else 0),
                                                  source_file, method_signature=method.signature))
            if bp.info.kind == "method_entry":
                if method.is_native or method.is_abstract:
                    continue
                start = method.start if method.start >= 0 else 0
                loc = Location(info.tag, info.id, method.id, start)
                await self._request(bp, EventKind.BREAKPOINT, [Mod.LocationOnly(loc), *self._common_mods(bp)])
        if bp.info.kind == "method_exit":
            await self._request(bp, EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
                                [Mod.ClassOnly(info.id), *self._common_mods(bp)])
        bp.info.verified = True
        bp.info.message = None

    async def _install_exception(self, bp: Breakpoint) -> None:
        vm = self.session.require_vm()
        if "." not in bp.info.spec and bp.info.spec != "*":
            bp.info.spec = await self._qualify_exception(bp.info.spec)
        name = bp.info.spec
        if name == "*":
            await self._request(bp, EventKind.EXCEPTION, [Mod.ExceptionOnly(0, bool(bp.info.caught), bool(bp.info.uncaught)),
                                                          *self._common_mods(bp)])
            bp.info.verified = True
            return
        await self._watch_prepare(bp, [Mod.ClassMatch(name if "." in name else f"*.{name}")])
        for info in await vm.classes_by_name(name):
            await self._bind_exception(bp, info)
        if not bp.info.verified:
            bp.info.message = f"pending: {name} is not loaded yet (it will be when first used)"

    async def _qualify_exception(self, simple: str) -> str:
        """`NullPointerException` -> `java.lang.NullPointerException`: a loaded class with that simple name
        (java.lang first), else java.lang's if it exists, else the name as typed (pending)."""
        vm = self.session.require_vm()
        if await vm.classes_by_name(f"java.lang.{simple}"):
            return f"java.lang.{simple}"
        matches = sorted({t.name for t in await vm.all_classes(refresh=True)
                          if not t.is_array and t.name.rsplit(".", 1)[-1] == simple})
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise InvalidArgument(f"'{simple}' is ambiguous: {', '.join(matches[:5])}", "give the full class name")
        return simple

    async def _bind_exception(self, bp: Breakpoint, info: TypeInfo) -> None:
        if info.id in bp.bound_types:
            return
        bp.bound_types.add(info.id)
        bp.info.spec = info.name  # a simple name typed before the class loaded becomes the loaded class
        await self._request(bp, EventKind.EXCEPTION, [Mod.ExceptionOnly(info.id, bool(bp.info.caught), bool(bp.info.uncaught)),
                                                      *self._common_mods(bp)])
        bp.info.verified = True
        bp.info.message = None

    async def _install_watchpoint(self, bp: Breakpoint) -> None:
        class_name, _fname = bp.spec
        await self._watch_prepare_class(bp, class_name)
        for info in await self._loaded_classes_named(class_name):
            await self._bind_watchpoint(bp, info)
        if not bp.info.verified:
            bp.info.message = f"pending: class {class_name} is not loaded yet"

    async def _bind_watchpoint(self, bp: Breakpoint, info: TypeInfo) -> None:
        vm = self.session.require_vm()
        if info.id in bp.bound_types:
            return
        _class_name, fname = bp.spec
        fields = await vm.fields(info.id)
        match = next((f for f in fields if f.name == fname), None)
        if match is None:
            raise NotFound(f"{info.name} has no field {fname}", suggest(fname, [f.name for f in fields]))
        caps = vm.capabilities
        bp.bound_types.add(info.id)
        mods = [Mod.FieldOnly(info.id, match.id), *self._common_mods(bp)]
        if bp.info.access:
            if not caps.get("can_watch_field_access"):
                raise DebuggerError("this JVM cannot watch field reads")
            await self._request(bp, EventKind.FIELD_ACCESS, mods)
        if bp.info.modify:
            if not caps.get("can_watch_field_modification"):
                raise DebuggerError("this JVM cannot watch field writes")
            await self._request(bp, EventKind.FIELD_MODIFICATION, mods)
        bp.info.verified = True
        bp.info.message = None

    # -- events --------------------------------------------------------------------------------------

    async def on_class_prepare(self, event: Any) -> None:
        bp = self._prepare_owner.get(event.request_id)
        if bp is None or bp.info.id not in self._bps:
            return
        vm = self.session.require_vm()
        info = await vm.type(event.type_id, event.ref_type_tag)
        was_verified = bp.info.verified
        event_thread = EVENT_THREAD.set(event.thread)  # nothing of the class ran yet: it may be instrumented
        try:
            if bp.info.kind == "line":
                await self._bind_line(bp, info)
            elif bp.info.kind in ("method_entry", "method_exit"):
                await self._bind_method(bp, info)
            elif bp.info.kind == "exception":
                await self._bind_exception(bp, info)
            elif bp.info.kind == "watchpoint":
                await self._bind_watchpoint(bp, info)
        except DebuggerError as exc:
            bp.info.message = exc.message
        finally:
            EVENT_THREAD.reset(event_thread)
        if bp.info.verified and not was_verified:
            self.session.history.add("breakpoint_verified", f"{bp.info.id} bound in {info.name}", Actor.TARGET,
                                     breakpoint=bp.info.id)

    async def on_event(self, event: Any) -> tuple[StopReason, bool] | None:
        """Decide what a breakpoint-like event means: a stop (and whether to suspend all), or nothing."""
        bp = self._by_request.get(event.request_id)
        if bp is None:
            return None
        if self.in_jvm.owns(event.request_id):  # the probe's hit/error/handover: decided in the JVM
            return await self.in_jvm.on_event(bp, event)
        if bp.info.mode is not None and bp.info.mode != "in-JVM":  # may move into the JVM once its method returns
            await self.in_jvm.maybe_upgrade(bp, event)
        kind = type(event).KIND
        if bp.info.kind == "method_exit" and (event.location.class_id, event.location.method_id) not in bp.method_ids:
            return None
        session = self.session
        if bp.info.log and not await self._logpoint_allowed(bp, event):
            return None
        extra: dict[str, Value] = {}
        if kind == EventKind.EXCEPTION:
            extra["$exception"] = event.exception
        elif kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
            extra["$return"] = event.value
        elif kind == EventKind.FIELD_MODIFICATION:
            extra["$new"] = event.value_to_be
            old = await self._field_value(event)
            if old is not None:
                extra["$old"] = old
        if kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION) and event.object.value:
            extra["$this"] = event.object  # `this` in a field log or condition: the object read or written
        # Hit counting.
        if bp.jvm_counts and bp.hit_rule is not None:
            bp.info.hits += bp.hit_rule.n if bp.hit_rule.mode != "ge" or not bp.fired else 1
            await self._rearm_count(bp, event)
        message = None
        if bp.info.condition:
            await self._measure_condition(bp, event)
            try:
                ok = await session.inspector.evaluate_condition(bp.info.condition, event.thread, extra)
            except NotImplementedError:
                ok, message = True, "conditions are not evaluated yet in this build: stopped unconditionally"
            except (EvaluationError, DebuggerError) as exc:
                ok, message = True, f"condition error, stopped: {exc}"
            if not ok:
                return None
        if not bp.jvm_counts:
            bp.info.hits += bp.sample_every  # a sampled logpoint stands for that many hits
            if bp.hit_rule is not None and not bp.hit_rule.passes(bp.info.hits):
                return None
        bp.fired = True
        hit = bp.info.hits  # this event's hit number: other threads' hits may count on during the awaits below
        await self._arm_dependants(bp)
        if bp.info.log:
            try:
                text = await session.inspector.format_log(bp.info.log, event.thread, extra)
            except NotImplementedError:
                text = bp.info.log
            except DebuggerError as exc:
                text = f"{bp.info.log} [log error: {exc}]"
            where, details = await session.inspector.log_details(bp.info, event, extra)
            session.history.add("log", text + where, Actor.TARGET, breakpoint=bp.info.id, thread=event.thread,
                                **details)
            if message is None:
                return None
        reason = await self._stop_reason(bp, event, extra)
        if reason.hit_count is not None:
            reason.hit_count = hit
        session.inspector.keep_stop_values(reason, extra)  # `evaluate $return` at this stop
        reason.message = message
        if bp.info.temporary:
            with contextlib.suppress(DebuggerError):
                await self.remove(bp.info.id, actor=Actor.TARGET, quiet=bp.internal)
        needs_vm_suspend = bp.client_filter and bp.info.suspend == "all"
        return reason, needs_vm_suspend

    async def _measure_condition(self, bp: Breakpoint, event: Any) -> None:
        """A condition's evaluation rate (see hot_conditions): warned about once, in the history and on the
        breakpoint; `sample` (breakpoint_update) is the throttle it offers."""
        if bp.sample_every > 1 and not bp.info.log:
            await self._rearm_sample(bp, event)  # a sampled condition's Count modifier expired as it fired
        rate = bp.condition_rate.tick(0 if bp.internal else self.logpoint_rate)
        if rate is None:
            return
        bp.info.message = hot_conditions.message(rate)
        self.session.history.add("condition_hot", hot_conditions.warning(bp.info.id, rate, f" at {bp.info.spec}"),
                                 Actor.TARGET, breakpoint=bp.info.id, rate=round(rate))

    async def _logpoint_allowed(self, bp: Breakpoint, event: Any) -> bool:
        """The logpoint throttle: a token bucket per breakpoint. Beyond the rate, the JVM samples the hits
        (a Count modifier, doubled each time the rate is exceeded again) so the target is not slowed by a
        round trip per hit; the change is recorded in the history and on the breakpoint."""
        if bp.sample_every > 1:
            await self._rearm_sample(bp, event)
        rate = self.logpoint_rate
        if rate <= 0 or bp.internal:
            return True
        if bp.bucket is None or bp.bucket.rate != rate:
            bp.bucket = TokenBucket(rate)
        if bp.bucket.take():
            return True
        if bp.sample_every >= MAX_SAMPLING or bp.jvm_counts:
            return False  # already sampled as far as it goes (or counted by the JVM): drop this line
        bp.sample_every = min(bp.sample_every * 2 if bp.sample_every > 1 else 16, MAX_SAMPLING)
        bp.info.sampled = bp.sample_every
        bp.info.message = (f"throttled: fired faster than {rate:g} log lines/s; the JVM now reports 1 hit in "
                           f"{bp.sample_every}")
        self.session.history.add(
            "breakpoint_throttled",
            f"{bp.info.id} logpoint throttled: more than {rate:g} lines/s would slow the target, so only 1 hit in "
            f"{bp.sample_every} is logged (breakpoint_update {bp.info.id} resets it)",
            Actor.TARGET, breakpoint=bp.info.id, sample_every=bp.sample_every, rate=rate)
        await self._uninstall(bp)
        message, sampled = bp.info.message, bp.info.sampled
        await self._install(bp)
        bp.info.message, bp.info.sampled = message, sampled
        return False

    async def _rearm_sample(self, bp: Breakpoint, event: Any) -> None:
        """A Count modifier expires when it fires: re-create the sampled request with the same filters."""
        kind = bp.requests.pop(event.request_id, None)
        mods = bp.request_mods.pop(event.request_id, None)
        self._by_request.pop(event.request_id, None)
        if kind is None or mods is None:
            return
        mods = [m for m in mods if not isinstance(m, Mod.Count)] + [Mod.Count(bp.sample_every)]
        reply = await self.session.require_vm().send(EventRequest.Set, kind, self._policy(bp), mods)
        bp.requests[reply.request_id] = kind
        bp.request_mods[reply.request_id] = mods
        self._by_request[reply.request_id] = bp

    async def _rearm_count(self, bp: Breakpoint, event: Any) -> None:
        """JVM Count modifiers expire after firing: re-create the request for 'every n' and '>= n'."""
        if bp.hit_rule is None or bp.hit_rule.mode == "eq":
            return
        kind = bp.requests.pop(event.request_id, None)
        self._by_request.pop(event.request_id, None)
        if kind is None:
            return
        mods: list[Any] = []
        if kind == EventKind.BREAKPOINT:
            mods.append(Mod.LocationOnly(event.location))
        if bp.hit_rule.mode == "every":
            mods.append(Mod.Count(bp.hit_rule.n))
        if bp.thread_id:
            mods.append(Mod.ThreadOnly(bp.thread_id))
        vm = self.session.require_vm()
        reply = await vm.send(EventRequest.Set, kind, self._policy(bp), mods)
        bp.requests[reply.request_id] = kind
        self._by_request[reply.request_id] = bp

    async def _arm_dependants(self, bp: Breakpoint) -> None:
        for other in self._bps.values():
            if other.info.after == bp.info.id and not other.info.armed:
                other.info.armed = True
                self.session.history.add("breakpoint_armed", f"{other.info.id} armed ({bp.info.id} fired)",
                                         Actor.TARGET, breakpoint=other.info.id)
                await self._install(other)

    async def _field_value(self, event: Any) -> Value | None:
        vm = self.session.require_vm()
        try:
            if event.object.value:
                return (await vm.send(ObjectReference.GetValues, event.object.value, [event.field_id])).values[0]
            return (await vm.send(ReferenceType.GetValues, event.type_id, [event.field_id])).values[0]
        except JdwpError:
            return None

    async def _stop_reason(self, bp: Breakpoint, event: Any, extra: dict[str, Value]) -> StopReason:
        session = self.session
        vm = session.require_vm()
        kind = type(event).KIND
        location = await session.code_location(event.location)
        reason = StopReason(StopKind.BREAKPOINT, thread_id=event.thread, thread_name=await vm.thread_name(event.thread),
                            location=location, breakpoint_id=None if bp.internal else bp.info.id,
                            hit_count=bp.info.hits)
        if bp.info.kind == "method_entry":
            reason.kind = StopKind.METHOD_ENTRY
        if kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
            reason.kind = StopKind.METHOD_EXIT
            reason.return_value = await _view(session, event.value)
        elif kind == EventKind.EXCEPTION:
            reason.kind = StopKind.EXCEPTION
            reason.exception = await self._exception_info(event, location)
        elif kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
            reason.kind = StopKind.WATCHPOINT_ACCESS if kind == EventKind.FIELD_ACCESS else StopKind.WATCHPOINT_MODIFY
            reason.field = bp.info.spec
            current = extra.get("$old") if kind == EventKind.FIELD_MODIFICATION else await self._field_value(event)
            name = bp.info.spec.rpartition(".")[2]  # the field's name decides redaction
            if kind == EventKind.FIELD_MODIFICATION:
                reason.old_value = await _view(session, current, name) if current is not None else None
                reason.new_value = await _view(session, event.value_to_be, name)
            elif current is not None:
                reason.old_value = await _view(session, current, name)
            if event.object.value:
                reason.object = await _view(session, event.object)
        return reason

    async def _exception_info(self, event: Any, thrown_at: CodeLocation) -> ExceptionInfo:
        session = self.session
        vm = session.require_vm()
        exc_id = event.exception.value
        ref = await vm.send(ObjectReference.ReferenceType, exc_id)
        info = await vm.type(ref.type_id, ref.ref_type_tag)
        message = None
        try:
            for f in await vm.all_fields(ref.type_id):
                if f.name == "detailMessage":
                    value = (await vm.send(ObjectReference.GetValues, exc_id, [f.id])).values[0]
                    if value.value:
                        message = (await vm.send(StringReference.Value, value.value)).string_value
                    break
        except JdwpError:
            pass
        catch = None if event.catch_location.is_null else await session.code_location(event.catch_location)
        view = await _view(session, event.exception)
        return ExceptionInfo(info.name, message, view.handle if view else None, thrown_at, catch, catch is not None)


async def _view(session: Session, value: Value, name: str | None = None) -> Any:
    if name and session.redact:
        from .inspect.values import REDACTED, is_secret_name

        if is_secret_name(name):
            from .model import ValueView

            return ValueView(type="?", text=REDACTED, kind="redacted")
    try:
        return await session.inspector.view(value)
    except NotImplementedError:
        from .model import ValueView

        return ValueView(type=value.tag.name.lower(), text=str(value.value))


def _check_expressions(condition: str | None, log_message: str | None) -> None:
    """Parse a condition and a log template now, so a typo is an error at set time, not at every hit."""
    from .evaluator.parse import ExpressionSyntaxError, parse_expression  # noqa: PLC0415
    from .evaluator.template import TemplateError, split_template  # noqa: PLC0415

    if isinstance(condition, str) and condition:
        try:
            parse_expression(condition)
        except ExpressionSyntaxError as exc:
            raise EvaluationError(f"condition does not parse: {exc}", "fix the expression") from None
    if isinstance(log_message, str) and log_message:  # (log=True is a plain logpoint: no template)
        try:
            parts = split_template(log_message)
        except TemplateError as exc:
            raise EvaluationError(f"log message does not parse: {exc}",
                                  'put Java expressions in {braces}: "total={order.total()}"') from None
        for part in parts:
            if isinstance(part, tuple):
                try:
                    parse_expression(part[0])
                except ExpressionSyntaxError as exc:
                    raise EvaluationError(f"log message part {{{part[0]}}} does not parse: {exc}",
                                          "fix the expression inside the braces") from None


def _sample(value: Any) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise InvalidArgument(f"sample={value!r}", "use sample=N (N >= 1): the JVM reports 1 hit in N; 1 reports every hit")
    return min(n, MAX_SAMPLING)


def _check_suspend(suspend: str) -> None:
    if suspend not in ("all", "thread"):
        raise InvalidArgument(f"suspend='{suspend}'", "use suspend='all' or suspend='thread'")


def method_line(targets: list[tuple[MethodInfo, int]]) -> int:
    """The source line of bound targets (all on one line)."""
    method, index = targets[0]
    return method.line_at(index)


def _locations_of_line(methods: list[MethodInfo], line: int) -> list[tuple[MethodInfo, int]]:
    """Per method, the first code index of the line (as JDI's locationsOfLine does)."""
    found = []
    for method in methods:
        indices = [index for index, number in method.lines or () if number == line]
        if indices:
            found.append((method, min(indices)))
    return found


_NO_CODE_LINE = re.compile(
    r"^(|//.*|/?\*.*|[{}();\s]*|@\w.*|\}?\s*(else|try|finally|do)\s*\{?|[^;=]*\)\s*(throws\s+[\w.,\s]+)?\{?)$"
)
# The head of a file and declarations: package, imports, type declarations, fields without an initializer.
_DECLARATION_LINE = re.compile(
    r"^(package\s+[\w.]+\s*;|import\s+(static\s+)?[\w.*]+\s*;"
    r"|([\w@<>?,.\[\]\s]*\s)?(class|interface|enum|record|@interface)\s+[\w$]+[^;=]*"
    r"|(?!(return|break|continue|throw|yield)\b)[\w<>?,.\[\]\s]+\s[\w$]+\s*;)$"
)


def _looks_code_free(text: str) -> bool:
    """Does this source line hold no code a line table could name (blank, comment, declaration, brace)?"""
    stripped = text.strip()
    return bool(_NO_CODE_LINE.match(stripped) or _DECLARATION_LINE.match(stripped))


def _next_line_with_code(methods: list[MethodInfo], line: int, source: list[str] | None,
                         top_level: bool = False) -> int | None:
    """For a line without code (blank, comment, declaration, the package and imports before the class):
    the next line with code in the class.

    Lines between must look code-free in the source: a line inside an anonymous, local or inner class has
    code of its own class, which may not be loaded yet, and must stay pending. Without source, a line
    inside a method moves at most two lines, and a line before all code of a top-level class (its file's
    head: package, imports, javadoc) moves to its first code.
    """
    numbers = sorted({n for method in methods for n in method.line_numbers})
    after = [n for n in numbers if n > line]
    if not after:
        return None
    best = after[0]
    if source is None:
        inside_method = any(m.line_numbers and m.line_numbers[0] - 1 <= line <= m.line_numbers[-1] for m in methods)
        if inside_method:
            return best if best - line <= 2 else None
        return best if top_level and line < numbers[0] else None
    between = source[line - 1 : best - 1]
    return best if all(_looks_code_free(text) for text in between) else None


__all__ = ["BreakpointTracker", "Breakpoint", "HitRule"]
