"""Binding breakpoints to code: line breakpoints deferred until their class is prepared (every location of
the line, lambdas and inner classes included), method, exception and field breakpoints, and the JDWP requests
that install them."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from ...jdwp import (
    EventKind,
    EventRequest,
    JdwpError,
    Location,
    Mod,
    SuspendPolicy,
    TypeTag,
)
from ...jdwp.constants import ClassStatus
from ..errors import DebuggerError, InvalidArgument, NotFound
from ..locations import LineSpec, MethodSpec, suggest
from ..model import CodeLocation
from ..vm import TypeInfo
from . import counted_apart, nested, shared_lines
from .codelines import locations_of_line, method_line, next_line_with_code
from .pending import not_loaded_message
from .tracker import Breakpoint, TrackerBase

log = logging.getLogger(__name__)


class Binding(TrackerBase):
    # -- installing ----------------------------------------------------------------------------------

    def _policy(self, bp: Breakpoint) -> int:
        if bp.client_filter:
            return SuspendPolicy.EVENT_THREAD
        return SuspendPolicy.ALL if bp.info.suspend == "all" else SuspendPolicy.EVENT_THREAD

    def _common_mods(self, bp: Breakpoint) -> list[Any]:
        mods: list[Any] = []
        if bp.jvm_counts and bp.hit_rule is not None:  # ("==N" only: see Breakpoint.jvm_counts)
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
        bp.requests[reply.request_id] = kind  # (filed before any of its events is handled: jdwp/connection.py)
        bp.request_mods[reply.request_id] = ordered
        self.by_request[reply.request_id] = bp
        return reply.request_id

    async def _uninstall(self, bp: Breakpoint) -> None:
        await self.in_jvm.release(bp)  # the class's original bytes back, when its probe was compiled in
        conn = self.session.conn
        for request_id, kind in list(bp.requests.items()):
            self.by_request.pop(request_id, None)
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
        if not bp.info.enabled or not bp.info.armed or (bp.info.capture is not None and bp.info.capture.done):
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
        return await vm.acquire([t for t in await vm.all_classes(refresh=True)
                                 if not t.is_array and t.status & ClassStatus.PREPARED and t.simple_name == class_name])

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
            if bp.nested_simple and nested.nested_in(name, spec.class_name):
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
                candidates += await vm.acquire([t for t in all_types if t.signature.startswith(prefix)])
            looked_at: list[TypeInfo] = []
        else:
            source_name = f"{spec.class_name.split('$', 1)[0]}.java" if spec.class_name else spec.file
            await self._watch_prepare(bp, [Mod.SourceNameMatch(source_name)])
            if spec.class_name:
                await self._watch_prepare(bp, [Mod.ClassMatch(f"*.{spec.class_name}")])
                # A class of the default package declared in a file of another name.
                await self._watch_prepare(bp, [Mod.ClassMatch(spec.class_name)])
            all_types = await vm.all_classes(refresh=True)
            if spec.class_name and "$" not in spec.class_name:
                # No top-level class of that name: `Inner:N` means the (one) nested class Inner.
                bp.nested_simple = not nested.has_top_level(
                    spec.class_name, [t.name for t in all_types if not t.is_array], self.session.sources)
                if bp.nested_simple:
                    await self._watch_prepare(bp, [Mod.ClassMatch(f"*${spec.class_name}")])
            chosen = [t for t in all_types if t.tag != TypeTag.ARRAY and t.status & ClassStatus.PREPARED
                      and (self._maybe_same_source(t, spec)
                           or (bp.nested_simple and nested.nested_in(t.name, spec.class_name or "")))]
            listed = {t.signature for t in chosen if t.listed}
            candidates = await vm.acquire(chosen)
            looked_at = [t for t in candidates if t.signature in listed]  # (acquired here to be looked at)
        for info in candidates:
            if info.status and not info.status & ClassStatus.PREPARED:
                continue
            await self.bind_line(bp, info)
        # Classes acquired here only to read their source file and lines, where the line is not: their IDs
        # given back (vm.all_classes says why), unless a breakpoint is bound there meanwhile.
        bound = set().union(*(b.bound_types for b in self.by_id.values()))
        await vm.give_back([t for t in looked_at if t.id not in bound])
        if not bp.info.verified:
            await self._explain_pending(bp)

    def _maybe_same_source(self, info: TypeInfo, spec: LineSpec) -> bool:
        outer = info.name.rsplit(".", 1)[-1].split("$", 1)[0]
        wanted = (spec.class_name or (spec.file or "").removesuffix(".java")).split("$", 1)[0]
        return outer == wanted or bool(spec.file)

    async def _explain_pending(self, bp: Breakpoint) -> None:
        spec: LineSpec = bp.spec
        if bp.info.message or bp.info.capture is not None and bp.info.capture.done:
            return  # (a done capture point is unbound on purpose: "capture 3/3 done" says why)
        name = spec.class_name or spec.file or ""
        vm = self.session.require_vm()
        if spec.file and not spec.class_name:
            bp.info.message = f"pending: no loaded class comes from {spec.file} yet"
            return
        names = [t.name for t in await vm.all_classes(refresh=True) if not t.is_array]
        if bp.nested_simple:
            # A bare name may be a nested class still to load, or a typo of one of the program's classes.
            general = await not_loaded_message(name, names, self.session.sources)
            _, typo, hint = general.partition("; did you mean ")
            bp.info.message = f"pending: no class {name} (nor a nested class {name}) is loaded yet; " + (
                f"did you mean {hint}" if typo else "binds when one loads")
            return
        loaded = [n for n in names if n == name or n.rsplit(".", 1)[-1] == name]
        if loaded:
            bp.info.message = f"pending: line {spec.line} has no code in {loaded[0]} (yet)"
            return
        bp.info.message = await not_loaded_message(name, names, self.session.sources)

    async def bind_line(self, bp: Breakpoint, info: TypeInfo) -> None:
        spec: LineSpec = bp.spec
        vm = self.session.require_vm()
        if bp.info.capture is not None and not bp.info.capture.done and info.id not in bp.bound_types and any(
                self.in_jvm.runs_in_jvm(bp, type_id) for type_id in bp.bound_types):
            # A further class with the line (a one-line anonymous class's): the captures its probe took elsewhere
            # read first, as the round trip would have held them. A point they made done binds here no more.
            await self.flush_logs()
        if info.id in bp.bound_types or (bp.info.capture is not None and bp.info.capture.done):
            return  # (a done capture point is never bound again: its requests or probe are going)
        source_file = await vm.source_file(info.id)
        if not self._line_class_matches(bp, info, source_file):
            return
        methods = await vm.line_tables(info.id)
        line = spec.line
        targets = locations_of_line(methods, line)
        if not targets:
            moved = next_line_with_code(methods, line, self._source_lines(info.name, source_file),
                                         top_level="$" not in info.name)
            if moved is None:
                return
            targets = locations_of_line(methods, moved)
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
        await shared_lines.bound_at(self, bp, info.id, info.name, method_line(targets))
        await counted_apart.bound_at(self, bp)

    async def _bind_in_jvm(self, bp: Breakpoint, info: TypeInfo, line: int, source_file: str | None) -> bool:
        """Compile the condition/log into the class (core/instrument); False (and why) means the round trip."""
        reason = await self.in_jvm.bind(bp, info, line)
        bp.info.mode = "in-JVM" if reason is None else f"round trip ({reason})"
        if reason is not None:
            return False
        for method, index in locations_of_line(await self.session.require_vm().line_tables(info.id), line):
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
        from ..sources import read_lines

        return read_lines(path)

    async def _install_method(self, bp: Breakpoint) -> None:
        spec: MethodSpec = bp.spec
        vm = self.session.require_vm()
        await self._watch_prepare_class(bp, spec.class_name)
        types = await self._loaded_classes_named(spec.class_name)
        for info in types:
            await self.bind_method(bp, info)
        if not bp.info.verified and not bp.info.message:
            names = [t.name for t in await vm.all_classes() if not t.is_array and "$" not in t.name]
            bp.info.message = await not_loaded_message(spec.class_name, names, self.session.sources)

    async def bind_method(self, bp: Breakpoint, info: TypeInfo) -> None:
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
        in_jvm = self.in_jvm.wanted(bp) and await self._bind_method_in_jvm(bp, info, methods)
        for method in methods:
            bp.method_ids.add((info.id, method.id))
            method = await vm.line_table(info.id, method.id)
            bp.info.locations.append(CodeLocation(info.name, method.name, method.line_at(method.start if method.start >= 0 else 0),
                                                  source_file, method_signature=method.signature))
            if bp.info.kind == "method_entry" and not in_jvm:
                if method.is_native or method.is_abstract:
                    continue
                start = method.start if method.start >= 0 else 0
                loc = Location(info.tag, info.id, method.id, start)
                await self._request(bp, EventKind.BREAKPOINT, [Mod.LocationOnly(loc), *self._common_mods(bp)])
        if bp.info.kind == "method_exit" and not in_jvm:
            await self._request(bp, EventKind.METHOD_EXIT_WITH_RETURN_VALUE,
                                [Mod.ClassOnly(info.id), *self._common_mods(bp)])
        bp.info.verified = True
        bp.info.message = None

    async def _bind_method_in_jvm(self, bp: Breakpoint, info: TypeInfo, methods: list[Any]) -> bool:
        """Compile the condition/log into the methods (core/instrument); False (and why) means the round trip."""
        reason = await self.in_jvm.bind_method(bp, info, methods)
        bp.info.mode = "in-JVM" if reason is None else f"round trip ({reason})"
        return reason is None

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

