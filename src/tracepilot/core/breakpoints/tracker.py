"""The breakpoint tracker's state: breakpoints and their one id space (bp-1, bp-2, ...), hit rules, creation,
update and removal, and what happens to them when the VM goes or the session resets."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..capture.points import CapturePoints, check_point
from ..errors import DebuggerError, EvaluationError, InvalidArgument, NotFound
from ..instrument.jvm import InJvm
from ..locations import LineSpec, MethodSpec, parse_location, parse_method, suggest
from ..model import Actor, BreakpointInfo
from ..session_view import SessionView
from ..sources import class_name_for_file
from . import nested, shared_lines
from .codelines import looks_code_free
from .hot_conditions import ConditionRate
from .throttle import DEFAULT_LOGPOINT_RATE, MAX_SAMPLING, TokenBucket


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
    nested_simple: bool = False  # a bare `Inner:N` with no top-level class Inner: it means the nested one
    counted_apart: bool = False  # a hit count on a line in several classes: by round trip (instrument/counted_apart.py)

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
        """A pure "the n-th hit" (no condition, no log) is left to the JVM's Count modifier: it reports exactly
        that hit, whatever the threads do. "Every n-th" and "from the n-th on" are counted here, every hit
        reported: a Count modifier expires once it fires, and the hits other threads make before it is set
        again would be lost (">=5" on 27 hits of three threads stopped 23 times in one run, 5 in the next). A
        logpoint counts its hits itself, as it does in the JVM: a Count modifier reports only the hits it
        fires at, so "==5" would stay at hits=5 for good."""
        return self.hit_rule is not None and self.hit_rule.mode == "eq" and not self.info.condition \
            and not self.info.log

    @property
    def client_filter(self) -> bool:
        """Must the client see every hit (condition, log message, client-side counting, method exit filter)?"""
        return bool(self.info.condition or self.info.log or (self.hit_rule and not self.jvm_counts)
                    or self.info.kind == "method_exit")



class TrackerBase:
    """The breakpoints of one session, by id and by JDWP request id."""

    def __init__(self, session: SessionView) -> None:
        self.session = session
        # by_id and by_request are public: the in-JVM path (instrument/jvm.py) files its probe's requests here
        # and checks a breakpoint is still the live one, as binding and firing do.
        self.by_id: dict[str, Breakpoint] = {}
        self._next_id = 1
        self.by_request: dict[int, Breakpoint] = {}
        self._prepare_owner: dict[int, Breakpoint] = {}
        self.logpoint_rate = DEFAULT_LOGPOINT_RATE  # <= 0: never throttle
        self.in_jvm = InJvm(self)  # conditions and logpoints compiled into the target (core/instrument)
        self.captures = CapturePoints(self)  # breakpoints that capture values instead of stopping (core/capture)
        self.freed_lines: list[Any] = []  # locations temporary breakpoints left at their hits (lines_freed)

    # -- queries -------------------------------------------------------------------------------------

    async def lines_freed(self) -> None:
        """Before the program runs on: the lines temporary breakpoints left at their hits (remove)."""
        freed, self.freed_lines = self.freed_lines, []
        if freed and self.session.conn is not None and not self.session.conn.is_closed:
            await shared_lines.left(self, freed)

    async def flush_logs(self) -> None:
        """Lines in-JVM logpoints logged and the debugger has not read yet: into the history now (before a
        stop is recorded, a detach, an answer with hit counts)."""
        logs, in_probe = self.in_jvm.logs, self.captures.in_probe
        if logs.rings:  # (asked before every stop: no coroutine to run when nothing can be waiting)
            await logs.drain()
        if in_probe.may_hold_records:
            await in_probe.drain_quietly()  # (and the captures taken in the JVM meanwhile)

    def list(self, include_internal: bool = False) -> list[BreakpointInfo]:
        return [bp.info for bp in self.by_id.values() if include_internal or not bp.internal]

    def get(self, bp_id: str) -> Breakpoint:
        bp = self.by_id.get(bp_id) or self.by_id.get(f"bp-{bp_id}")
        if bp is None:
            raise NotFound(f"no breakpoint {bp_id}", suggest(bp_id, list(self.by_id)),
                           "breakpoint_list shows the ids")
        return bp

    # -- creation ------------------------------------------------------------------------------------

    @property
    def next_number(self) -> int:
        return self._next_id

    def continue_ids_from(self, number: int) -> None:
        """Several targets share one id space (core/targets.py): the next breakpoint here is bp-NUMBER."""
        self._next_id = number

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
        if after not in self.by_id:
            raise NotFound(f"breakpoint {after} (for after=) does not exist", suggest(after, list(self.by_id)))
        seen = {bp_id}
        current: str | None = after
        while current:
            if current in seen:
                raise InvalidArgument(f"chaining {bp_id} after {after} would make a cycle",
                                      "a breakpoint cannot (indirectly) wait for itself")
            seen.add(current)
            nxt = self.by_id.get(current)
            current = nxt.info.after if nxt else None

    async def uninstall_done(self, bp: Breakpoint) -> None:
        """A capture point took its captures: its requests (or probe) go; it stays listed, done."""
        await self._uninstall(bp)  # type: ignore[attr-defined]  (binding.py)

    async def _add(self, bp: Breakpoint, actor: Actor) -> BreakpointInfo:
        check_point(bp.info)
        number = None if bp.internal else self._take_id(bp)
        self.by_id[bp.info.id] = bp
        if bp.info.after and not self.by_id[bp.info.after].fired:
            bp.info.armed = False
        if self.session.conn is not None and not self.session.conn.is_closed:
            try:
                await self._install(bp)
            except DebuggerError:
                # A request that cannot be right (no such method or field) leaves nothing behind, not
                # even a used-up id (unless another breakpoint took the next one meanwhile).
                await self._uninstall(bp)
                self.by_id.pop(bp.info.id, None)
                if number is not None and self._next_id == number + 1:
                    self._next_id = number
                raise
        if not bp.internal:
            self.session.history.add("breakpoint_set", f"set {bp.info.describe()}", actor, breakpoint=bp.info.id)
        return bp.info

    async def set_line(self, location: str, *, condition: str | None = None, hit_count: str | int | None = None,
                       log: str | None = None, thread: str | int | None = None, temporary: bool = False,
                       suspend: str = "all", after: str | None = None, enabled: bool = True,
                       actor: Actor = Actor.PERSON, internal: bool = False, capture: Any = None) -> BreakpointInfo:
        spec = parse_location(location)
        if isinstance(spec, MethodSpec):
            return await self.set_method(location, on="entry", condition=condition, log=log, thread=thread,
                                         actor=actor, hit_count=hit_count, temporary=temporary, suspend=suspend,
                                         after=after, enabled=enabled, internal=internal, capture=capture)
        spec = self._normalise_line_spec(spec)
        _check_suspend(suspend)
        bp_id = self._new_id() if not internal else f"run-to-{self._next_id}"
        if internal:
            self._next_id += 0
        self._check_chain(bp_id, after)
        info = BreakpointInfo(id=bp_id, kind="line", spec=str(spec), enabled=enabled, condition=condition or None,
                              log=log or None, temporary=temporary, suspend=suspend, after=after or None,
                              capture=capture)
        bp = Breakpoint(info, spec, HitRule.parse(hit_count), internal=internal)
        info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        self._refuse_line_without_code(spec)
        await self._refuse_ambiguous_nested(spec)
        return await self._add(bp, actor)

    async def _loaded_class_names(self) -> list[str]:
        if self.session.conn is None or self.session.conn.is_closed:
            return []
        try:
            vm = self.session.require_vm()
        except DebuggerError:
            return []
        return [t.name for t in await vm.all_classes(refresh=True) if not t.is_array]

    async def _refuse_ambiguous_nested(self, spec: LineSpec) -> None:
        """A bare `Inner:N` with no top-level class Inner means the program's one nested class Inner; with two
        or more it cannot be told which: say so at once, with the spellings that can."""
        if not spec.is_simple_name or "$" in (spec.class_name or ""):
            return
        name = spec.class_name or ""
        loaded = await self._loaded_class_names()
        sources = self.session.sources
        if nested.has_top_level(name, loaded, sources):
            return
        found = nested.nested_candidates(name, loaded, sources)
        if len(found) > 1:
            spellings = [f"{nested.outer_spelling(c)}:{spec.line}" for c in found]
            raise InvalidArgument(f"{name}:{spec.line} is ambiguous: {name} is a nested class in "
                                  f"{len(found)} classes ({', '.join(found[:6])})",
                                  f"name its outer class: {' or '.join(spellings[:3])}")

    def _refuse_line_without_code(self, spec: LineSpec) -> None:
        """A line past the end of its file, or after the file's last code, can never bind: say so at once,
        with the nearest line that can (only the source can tell; without it the breakpoint waits)."""
        path = self._spec_source(spec)
        if path is None:
            return
        from ..sources import read_lines  # noqa: PLC0415

        lines = read_lines(path)
        last_code = next((n for n in range(len(lines), 0, -1) if not looks_code_free(lines[n - 1])), None)
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
        bp.info.log_values = _log_values(bp.info.log, getattr(self.session, "redact", False))

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
        if spec.class_name and "." in spec.class_name:  # `Bank.Account` is the nested class Bank$Account
            written = spec.class_name
            binary = nested.binary_name(written, lambda n: self.session.sources.find(n) is not None)
            if binary != written:
                return LineSpec(spec.line, class_name=binary)
        return spec

    async def set_method(self, method: str, *, on: str = "entry", condition: str | None = None,
                         log: str | None = None, thread: str | int | None = None, actor: Actor = Actor.PERSON,
                         hit_count: str | int | None = None, temporary: bool = False, suspend: str = "all",
                         after: str | None = None, enabled: bool = True, internal: bool = False,
                         capture: Any = None) -> BreakpointInfo:
        if on not in ("entry", "exit"):
            raise InvalidArgument(f"on='{on}'", "use on='entry' or on='exit'")
        spec = parse_method(method)
        binary = nested.binary_name(spec.class_name, lambda n: self.session.sources.find(n) is not None)
        if binary != spec.class_name:  # `Bank.Account.deposit`: a method of the nested class Bank$Account
            spec = MethodSpec(binary, spec.method, spec.arg_types)
        _check_suspend(suspend)
        bp_id = self._new_id() if not internal else f"run-to-{self._next_id}"  # (run_to to a method's first line)
        self._check_chain(bp_id, after)
        info = BreakpointInfo(id=bp_id, kind=f"method_{on}", spec=str(spec), enabled=enabled,
                              condition=condition or None, log=log or None, temporary=temporary, suspend=suspend,
                              after=after or None, capture=capture)
        bp = Breakpoint(info, spec, HitRule.parse(hit_count), internal=internal)
        info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        return await self._add(bp, actor)

    async def set_exception(self, exception: str = "*", *, caught: bool = True, uncaught: bool = True,
                            condition: str | None = None, log: str | None = None, thread: str | int | None = None,
                            enabled: bool = True, actor: Actor = Actor.PERSON, capture: Any = None) -> BreakpointInfo:
        name = (exception or "*").strip()
        if name not in ("*", "all") and not all(part.replace("$", "").isidentifier() for part in name.split(".")):
            raise InvalidArgument(f"'{exception}' is not an exception class name",
                                  "use a class like java.lang.NullPointerException, or * for all")
        if not caught and not uncaught:
            raise InvalidArgument("neither caught nor uncaught exceptions selected", "set caught and/or uncaught")
        bp_id = self._new_id()
        info = BreakpointInfo(id=bp_id, kind="exception", spec="*" if name in ("*", "all") else name,
                              enabled=enabled, condition=condition or None, log=log or None, caught=caught,
                              uncaught=uncaught, capture=capture)
        bp = Breakpoint(info, info.spec)
        bp.thread_id = await self._resolve_thread_filter(thread)
        info.thread = str(thread) if thread not in (None, "") else None
        self._validate_expressions(bp)
        return await self._add(bp, actor)

    async def set_watchpoint(self, field_name: str, *, access: bool = False, modify: bool = True,
                             instance: str | None = None, condition: str | None = None, log: str | None = None,
                             thread: str | int | None = None, actor: Actor = Actor.PERSON,
                             capture: Any = None) -> BreakpointInfo:
        class_name, _, fname = (field_name or "").strip().rpartition(".")
        if not class_name or not fname:
            raise InvalidArgument(f"'{field_name}' is not Class.field", "use e.g. com.acme.Order.totalCents")
        if not access and not modify:
            raise InvalidArgument("neither access nor modify selected", "set access and/or modify")
        bp_id = self._new_id()
        info = BreakpointInfo(id=bp_id, kind="watchpoint", spec=f"{class_name}.{fname}", condition=condition or None,
                              log=log or None, access=access, modify=modify, instance=instance, capture=capture)
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
        if bp.info.capture is not None:  # what a capture point cannot become (check_point), before any change
            check_point(type(bp.info)(bp.info.id, bp.info.kind, bp.info.spec, log=options.get("log") or None,
                                      temporary=bool(options.get("temporary")), capture=bp.info.capture))
            if options.get("suspend") == "all":
                raise InvalidArgument("a capture point holds only the hitting thread, never all of them",
                                      "leave suspend out: a capture point never stops the program")
        await self.in_jvm.refresh_hits(only=bp.info.id)  # what its probe counted goes with it at a change
        if "after" in options:
            self._check_chain(bp.info.id, options["after"] or None)
            bp.info.after = options["after"] or None
            bp.info.armed = not bp.info.after or self.by_id[bp.info.after].fired
        if "condition" in options:
            bp.info.condition = options["condition"] or None
        if "hit_count" in options:
            # What the JVM logged or captured before the change counted under the old rule: read it first, or
            # it would count again from 0 once read (the round trip counted it as it happened).
            await self.flush_logs()
            bp.hit_rule = HitRule.parse(options["hit_count"])
            bp.info.hit_count = str(bp.hit_rule) if bp.hit_rule else None
            # The new rule counts from now on, and so does the hit label the user sees ("hit 5" is the 5th
            # hit since the update, not the 1,000,005th since the breakpoint was set).
            bp.info.hits = 0
            bp.fired = False
        if "log" in options:
            bp.info.log = options["log"] or None
            bp.info.log_values = _log_values(bp.info.log, getattr(self.session, "redact", False))
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
        self.in_jvm.logs.reset_throttle(bp)  # an in-JVM logpoint's history throttle too
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
        left = list(bp.info.locations)
        if self.session.conn is not None and not self.session.conn.is_closed \
                and not await self.in_jvm.update(bp):  # in-JVM: a new condition may only redefine its probe
            await self._uninstall(bp)
            await self._install(bp)
            if not bp.info.enabled:  # a line it shared may have one breakpoint left (shared_lines.py)
                await shared_lines.left(self, left)
        self.session.history.add("breakpoint_changed", f"changed {bp.info.describe()}", actor, breakpoint=bp.info.id)
        return bp.info

    async def remove(self, bp_id: str, *, actor: Actor = Actor.PERSON, quiet: bool = False) -> list[str]:
        targets = [b for b in self.by_id.values() if not b.internal] if bp_id == "all" else [self.get(bp_id)]
        removed = []
        for bp in targets:
            await self.captures.settle(bp.info.id)  # (what it took in the JVM, not read yet, is kept)
            left = list(bp.info.locations)
            await self._uninstall(bp)
            self.by_id.pop(bp.info.id, None)
            self.captures.forget(bp.info.id)
            removed.append(bp.info.id)
            if actor is Actor.TARGET:  # removed at its own hit: the event's other breakpoints are still to come
                self.freed_lines += left
            elif self.session.conn is not None and not self.session.conn.is_closed:
                await shared_lines.left(self, left)  # a line it shared may have one breakpoint left
            for other in self.by_id.values():  # dependants of a removed breakpoint are armed for good
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
        for bp in self.by_id.values():  # a new run (restart, new attach) counts its own hits from 0
            bp.info.hits = 0
            bp.fired = False
        for bp in self.by_id.values():  # and a chained breakpoint waits for its first one again
            if bp.info.after and bp.info.after in self.by_id:
                bp.info.armed = False
        for bp in list(self.by_id.values()):
            bp.unbind()
            await self._install(bp)

    def forget_vm(self) -> None:
        """The VM is gone: requests died with it; breakpoints stay, unverified, for a reconnect."""
        self.in_jvm.forget_vm()
        self.by_request.clear()
        self._prepare_owner.clear()
        self.freed_lines = []
        for bp in list(self.by_id.values()):
            if bp.internal:
                self.by_id.pop(bp.info.id, None)
                continue
            bp.unbind()

    def clear_all_local(self) -> None:
        self.in_jvm.forget_vm()
        self.captures.clear()  # (detach, reset: a clean slate; a VM death keeps them, as the history)
        self.by_id.clear()
        self.by_request.clear()
        self._prepare_owner.clear()
        self.freed_lines = []
        self._next_id = 1

    async def clear_in_vm(self) -> None:
        self.in_jvm.leaving = True  # detaching: every class back to its own bytes, whatever it restarts
        try:
            for bp in list(self.by_id.values()):
                await self._uninstall(bp)
            await self.in_jvm.settle(force=True)
        finally:
            self.in_jvm.leaving = False

    async def reinstall_class(self, type_id: int) -> None:
        """After a class was redefined: re-bind breakpoints that were bound in it."""
        kept = self.in_jvm.class_redefined(type_id)  # its probes came along: in-JVM breakpoints stay
        for bp in self.by_id.values():
            if type_id in bp.bound_types and not (kept and self.in_jvm.runs_in_jvm(bp, type_id)):
                await self._uninstall(bp)
                await self._install(bp)



def _check_expressions(condition: str | None, log_message: str | None) -> None:
    """Parse a condition and a log template now, so a typo is an error at set time, not at every hit."""
    from ..evaluator.parse import ExpressionSyntaxError, parse_expression  # noqa: PLC0415
    from ..evaluator.template import TemplateError, split_template  # noqa: PLC0415

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


def _log_values(log_message: str | None, redact: bool) -> str | None:
    """How the {parts} of a log template read (inspect/log_text.py), said by the breakpoint; None without parts."""
    from ..evaluator.template import TemplateError, split_template  # noqa: PLC0415
    from ..inspect import log_text  # noqa: PLC0415

    try:
        has_parts = isinstance(log_message, str) and any(isinstance(p, tuple) for p in split_template(log_message))
    except TemplateError:
        return None
    if not has_parts:
        return None
    return log_text.USES_FIELDS if redact else log_text.USES_TO_STRING


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


