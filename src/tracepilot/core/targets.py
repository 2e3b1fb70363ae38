"""Several JVMs in one session (issue 28): the targets, one stop queue and one history over all of them.

A target is today's per-JVM machinery as it was: a `Session` (its own JDWP connection, state machine,
threads, stops and breakpoint bindings) with its `Inspector`. The `Debugger` facade routes every call
through `Targets.route`:

- with one target (the usual case) the call runs on it exactly as before: answers are unchanged;
- with several, a call acts on the target a front end named (`Debugger.on_target`, MCP's `target`, the
  REPL's `target NAME`), else on the target of the current stop, else it says which targets there are;
- the calls that span targets are answered here: waiting for a stop (the next stop of any target, each
  delivered once, named), breakpoints without a target (set in every target, one id, `bound` says where),
  status (one line per target), detach/reset/close of all, the history (one ring, records name their target).

A target that dies disturbs no other: a wait over all targets answers its end once and goes on with the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import DebuggerError, InvalidArgument, NotFound
from .history import EventHistory
from .locations import suggest
from .model import Actor, SessionState, Status, StopReason, WaitResult
from .target_breakpoints import BreakpointsOverTargets
from .target_context import ACTING, CHOSEN
from .target_info import TargetInfo

if TYPE_CHECKING:
    from .inspect.inspector import Inspector
    from .session import Session


BREAKPOINT_MAKERS = ("breakpoint_set", "exception_break", "watchpoint_set", "method_break")
# Calls that need no stopped JVM: with several targets and no current stop they use the selected one.
LENIENT = frozenset({"source", "diagnose", "watches", "marks", "sourcepath", "output", "classes"})
NOT_ROUTED = frozenset({"targets_list", "select_target"})
POLL = 0.1  # seconds: a merged wait looks at every target at least this often


@dataclass(eq=False)
class Target:
    name: str
    session: Session
    inspector: Inspector
    launch_options: dict[str, Any] | None = None
    end_told: bool = False  # its VM's end was answered to a wait over all targets (told once)
    named: bool = False  # the name was given (not derived from the main class or address)

    @property
    def in_use(self) -> bool:
        return self.session.state is not SessionState.DISCONNECTED

    @property
    def can_stop(self) -> bool:
        return self.session.state in (SessionState.RUNNING, SessionState.STOPPED)

    def info(self, current: bool) -> TargetInfo:
        s = self.session
        address = f"{s.target[0]}:{s.target[1]}" if s.target else None
        stop = None
        if s.stop is not None and s.state is SessionState.STOPPED:
            stop = dataclasses.replace(s.stop, target=None).headline()  # (the line names its target)
        launched = s.launched
        return TargetInfo(self.name, s.state, address, current, stop, launched.pid if launched else None,
                          (launched.exit_code if launched else s.exit_code) if s.state is SessionState.EXITED else None)


class TargetHistory:
    """One target's door to the one history: once there are several targets its records name it
    ("[server] thread main started", data target=server), and its detach does not clear the others'."""

    def __init__(self, shared: EventHistory, targets: Targets, target: Target) -> None:
        self._shared, self._targets, self._target = shared, targets, target

    def add(self, kind: str, text: str, actor: Actor = Actor.TARGET, **data: Any) -> Any:
        if self._targets.several:
            name = self._target.name
            data.setdefault("target", name)
            stop = data.get("stop")
            if isinstance(stop, dict) and not stop.get("target"):
                stop["target"] = name
            for word in ("STOPPED", "EXITED"):
                if text.startswith(word + " ") and not text.startswith(word + " ["):
                    text = f"{word} [{name}]{text[len(word):]}"
                    break
            else:
                if not text.startswith(f"[{name}]"):
                    text = f"[{name}] {text}"
        return self._shared.add(kind, text, actor, **data)

    def add_stop(self, stop: Any) -> Any:
        if self._targets.several:  # (the record names its target: made now)
            return self.add("stop", stop.headline(), Actor.TARGET, stop=stop.to_dict())
        return self._shared.add_stop(stop)

    def clear(self) -> None:
        if not self._targets.several:
            self._shared.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._shared, name)


class Targets(BreakpointsOverTargets):
    """The targets of one Debugger, in the order they were added."""

    def __init__(self, make_session: Callable[[], tuple[Session, Inspector]], sourcepath: list[str]) -> None:
        self._make_session = make_session
        session, inspector = make_session()
        self.history: EventHistory = session.history
        self.sourcepath = list(sourcepath)  # given by the user: every new target looks there too
        first = Target("", session, inspector)
        session.history = TargetHistory(self.history, self, first)
        self._all: dict[str, Target] = {"": first}
        self._current = ""  # the target of the current stop (or the one a person selected, or the last added)
        self._pinned = False  # a person selected it (`target NAME`): it stays current until the next stop
        # Breakpoints set without a target: how to set them again in a target added later (id -> calls).
        self._everywhere: dict[str, list[tuple[str, tuple[Any, ...], dict[str, Any]]]] = {}
        self.history.subscribe(self._on_record, follows=False)

    def _on_record(self, record: Any) -> None:
        """A stop while the current target has none makes its target current (as a thread's stop becomes the
        current stop when there is none): a front end that learns of stops from the history follows it."""
        if record.kind != "stop" or not self.several:  # (one target: nothing to choose, at every record)
            return
        name = record.data.get("target")
        chosen = self._all.get(self._current)
        if name in self._all and (chosen is None or chosen.session.state is not SessionState.STOPPED):
            self._current, self._pinned = name, False

    # -- which target ---------------------------------------------------------------------------------

    @property
    def several(self) -> bool:
        return len(self._all) > 1

    def all(self) -> list[Target]:
        return list(self._all.values())

    def names(self) -> list[str]:
        return [t.name for t in self._all.values()]

    def acting(self) -> Target:
        """The target the running call acts on; outside a call, the selected one."""
        return ACTING.get() or self.selected()

    def selected(self) -> Target:
        if len(self._all) == 1:  # (one target: it, whichever way it is chosen; asked on every call)
            for only in self._all.values():
                return only
        return self.current_target() or self._all.get(self._current) or next(iter(self._all.values()))

    def current_target(self) -> Target | None:
        """The target of the current stop: the one chosen last if it is stopped (or a person pinned it), else
        the first one that is stopped."""
        chosen = self._all.get(self._current)
        if chosen is not None and (self._pinned or chosen.session.state is SessionState.STOPPED):
            return chosen
        return next((t for t in self._all.values() if t.session.state is SessionState.STOPPED
                     and t.session.stop is not None), None)

    def named(self, name: str) -> Target:
        target = self._all.get(name)
        if target is None:
            raise NotFound(f"no target named '{name}'", suggest(name, self.names()), self.listing())
        return target

    def listing(self) -> str:
        return "the targets are: " + ", ".join(f"{t.name} ({t.session.state.value})" for t in self._all.values())

    def resolve(self, method: str) -> Target:
        chosen = CHOSEN.get()
        if chosen:
            return self.named(chosen)
        if not self.several:
            return self.selected()
        current = self.current_target()
        if current is not None:
            return current
        if method in LENIENT:
            return self.selected()
        raise InvalidArgument(f"{method}: this session has {len(self._all)} targets and none is stopped, so it is "
                              f"not clear which one to act on; {self.listing()}", "pass target=NAME")

    @contextlib.contextmanager
    def acting_on(self, target: Target) -> Iterator[None]:
        token = ACTING.set(target)
        try:
            yield
        finally:
            ACTING.reset(token)

    def select(self, name: str) -> Target:
        target = self.named(name)
        self._current, self._pinned = target.name, True
        return target

    def infos(self) -> list[TargetInfo]:
        current = self.selected()
        return [t.info(t is current) for t in self._all.values()]

    # -- routing --------------------------------------------------------------------------------------

    async def route(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        name = method.__name__
        if name in NOT_ROUTED or ACTING.get() is not None:  # (a call inside a routed call: restart -> launch)
            return await method(debugger, *args, **kwargs)
        span = getattr(self, f"_span_{name}", None)
        if span is None and name in BREAKPOINT_MAKERS:
            span = self._span_breakpoint
        if span is not None:
            return await span(method, debugger, args, kwargs)
        return await self._on(self.resolve(name), method, debugger, args, kwargs)  # (one target: as before)

    async def _on(self, target: Target, method: Any, debugger: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> Any:
        with self.acting_on(target):
            result = await method(debugger, *args, **kwargs)
        return self.tag(target, result)

    def tag(self, target: Target, result: Any) -> Any:
        """With several targets: the stop in an answer names its target; a stop answered makes its target the
        current one."""
        if not self.several:
            return result
        stop = result if isinstance(result, StopReason) else getattr(result, "stop", None)
        if isinstance(stop, StopReason):
            stop.target = target.name
        if isinstance(result, WaitResult):
            if result.stopped and result.state is SessionState.STOPPED:
                self._current, self._pinned = target.name, False
            if result.state is SessionState.EXITED:
                target.end_told = True
        if isinstance(result, Status):
            result.targets = self.infos()
        return result

    # -- adding and dropping targets -------------------------------------------------------------------

    async def _span_launch(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return await self._add(method, debugger, args, kwargs)

    async def _span_attach(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return await self._add(method, debugger, args, kwargs)

    async def _add(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        given = inspect.signature(method).bind(debugger, *args, **kwargs).arguments
        name = (given.get("name") or "").strip()
        target, fresh = self._slot_for(name or default_name(given), explicit=bool(name))
        try:
            with self.acting_on(target):
                if fresh:
                    await self._replay_breakpoints(target, debugger)
                result = await method(debugger, *args, **kwargs)
        except BaseException:
            if fresh:
                self._drop(target)
            raise
        self._current, self._pinned = target.name, False
        return self.tag(target, result)

    def _slot_for(self, name: str, explicit: bool) -> tuple[Target, bool]:
        """The target a launch or attach goes to: the only one when it holds no live JVM (a launch after the
        program ended starts it again, as before), one of that name that holds none, or a new one."""
        if not self.several:
            only = self.selected()
            if not only.in_use or (only.session.state is SessionState.EXITED and (not explicit or name == only.name)):
                self._rename(only, name, explicit)
                return only, False
        existing = self._all.get(name)
        if existing is not None:
            if explicit and existing.session.state in (SessionState.DISCONNECTED, SessionState.EXITED):
                return existing, False
            if explicit:
                raise InvalidArgument(f"a target named '{name}' is already in this session ({self.listing()})",
                                      "choose another name, or detach that target first")
        unique = name
        number = 2
        while unique in self._all:
            unique = f"{name}-{number}"
            number += 1
        session, inspector = self._make_session()
        session.sources.add(*self.sourcepath)
        target = Target(unique, session, inspector, named=explicit)
        session.history = TargetHistory(self.history, self, target)
        first = next(iter(self._all.values())).session
        session.secrets = first.secrets  # one set of secrets learned, for one history
        session.breakpoints.logpoint_rate = first.breakpoints.logpoint_rate
        session.breakpoints.continue_ids_from(self._next_breakpoint_number())
        self._all[unique] = target
        return target, True

    def _rename(self, target: Target, name: str, explicit: bool) -> None:
        if target.name == name:
            return
        self._all = {(name if t is target else t.name): t for t in self._all.values()}
        if self._current == target.name:
            self._current = name
        target.name, target.named = name, explicit

    def _drop(self, target: Target) -> None:
        self._all.pop(target.name, None)
        if not self._all:  # never none: the session keeps one (empty) target to launch or attach into
            self._all[target.name] = target
        if self._current not in self._all:
            self._current, self._pinned = next(iter(self._all)), False

    async def _span_detach(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not self.several:
            chosen = CHOSEN.get()
            if chosen:
                self.named(chosen)
            result = await method(debugger, *args, **kwargs)
            self._everywhere.clear()  # (detach is a clean slate: its breakpoints are gone)
            return result
        chosen = CHOSEN.get()
        dropped = [self.named(chosen)] if chosen else self.all()
        result = None
        for target in dropped:
            with self.acting_on(target):
                result = await method(debugger, *args, **kwargs)
        if chosen:  # the answer is the session that remains, saying what went
            self._drop(dropped[0])
            assert result is not None
            gone = f"target {chosen} detached" + (f" ({result.note})" if result.note else "")
            remaining = self.selected()
            with self.acting_on(remaining):
                status = self.tag(remaining, await remaining.session.status())
            status.note = f"{gone}; still debugging: {', '.join(self.names())}"
            return status
        for target in dropped[1:]:
            self._drop(target)
        self._everywhere.clear()
        return result

    async def _span_close(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        for target in self.all():
            with self.acting_on(target), contextlib.suppress(Exception):
                await method(debugger, *args, **kwargs)

    async def _span_reset(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() or not self.several:
            if not CHOSEN.get():
                self._everywhere.clear()  # (reset clears every breakpoint)
            return await self._default(method, debugger, args, kwargs)
        result = None
        for target in self.all():
            with self.acting_on(target):
                result = await method(debugger, *args, **kwargs)
        self._everywhere.clear()
        self.history.clear()
        self.history.add("reset", "reset: breakpoints, watchers and history cleared in every target",
                         debugger._actor(kwargs.get("actor")))
        return self.tag(self.selected(), result)

    async def _span_add_sourcepath(self, method: Any, debugger: Any, args: tuple[Any, ...],
                                   kwargs: dict[str, Any]) -> Any:
        paths = inspect.signature(method).bind(debugger, *args, **kwargs).arguments.get("paths") or ()
        self.sourcepath.extend(str(p) for p in paths)
        result = None
        for target in self.all():
            with self.acting_on(target):
                result = await method(debugger, *args, **kwargs)
        return result

    async def _default(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            return await method(debugger, *args, **kwargs)
        return await self._on(self.resolve(method.__name__), method, debugger, args, kwargs)

    # -- status ---------------------------------------------------------------------------------------

    async def _span_status(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            return await method(debugger, *args, **kwargs)
        target = self.named(CHOSEN.get() or "") if CHOSEN.get() else self.selected()
        return await self._on(target, method, debugger, args, kwargs)

    # -- one stop queue -------------------------------------------------------------------------------

    async def _span_wait_for_stop(self, method: Any, debugger: Any, args: tuple[Any, ...],
                                  kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is not None or not self.several:
            return await self._default(method, debugger, args, kwargs)
        timeout = inspect.signature(method).bind(debugger, *args, **kwargs).arguments.get("timeout", 5.0)
        return await self.wait_any(timeout, new_only=False)

    async def _span_resume(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            return await method(debugger, *args, **kwargs)
        given = inspect.signature(method).bind(debugger, *args, **kwargs)
        given.apply_defaults()
        timeout = given.arguments["timeout"]
        target = self.named(CHOSEN.get() or "") if CHOSEN.get() else self.current_target()
        if target is None:  # nothing is stopped: nothing to resume; the answer is the next stop of any target
            if given.arguments.get("thread") not in (None, ""):
                self.resolve("resume")  # (raises: which target's thread?)
            return await self.wait_any(timeout, new_only=True)
        given.arguments["timeout"] = 0.0  # resume only this target; the wait below is over all of them
        with self.acting_on(target):
            result = await method(*given.args, **given.kwargs)
        if result.stopped or timeout <= 0 or not self.several:
            return self.tag(target, result)
        return await self.wait_any(timeout, new_only=True)

    async def wait_any(self, timeout: float, *, new_only: bool) -> WaitResult:
        """The next stop of any target not delivered yet (each delivered once, to this call), or a target's
        end (told once), or after `timeout` the current stop (unless `new_only`) or "still running"."""
        started = time.monotonic()
        deadline = started + max(timeout, 0.0)
        wake = asyncio.Event()
        unsubscribe = self.history.subscribe(lambda record: wake.set(), follows=False)
        try:
            while True:
                for target in self._rotation():
                    session = target.session
                    if session.state is not SessionState.EXITED:
                        target.end_told = False
                    if session.threads.undelivered():
                        with self.acting_on(target):
                            result = await session.wait_for_stop(0, new_only=True)
                        if result.stopped:
                            return self._merged(target, result)
                    if session.state is SessionState.EXITED and not target.end_told:
                        with self.acting_on(target):
                            result = await session.wait_for_stop(0)
                        return self._merged(target, result)
                if not any(t.can_stop for t in self._all.values()):
                    break  # nothing left that could stop
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), min(remaining, POLL))
        finally:
            unsubscribe()
        current = self.current_target()
        waited = int((time.monotonic() - started) * 1000)
        if current is not None and not new_only:
            with self.acting_on(current):
                result = await current.session.wait_for_stop(0)
            return self._merged(current, result)
        selected = self.selected()
        if not any(t.can_stop for t in self._all.values()):
            return self.tag(selected, WaitResult(False, selected.session.state, selected.session.stop, waited,
                                                 "no target is running: " + self.listing()))
        message = f"still running after {timeout:g}s" if timeout > 0 else "running"
        if timeout > 0 and current is not None:
            message += f" (no new stop; still stopped: {current.session.stop.headline() if current.session.stop else ''})"
        return WaitResult(False, SessionState.RUNNING, None, waited, message, pending=self._undelivered())

    def _rotation(self) -> list[Target]:
        """Targets in the order a merged wait looks at them: the ones after the current target first, so
        that one busy target does not starve the others' stops."""
        order = list(self._all.values())
        if self._current in self._all:
            at = order.index(self._all[self._current])
            order = order[at + 1:] + order[:at + 1]
        return order

    def _undelivered(self) -> int:
        return sum(len(t.session.threads.undelivered()) for t in self._all.values())

    def _merged(self, target: Target, result: WaitResult) -> WaitResult:
        result = self.tag(target, result)
        result.pending = self._undelivered()
        return result

    # -- the history ----------------------------------------------------------------------------------

    async def _span_events(self, method: Any, debugger: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if CHOSEN.get() is None and not self.several:
            return await method(debugger, *args, **kwargs)
        for target in self.all():
            with contextlib.suppress(DebuggerError):
                await target.session.breakpoints.flush_logs()
        with self.acting_on(self.selected()):
            records = await method(debugger, *args, **kwargs)
        chosen = CHOSEN.get()
        if chosen:
            self.named(chosen)
            records = [r for r in records if r.data.get("target") in (None, chosen)]
        return records


def default_name(given: dict[str, Any]) -> str:
    """A target's name when none is given: the main class's simple name, the jar's or source file's stem,
    or host:port for an attach."""
    main = given.get("main")
    if main:
        return str(main).rsplit(".", 1)[-1] or str(main)
    for key in ("jar", "source"):
        if given.get(key):
            return Path(str(given[key])).stem
    address = given.get("address")
    if address is not None:
        text = str(address).strip()
        return f"localhost:{text}" if text.isdigit() else text
    return "main"
