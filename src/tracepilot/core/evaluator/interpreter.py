"""The Java expression interpreter over JDWP: one :class:`Evaluator` per session.

It walks the AST of :mod:`.parse` in a frame of a suspended thread. Primitive arithmetic is
:mod:`.semantics`; method choice is :mod:`.overloads`; everything that lives in the target (locals,
fields, arrays, strings, calls, new objects) is a JDWP command.

Costs, because breakpoint conditions run on every hit: the AST and the set of local slots an
expression reads are cached per (text, code location), so a condition on locals costs one
``ThreadReference.Frames`` and one ``StackFrame.GetValues`` (``this`` is fetched alongside when
needed). Strings the expression builds stay Python text until the target needs the object.

Invocation safety: every invoke runs single-threaded inside ``session.invoking(thread)`` (which
suppresses breakpoints hit meanwhile), under a timeout; frame ids are re-fetched after it (an invoke
resumes the thread, which invalidates them); an exception thrown by the target becomes
``EvaluationError("threw java.lang.X: message")``. ``allow_side_effects=False`` (and read-only
sessions) refuse invocation, ``new`` and assignment.

Static types follow Java where the debugger knows them (locals, fields, return types, casts); a
member missing from the static type is looked up in the runtime type too, because erased generics
(``list.get(0).length()``) are what people type in a debugger.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import inspect
import re
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...jdwp import (
    ArrayReference,
    ArrayType,
    ClassObjectReference,
    ClassType,
    InterfaceType,
    InvokeOptions,
    JdwpError,
    ObjectReference,
    ReferenceType,
    StackFrame,
    StringReference,
    Tag,
    ThreadReference,
    TypeTag,
    Value,
    VirtualMachine,
)
from ...jdwp.errors import ErrorCode
from ..errors import EvaluationError
from . import ast as A
from . import redaction
from . import semantics as S
from . import types as jt
from .overloads import Candidate, NoApplicableMethodError, OverloadError, applicable_phase, resolve
from .parse import ExpressionSyntaxError, parse_expression
from .template import TemplateError, split_template
from .values import (
    NULL,
    STRING,
    TAG_OF_PRIM,
    TV,
    from_jdwp,
    from_jvalue,
    prim,
    sig_byte,
    string,
    tag_for_type,
)

if TYPE_CHECKING:
    from ..vm import FieldInfo, MethodInfo, TypeInfo, VariableSlot, Vm

__all__ = ["Evaluator"]

_OBJECT = "java.lang.Object"
_STRING_SUPERS = frozenset({STRING, _OBJECT, "java.lang.CharSequence", "java.lang.Comparable",
                            "java.io.Serializable", "java.lang.constant.Constable",
                            "java.lang.constant.ConstantDesc"})
_IMPORT_RE = re.compile(r"^\s*import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;", re.MULTILINE)
_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


class _Fail(Exception):
    """An evaluation failure at a column of the text being evaluated (converted to EvaluationError)."""

    def __init__(self, message: str, column: int | None = 0, exception: Value | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.exception = exception
        self.text: str | None = None


def _error(fail: _Fail, text: str) -> EvaluationError:
    message = fail.message
    if fail.column is not None and text and fail.exception is None:
        col = max(0, min(fail.column, len(text)))
        message = f"{message} at column {col}\n{text}\n{' ' * col}^"
    err = EvaluationError(message)
    err.column = fail.column  # type: ignore[attr-defined]
    err.exception = fail.exception  # type: ignore[attr-defined]
    return err


def _syntax(e: ExpressionSyntaxError) -> EvaluationError:
    err = EvaluationError(str(e))
    err.column = e.column  # type: ignore[attr-defined]
    err.exception = None  # type: ignore[attr-defined]
    return err


@dataclass(slots=True)
class _Plan:
    """What an expression needs at one code location: cached across condition hits."""

    slots: list[VariableSlot]
    need_this: bool


@dataclass(slots=True)
class _Place:
    """Something that can be read and (maybe) written: a local, a field, a static, an element."""

    kind: str  # "local", "field", "static", "element", "binding", "value"
    type: str | None  # declared type (Java name)
    name: str = ""
    slot: VariableSlot | None = None
    obj: TV | None = None
    field: FieldInfo | None = None
    index: int = 0
    value: TV | None = None


@dataclass
class _Imports:
    package: str = ""
    single: dict[str, str] = field(default_factory=dict)  # simple name -> qualified
    on_demand: list[str] = field(default_factory=list)  # packages / types ending in .*


class Evaluator:
    """The expression evaluator of one session (see the module docstring)."""

    invoke_timeout = 10.0

    def __init__(self, session: Any) -> None:
        self.session = session
        self._plans: dict[tuple, _Plan] = {}
        self._live: dict[tuple[int, int, int], dict[str, VariableSlot]] = {}
        self._type_names: dict[tuple[int, str], TypeInfo] = {}
        self._subtypes: dict[tuple[str, str], bool] = {}
        self._imports: dict[int, _Imports] = {}
        self._field_lookup: dict[tuple[int, str, bool], FieldInfo | None] = {}
        self._supertypes: dict[int, list[int]] = {}
        self._last_frame: dict[int, int] = {}  # thread -> top frame id at the last evaluation
        self._spec: dict[tuple[int, str], tuple] = {}

    # -- public API ----------------------------------------------------------------------------------

    @property
    def vm(self) -> Vm:
        return self.session.vm

    def reset(self) -> None:
        """Forget cached class and method facts (after a class redefinition or a reconnect)."""
        self._plans.clear()
        self._live.clear()
        self._type_names.clear()
        self._subtypes.clear()
        self._imports.clear()
        self._field_lookup.clear()
        self._supertypes.clear()
        self._spec.clear()
        self._last_frame.clear()

    def validate(self, text: str) -> None:
        """Raise EvaluationError if ``text`` is not a well-formed expression (no VM needed)."""
        try:
            parse_expression(text)
        except ExpressionSyntaxError as e:
            raise _syntax(e) from None

    def validate_template(self, template: str) -> None:
        """Raise EvaluationError if a logpoint template or one of its expressions is malformed."""
        for part in self._template_parts(template):
            if isinstance(part, tuple):
                self._parse_part(part[0], part[1], template)

    async def evaluate(self, text: str, thread_id: int, frame_index: int = 0,
                       extra: dict[str, Value] | None = None, allow_side_effects: bool = True, *,
                       frame: int | None = None) -> Value:
        """Evaluate ``text`` in a frame of a suspended thread; the result as a JDWP value (a String
        the expression built is created in the target; void methods give a VOID value).
        ``frame`` is an alias of ``frame_index``."""
        if frame is not None:
            frame_index = frame
        node = self._parse(text)
        ctx = await self._context(thread_id, frame_index, extra, allow_side_effects, text, node)
        try:
            result = await ctx.ev(node)
            return await ctx.to_jdwp(result)
        except _Fail as f:
            raise _error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{_describe_jdwp(e, thread_id, frame_index)} (evaluating {text!r})") from None
        finally:
            ctx.release()

    async def assign(self, target_text: str, value_text: str, thread_id: int, frame_index: int = 0) -> Value:
        """``target = value`` (set_value): a local, field, static or array element; returns the stored value."""
        target = self._parse(target_text)
        if not isinstance(target, A.Name | A.AmbiguousName | A.FieldAccess | A.ArrayAccess):
            raise _error(_Fail("cannot assign to this: expected a variable, field or array element", 0),
                         target_text)
        value = self._parse(value_text)
        ctx = await self._context(thread_id, frame_index, None, True, target_text, target, value,
                                  key_text=f"{target_text}\x00{value_text}")
        text = target_text
        try:
            ctx.require_side_effects("assignment", 0)
            place = await ctx.place(target)
            text = value_text
            new = await ctx.ev(value)
            text = target_text
            stored = await ctx.store(place, new, target.column)
            return await ctx.to_jdwp(stored)
        except _Fail as f:
            raise _error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{_describe_jdwp(e, thread_id, frame_index)} (assigning {target_text!r})") from None
        finally:
            ctx.release()

    async def condition(self, text: str, thread_id: int, extra: dict[str, Value] | None = None) -> bool:
        """A breakpoint condition in the top frame: True/False, or EvaluationError (never a silent skip)."""
        node = self._parse(text)
        allow = not getattr(self.session, "read_only", False)
        ctx = await self._context(thread_id, 0, extra, allow, text, node)
        try:
            result = await ctx.ev(node)
            return await ctx.truth(result, node.column, "a condition")
        except _Fail as f:
            raise _error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{_describe_jdwp(e, thread_id, 0)} (condition {text!r})") from None
        finally:
            ctx.release()

    async def format_template(self, template: str, thread_id: int, extra: dict[str, Value] | None = None) -> str:
        """Expand a logpoint template: ``{expr}`` parts evaluated in the top frame and rendered as
        ``String.valueOf`` would (objects via their toString() in the target). A part that fails
        renders as ``<error: ...>`` so the log line still appears."""
        parts = self._template_parts(template)
        nodes = [self._parse_part(p[0], p[1], template) if isinstance(p, tuple) else None for p in parts]
        allow = not getattr(self.session, "read_only", False)
        ctx = await self._context(thread_id, 0, extra, allow, template, *[n for n in nodes if n is not None],
                                  key_text="\x01" + template)
        out: list[str] = []
        try:
            for part, node in zip(parts, nodes, strict=True):
                if node is None:
                    out.append(part)  # type: ignore[arg-type]
                    continue
                try:
                    value = await ctx.ev(node)
                    out.append(await ctx.to_text(value, node.column, for_display=True))
                except _Fail as f:
                    out.append(f"<error: {f.message}>")
                except JdwpError as e:
                    out.append(f"<error: {_describe_jdwp(e, thread_id, 0)}>")
        finally:
            ctx.release()
        return "".join(out)

    # -- parsing -------------------------------------------------------------------------------------

    @staticmethod
    def _parse(text: str) -> A.Expr:
        try:
            return parse_expression(text)
        except ExpressionSyntaxError as e:
            raise _syntax(e) from None

    @staticmethod
    def _template_parts(template: str) -> tuple:
        try:
            return split_template(template)
        except TemplateError as e:
            raise EvaluationError(f"{e}\n{template}\n{' ' * e.column}^") from None

    @staticmethod
    def _parse_part(text: str, offset: int, template: str) -> A.Expr:
        try:
            return parse_expression(text)
        except ExpressionSyntaxError as e:
            col = offset + e.column
            raise EvaluationError(f"{e.message} (in the template at column {col})\n{template}\n{' ' * col}^") from None

    # -- contexts ------------------------------------------------------------------------------------

    async def _context(self, thread_id: int, frame_index: int, extra: dict[str, Value] | None,
                       allow_side_effects: bool, text: str, *nodes: A.Expr, key_text: str | None = None) -> _Ctx:
        why = getattr(self.session, "side_effects_refused", None)
        if why is None and getattr(self.session, "read_only", False):
            why = "read-only session"
        ctx = _Ctx(self, thread_id, frame_index, extra or {}, allow_side_effects and why is None,
                   why or "read-only session")
        plan_text = key_text or text
        try:
            if frame_index == 0 and await self._speculate(ctx, plan_text):
                return ctx
            if ctx.location is None:
                await ctx.load_frame()
            method = await self.vm.variables(ctx.location.class_id, ctx.location.method_id)
            ctx.method = method
            key = (ctx.location.class_id, ctx.location.method_id, ctx.location.index)
            live = self._live.get(key)
            if live is None:
                live = {}
                for s in method.variables or ():
                    if s.live_at(ctx.location.index) and (s.name not in live or s.start >= live[s.name].start):
                        live[s.name] = s
                self._live[key] = live
            ctx.live = live
            plan_key = (plan_text, *key)
            plan = self._plans.get(plan_key)
            if plan is None:
                names: set[str] = set()
                need_this = [False]
                for n in nodes:
                    _collect(n, names, need_this)
                slots = [live[n] for n in sorted(names) if n in live]
                need_this_flag = need_this[0] or any(n not in live and not n.startswith("$") for n in names)
                plan = _Plan(slots, need_this_flag and not method.is_static)
                if len(self._plans) > 4096:
                    self._plans.clear()
                self._plans[plan_key] = plan
            await ctx.prefetch(plan)
            if frame_index == 0:
                self._remember_frame(ctx, plan_text, plan)
        except JdwpError as e:
            raise EvaluationError(_describe_jdwp(e, thread_id, frame_index)) from None
        except _Fail as f:
            raise _error(f, text) from None
        return ctx

    # A breakpoint condition is evaluated at the same place hit after hit, and a JVM numbers frame ids
    # so that the top frame's id moves by the same step between such hits. So the values are asked for
    # with the predicted frame id in the same burst as ThreadReference.Frames: one round trip instead of
    # two. The answer is used only when Frames confirms the id and the location; else the normal path.
    def _remember_frame(self, ctx: _Ctx, plan_text: str, plan: _Plan) -> None:
        thread = ctx.thread
        last = self._last_frame.get(thread)
        fid = ctx.initial_frame_id
        delta = fid - last if last is not None and fid > last else 0
        self._last_frame[thread] = fid
        if len(self._spec) > 1024:
            self._spec.clear()
        self._spec[(thread, plan_text)] = (fid, delta, ctx.location, plan, ctx.method, ctx.live)

    async def _speculate(self, ctx: _Ctx, plan_text: str) -> bool:
        spec = self._spec.get((ctx.thread, plan_text))
        if spec is None or not spec[1]:
            return False
        last_fid, delta, location, plan, method, live = spec
        predicted = last_fid + delta
        conn = self.vm.conn
        frames = conn.send_nowait(ThreadReference.Frames, ctx.thread, 0, 1)
        values = conn.send_nowait(StackFrame.GetValues, ctx.thread, predicted,
                                  [(sl.slot, sig_byte(sl.type_name)) for sl in plan.slots]) if plan.slots else None
        this = conn.send_nowait(StackFrame.ThisObject, ctx.thread, predicted) if plan.need_this else None
        conn.flush()  # the burst leaves now; the target is suspended waiting for our answer
        # The replies arrive together: awaiting them in turn costs no extra loop steps (unlike gather).
        results: list[Any] = []
        for pending in (frames, values, this):
            if pending is not None:
                try:
                    results.append(await pending)
                except Exception as exc:  # noqa: BLE001  (kept like gather's return_exceptions)
                    results.append(exc)
        reply = results[0]
        if isinstance(reply, BaseException):
            raise reply
        if not reply.frames:
            raise _Fail(f"thread {ctx.thread} has no frames", None)
        frame = reply.frames[0]
        ctx.frame_id, ctx.location, ctx.initial_frame_id = frame.frame_id, frame.location, frame.frame_id
        hit = frame.frame_id == predicted and frame.location == location
        if hit and not any(isinstance(r, BaseException) for r in results[1:]):
            ctx.method, ctx.live = method, live
            rest = list(results[1:])
            if values is not None:
                for sl, v in zip(plan.slots, rest.pop(0).values, strict=True):
                    ctx.locals[sl.name] = from_jdwp(v, sl.type_name)
            if this is not None:
                ctx._set_this(rest.pop(0).object_this)
            self._remember_frame(ctx, plan_text, plan)
            return True
        return False

    async def _invoking(self, thread_id: int, what: str) -> contextlib.AbstractAsyncContextManager:
        """The session's invocation bookkeeping (session.invoking): yields the call that sends the invoke."""
        return self.session.invoking(thread_id, what)

    # -- type facts (cached across evaluations) ------------------------------------------------------

    async def supertypes(self, type_id: int) -> list[int]:
        """The class, its superclasses, then every superinterface (breadth first, no repeats)."""
        found = self._supertypes.get(type_id)
        if found is not None:
            return found
        vm = self.vm
        info = await vm.type(type_id)
        chain = [type_id] if info.is_interface else await vm.hierarchy(type_id)
        result = list(chain)
        queue = list(chain)
        while queue:
            t = queue.pop(0)
            for i in await vm.interfaces(t):
                if i not in result:
                    result.append(i)
                    queue.append(i)
        self._supertypes[type_id] = result
        return result

    async def find_field(self, type_id: int, name: str, static_only: bool = False) -> FieldInfo | None:
        key = (type_id, name, static_only)
        if key in self._field_lookup:
            return self._field_lookup[key]
        found = None
        for t in await self.supertypes(type_id):
            for f in await self.vm.fields(t):
                if f.name == name and (f.is_static or not static_only):
                    found = f
                    break
            if found:
                break
        self._field_lookup[key] = found
        return found

    async def type_by_name(self, name: str) -> TypeInfo | None:
        """A loaded class by binary Java name ("java.util.Map$Entry", "int[]")."""
        key = (0, name)
        if key in self._type_names:
            return self._type_names[key]
        found = await self.vm.classes_by_name(name)
        if not found:
            return None
        self._type_names[key] = found[0]
        return found[0]

    async def is_subtype(self, sub: str, sup: str) -> bool:
        """Reference subtyping by Java names (sub must be loaded to be a subtype of anything else)."""
        if sub == sup or sup == _OBJECT:
            return True
        key = (sub, sup)
        if key in self._subtypes:
            return self._subtypes[key]
        if sub.endswith("[]") or sup.endswith("[]"):
            if not sub.endswith("[]"):
                result = False
            elif not sup.endswith("[]"):
                result = sup in ("java.lang.Cloneable", "java.io.Serializable")
            else:
                se, pe = sub[:-2], sup[:-2]
                result = se == pe or (jt.is_reference(se) and jt.is_reference(pe) and await self.is_subtype(se, pe))
        else:
            info = await self.type_by_name(sub)
            result = bool(info) and await self.vm.is_assignable(info.id, sup)
        self._subtypes[key] = result
        return result

    async def imports(self, type_id: int) -> _Imports:
        found = self._imports.get(type_id)
        if found is not None:
            return found
        result = _Imports()
        info = await self.vm.type(type_id)
        outer = info.name.split("$", 1)[0]
        result.package = outer.rpartition(".")[0]
        sources = getattr(self.session, "sources", None)
        if sources is not None:
            try:
                source_file = await self.vm.source_file(type_id)
                path = sources.find(info.name, source_file)
                text = path.read_text(encoding="utf-8", errors="replace") if path else ""
            except Exception:  # noqa: BLE001 - no source is a normal case, not an error
                text = ""
            for static, name in _IMPORT_RE.findall(text):
                if static:
                    continue
                if name.endswith(".*"):
                    result.on_demand.append(name[:-2])
                else:
                    result.single[name.rpartition(".")[2]] = name
        self._imports[type_id] = result
        return result


def _collect(node: Any, names: set[str], need_this: list[bool]) -> None:
    """Simple names an expression reads, and whether it may need ``this``."""
    match node:
        case A.Name(name=n):
            names.add(n)
        case A.AmbiguousName(parts=p):
            names.add(p[0])
        case A.This() | A.Super():
            need_this[0] = True
        case A.MethodCall(target=None):
            need_this[0] = True
        case A.New():
            need_this[0] = True  # an inner class needs its outer instance
    if isinstance(node, A.Expr | A.ArrayInitializer):
        for f in getattr(node, "__slots__", ()):
            child = getattr(node, f, None)
            if isinstance(child, A.Expr):
                _collect(child, names, need_this)
            elif isinstance(child, tuple):
                for c in child:
                    if isinstance(c, A.Expr):
                        _collect(c, names, need_this)


def _describe_jdwp(e: JdwpError, thread_id: int, frame_index: int) -> str:
    code = e.code
    if code == ErrorCode.THREAD_NOT_SUSPENDED:
        return f"thread {thread_id} is running: evaluation needs a suspended thread (pause it or wait for a stop)"
    if code == ErrorCode.INVALID_THREAD:
        return f"thread {thread_id} does not exist (any more)"
    if code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
        return f"there is no frame {frame_index} on thread {thread_id}"
    return f"the VM refused: {e}"


def _exception_name(info: TypeInfo) -> str:
    return info.name


class _Ctx:
    """One evaluation: a thread, a frame, the values read so far, objects created meanwhile."""

    def __init__(self, ev: Evaluator, thread: int, frame_index: int, extra: dict[str, Value],
                 allow_side_effects: bool, why: str = "read-only session") -> None:
        self.E = ev
        self.vm = ev.vm
        self.conn = ev.vm.conn
        self.thread = thread
        self.frame_index = frame_index
        self.extra = extra
        self.allow = allow_side_effects
        self.why = why  # said when a side effect is refused
        self.frame_id: int | None = None
        self.initial_frame_id: int | None = None
        self.location: Any = None
        self.method: MethodInfo = None  # type: ignore[assignment]
        self.live: dict[str, VariableSlot] = {}
        self.locals: dict[str, TV] = {}
        self.this: TV | None = None
        self.this_loaded = False
        self.bindings: dict[str, TV] = {}
        self.created: list[int] = []
        self.runtime_types: dict[int, int] = {}
        self.strings: dict[int, str] = {}

    # -- frame ---------------------------------------------------------------------------------------

    async def load_frame(self) -> None:
        reply = await self.conn.send(ThreadReference.Frames, self.thread, self.frame_index, 1)
        if not reply.frames:
            raise _Fail(f"there is no frame {self.frame_index} on thread {self.thread}", None)
        frame = reply.frames[0]
        if self.location is not None and frame.location != self.location:
            raise _Fail("the frame changed during the evaluation", None)
        self.frame_id, self.location = frame.frame_id, frame.location
        if self.initial_frame_id is None:
            self.initial_frame_id = frame.frame_id

    async def frame(self) -> int:
        if self.frame_id is None:  # stale after an invocation: re-fetch
            await self.load_frame()
        return self.frame_id  # type: ignore[return-value]

    async def prefetch(self, plan: _Plan) -> None:
        jobs: list[Awaitable[Any]] = []
        if plan.slots:
            jobs.append(self.conn.send(StackFrame.GetValues, self.thread, self.frame_id,
                                       [(s.slot, sig_byte(s.type_name)) for s in plan.slots]))
        if plan.need_this:
            jobs.append(self.conn.send(StackFrame.ThisObject, self.thread, self.frame_id))
        if not jobs:
            return
        results = await asyncio.gather(*jobs, return_exceptions=True)
        if plan.slots:
            got = results.pop(0)
            if not isinstance(got, BaseException):
                for s, v in zip(plan.slots, got.values, strict=True):
                    self.locals[s.name] = from_jdwp(v, s.type_name)
        if plan.need_this:
            got = results.pop(0)
            if not isinstance(got, BaseException):
                self._set_this(got.object_this)

    def _set_this(self, value: Value) -> None:
        self.this_loaded = True
        if value.value:
            info = self.vm.types.get(self.location.class_id)
            self.this = TV(info.name if info else None, value.value, value.tag, type_id=self.location.class_id)

    async def this_obj(self) -> TV | None:
        if not self.this_loaded:
            if self.method.is_static:
                self.this_loaded = True
            else:
                reply = await self.conn.send(StackFrame.ThisObject, self.thread, await self.frame())
                await self.vm.type(self.location.class_id)
                self._set_this(reply.object_this)
        return self.this

    def release(self) -> None:
        """Let the target collect the objects this evaluation created (sent, not awaited)."""
        for oid in self.created:
            self._fire(ObjectReference.EnableCollection, oid)
        self.created.clear()

    def _fire(self, command: Any, *args: Any) -> None:
        try:
            fut = self.conn.send_nowait(command, *args)
        except Exception:  # noqa: BLE001 - the VM is gone; nothing to release
            return
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())

    def _keep(self, oid: int) -> None:
        """Keep an object this evaluation created from being collected before it is used."""
        if oid:
            self._fire(ObjectReference.DisableCollection, oid)
            self.created.append(oid)

    def require_side_effects(self, what: str, column: int | None) -> None:
        if not self.allow:
            raise _Fail(f"{what} is not allowed here: side effects are disabled ({self.why})", column)

    # -- conversions ---------------------------------------------------------------------------------

    async def to_jdwp(self, tv: TV) -> Value:
        if tv.is_ref and tv.value is None:
            await self.materialize(tv)
        return tv.to_jdwp()

    async def materialize(self, tv: TV) -> TV:
        """Create a String computed here in the target (CreateString)."""
        if tv.is_ref and tv.value is None:
            reply = await self.conn.send(VirtualMachine.CreateString, tv.text)
            tv.value = reply.string_object
            self.strings[tv.value] = tv.text  # type: ignore[assignment]
            self._keep(tv.value)
        return tv

    async def runtime_type(self, tv: TV) -> TypeInfo:
        if tv.value is None:
            return await self._need_type(STRING, 0)
        tid = self.runtime_types.get(tv.value)
        if tid is None:
            reply = await self.conn.send(ObjectReference.ReferenceType, tv.value)
            tid = reply.type_id
            self.runtime_types[tv.value] = tid
            return await self.vm.type(tid, reply.ref_type_tag)
        return await self.vm.type(tid)

    async def type_name(self, tv: TV) -> str:
        """The static type of a value, or its runtime type when the static one is unknown."""
        if tv.type is not None:
            return tv.type
        if tv.is_null:
            return "null"
        return (await self.runtime_type(tv)).name

    async def string_text(self, tv: TV) -> str:
        if tv.text is not None:
            return tv.text
        text = self.strings.get(tv.value)
        if text is None:
            text = (await self.conn.send(StringReference.Value, tv.value)).string_value
            self.strings[tv.value] = text
        return text

    async def is_string(self, tv: TV) -> bool:
        return tv.is_ref and not tv.is_null and (tv.tag == Tag.STRING or tv.text is not None or tv.type == STRING)

    async def unbox(self, tv: TV, column: int | None, what: str = "") -> TV:
        """A primitive for a primitive or a wrapper object; _Fail otherwise."""
        if tv.is_primitive:
            return tv
        if tv.is_null:
            raise _Fail("threw java.lang.NullPointerException" + (f": {what} on null" if what else ""), column)
        name = tv.type if tv.type and jt.unbox(tv.type) else (await self.runtime_type(tv)).name
        p = jt.unbox(name)
        if p is None:
            raise _Fail(f"bad operand type {name}" + (f" for {what}" if what else "") + ": not a number, char or boolean",
                        column)
        info = await self.runtime_type(tv)
        f = await self.E.find_field(info.id, "value")
        reply = await self.conn.send(ObjectReference.GetValues, tv.value, [f.id])  # type: ignore[union-attr]
        return from_jdwp(reply.values[0], p)

    async def box(self, tv: TV, column: int | None, target: str | None = None) -> TV:
        """``Integer.valueOf(i)`` and friends, in the target."""
        target = target or jt.box(tv.type)  # type: ignore[arg-type]
        p = jt.unbox(target)  # type: ignore[arg-type]
        if p != tv.type:
            tv = from_jvalue(S.cast(p, tv.jvalue()))  # type: ignore[arg-type]
        self.require_side_effects(f"boxing a {tv.type} into a {target}", column)
        info = await self._need_type(target, column)  # type: ignore[arg-type]
        sig = f"({jt.java_name_to_signature(p)}){jt.java_name_to_signature(target)}"  # type: ignore[arg-type]
        method = next(m for m in await self.vm.methods(info.id) if m.name == "valueOf" and m.signature == sig)
        return await self.invoke(method, None, [tv.to_jdwp()], column)

    async def to_text(self, tv: TV, column: int | None, for_display: bool = False) -> str:
        """``String.valueOf(tv)``: toString() runs in the target for objects other than strings and
        wrappers (read-only: ``Type@id`` in displays, an error in expressions)."""
        if tv.is_void:
            return "void" if for_display else _raise(_Fail("'void' cannot be converted to a string", column))
        if tv.is_primitive:
            return S.to_java_string(tv.type, tv.value)  # type: ignore[arg-type]
        if tv.is_null:
            return "null"
        if await self.is_string(tv):
            return await self.string_text(tv)
        info = await self.runtime_type(tv)
        if jt.unbox(info.name):
            p = await self.unbox(tv, column)
            return S.to_java_string(p.type, p.value)  # type: ignore[arg-type]
        if not self.allow:
            if for_display:
                return f"{info.name}@{tv.value:x}"
            raise _Fail(f"converting a {info.name} to a string calls its toString(), which is not allowed "
                        "here: side effects are disabled (read-only session)", column)
        method = await self._find_method(info, "toString", [], column, instance=True)
        result = await self.invoke(method, tv, [], column)
        return "null" if result.is_null else await self.string_text(result)

    async def truth(self, tv: TV, column: int, what: str) -> bool:
        if tv.is_ref and not tv.is_null and tv.type in (None, "java.lang.Boolean", _OBJECT) \
                and (await self.runtime_type(tv)).name == "java.lang.Boolean":
            tv = await self.unbox(tv, column)
        if tv.type != "boolean":
            shown = await self.type_name(tv) if tv.is_ref else tv.type
            raise _Fail(f"{what} must be boolean, but this is {shown}", column)
        return bool(tv.value)

    async def modifiers(self, info: TypeInfo) -> int:
        if info.mod_bits is None:
            info.mod_bits = (await self.conn.send(ReferenceType.Modifiers, info.id)).mod_bits
        return info.mod_bits  # type: ignore[return-value]

    async def is_interface(self, info: TypeInfo) -> bool:
        """From the class modifiers: a TypeInfo first seen through a bare id may carry the CLASS tag."""
        if info.tag == TypeTag.INTERFACE:
            return True
        if info.is_array:
            return False
        return bool(await self.modifiers(info) & 0x0200)

    async def _need_type(self, name: str, column: int | None) -> TypeInfo:
        info = await self.E.type_by_name(name)
        if info is None:
            raise _Fail(f"class {name} is not loaded in the target", column)
        return info

    # -- evaluation ----------------------------------------------------------------------------------

    async def ev(self, node: A.Expr) -> TV:  # noqa: C901 - one dispatch over the node kinds
        match node:
            case A.Literal(type=t, value=v):
                if t == "String":
                    return string(v, constant=True)
                if t == "null":
                    return NULL
                return prim(t, v, constant=True)
            case A.Name() | A.AmbiguousName() | A.FieldAccess() | A.ArrayAccess():
                return await self.load(await self.place(node), node.column)
            case A.This(qualifier=None):
                this = await self.this_obj()
                if this is None:
                    raise _Fail("'this' cannot be used in a static context", node.column)
                return this
            case A.This(qualifier=q):
                return await self.qualified_this(".".join(q), node.column)  # type: ignore[arg-type]
            case A.Super():
                raise _Fail("'super' must be followed by '.' and a field or method", node.column)
            case A.MethodCall():
                return await self.call(node)
            case A.New():
                return await self.new_object(node)
            case A.NewArray():
                return await self.new_array(node)
            case A.ArrayInitializer():
                raise _Fail("an array initializer needs 'new T[]'", node.column)
            case A.Unary():
                return await self.unary(node)
            case A.Binary():
                return await self.binary(node)
            case A.Conditional():
                cond = await self.ev(node.condition)
                if await self.truth(cond, node.condition.column, "the condition of '?:'"):
                    return await self.ev(node.then)
                return await self.ev(node.otherwise)
            case A.InstanceOf():
                return await self.instance_of(node)
            case A.Cast():
                return await self.cast(node)
            case A.Assign():
                return await self.assignment(node)
            case A.ClassLiteral():
                return await self.class_literal(node.type, node.column)
        raise _Fail(f"unsupported expression {type(node).__name__}", node.column)

    # -- names and places ----------------------------------------------------------------------------

    async def place(self, node: A.Expr) -> _Place:
        match node:
            case A.Name(name=n):
                found = await self.simple_name(n, node.column)
                if found is None:
                    raise _Fail(f"cannot find symbol '{n}'{await self._symbol_hint(n)}", node.column)
                return found
            case A.AmbiguousName(parts=parts):
                head = await self.qualifier_parts(parts[:-1], node.column)
                if not isinstance(head, TV):
                    return await self.static_member(head, parts[-1], node.column)
                return await self.member(head, parts[-1], node.column)
            case A.FieldAccess(target=A.Super() as sup, name=n):
                this = await self.this_obj()
                if this is None:
                    raise _Fail("'super' cannot be used in a static context", sup.column)
                start = await self.vm.superclass(self.location.class_id)
                f = await self.E.find_field(start, n)
                if f is None:
                    raise _Fail(f"cannot find field '{n}' in the superclass", node.column)
                return await self._field_place(this, f)
            case A.FieldAccess(target=t, name=n):
                target = await self.qualifier(t)
                if not isinstance(target, TV):
                    return await self.static_member(target, n, node.column)
                return await self.member(target, n, node.column)
            case A.ArrayAccess(array=a, index=i):
                arr = await self.ev(a)
                idx = await self.ev(i)
                if idx.is_ref and not idx.is_null and not jt.unbox(await self.type_name(idx)):
                    raise _Fail(f"incompatible types: an array index must be an int, not {await self.type_name(idx)}",
                                i.column)
                idx = await self.unbox(idx, i.column, "an array index")
                if idx.type not in ("int", "short", "byte", "char"):
                    raise _Fail(f"incompatible types: an array index must be an int, not {idx.type}", i.column)
                if arr.is_null:
                    raise _Fail("threw java.lang.NullPointerException: cannot load from a null array", node.column)
                tname = await self.type_name(arr)
                if not tname.endswith("[]"):
                    tname = (await self.runtime_type(arr)).name
                    if not tname.endswith("[]"):
                        raise _Fail(f"array required, but {tname} found", a.column)
                return _Place("element", tname[:-2], obj=arr, index=idx.value)
        raise _Fail("not a variable", node.column)

    async def simple_name(self, n: str, column: int) -> _Place | None:
        if n in self.bindings:
            return _Place("binding", self.bindings[n].type, name=n, value=self.bindings[n])
        if n.startswith("$"):
            value = await self.dollar(n)
            if value is not None:
                return _Place("value", None, name=n, value=from_jdwp(value))
        slot = self.live.get(n)
        if slot is not None:
            return _Place("local", slot.type_name, name=n, slot=slot)
        # fields of this and of the enclosing instances (this$0 chain), captured val$x
        obj = await self.this_obj()
        type_id = self.location.class_id
        seen = 0
        while obj is not None and seen < 16:
            seen += 1
            f = await self.E.find_field(type_id, n) or await self.E.find_field(type_id, "val$" + n)
            if f is not None:
                return await self._field_place(obj, f)
            outer = await self.E.find_field(type_id, "this$0")
            if outer is None:
                break
            obj = await self.load(await self._field_place(obj, outer), column)
            if obj.is_null:
                break
            type_id = (await self.runtime_type(obj)).id
        # statics of the current class and its lexically enclosing classes
        for info in await self._enclosing_types():
            f = await self.E.find_field(info.id, n, static_only=True)
            if f is not None:
                return _Place("static", f.type_name, name=n, field=f)
        return None

    async def _symbol_hint(self, n: str) -> str:
        names = sorted((set(self.live) | set(self.bindings)) - {"this"})
        close = [x for x in names if x.lower() == n.lower() or x.startswith(n) or n.startswith(x)]
        close += [x for x in difflib.get_close_matches(n, names, 3, 0.6) if x not in close]
        if close:
            return f": did you mean {' or '.join(close[:3])}?"
        if names:
            more = f", … {len(names) - 12} more" if len(names) > 12 else ""  # a cut list must say it is cut
            return f" (locals here: {', '.join(names[:12])}{more})"
        return ""

    async def _enclosing_types(self) -> list[TypeInfo]:
        info = await self.vm.type(self.location.class_id)
        result = [info]
        name = info.name
        while "$" in name:
            name = name.rsplit("$", 1)[0]
            outer = await self.E.type_by_name(name)
            if outer is not None:
                result.append(outer)
        return result

    async def dollar(self, n: str) -> Value | None:
        for key in (n, n[1:]):
            if key in self.extra:
                return self.extra[key]
        inspector = getattr(self.E.session, "inspector", None)
        getter = getattr(inspector, "mark_value", None)
        if getter is not None:
            for key in (n[1:], n):
                try:
                    value = getter(key)
                    if inspect.isawaitable(value):
                        value = await value
                except Exception:  # noqa: BLE001 - an unknown mark is "not found", the caller says so
                    value = None
                if isinstance(value, Value):
                    return value
        return None

    async def _field_place(self, obj: TV | None, f: FieldInfo) -> _Place:
        if f.is_static:
            return _Place("static", f.type_name, name=f.name, field=f)
        return _Place("field", f.type_name, name=f.name, obj=obj, field=f)

    async def member(self, target: TV, n: str, column: int) -> _Place:
        """``target.n``: a field, or ``length`` of an array."""
        if target.is_primitive:
            raise _Fail(f"{target.type} cannot be dereferenced", column)
        if target.is_null:
            raise _Fail(f"threw java.lang.NullPointerException: cannot read field \"{n}\" because the value is null",
                        column)
        tname = await self.type_name(target)
        if tname.endswith("[]") or (n == "length" and (await self.runtime_type(target)).is_array):
            if n != "length":
                raise _Fail(f"cannot find symbol '{n}' in an array (arrays have only 'length')", column)
            reply = await self.conn.send(ArrayReference.Length, target.value)
            return _Place("value", "int", name="length", value=prim("int", reply.array_length))
        f = None
        if target.type_id is not None:
            f = await self.E.find_field(target.type_id, n)
        if f is None:
            info = await self.runtime_type(target)
            f = await self.E.find_field(info.id, n)
        if f is None:
            raise _Fail(f"cannot find symbol: field '{n}' in {tname}", column)
        return await self._field_place(target, f)

    async def static_member(self, info: TypeInfo, n: str, column: int) -> _Place:
        if n == "length" and info.is_array:
            raise _Fail("'length' needs an array value, not an array type", column)
        f = await self.E.find_field(info.id, n, static_only=True)
        if f is None:
            nonstatic = await self.E.find_field(info.id, n)
            if nonstatic is not None:
                raise _Fail(f"non-static field '{n}' cannot be referenced from the class {info.name}", column)
            raise _Fail(f"cannot find symbol: static field '{n}' in {info.name}", column)
        return _Place("static", f.type_name, name=n, field=f)

    async def load(self, p: _Place, column: int | None) -> TV:
        if p.value is not None:
            return p.value
        if p.kind == "local":
            s = p.slot
            cached = self.locals.get(p.name)
            if cached is not None:
                return cached
            reply = await self.conn.send(StackFrame.GetValues, self.thread, await self.frame(),
                                         [(s.slot, sig_byte(s.type_name))])  # type: ignore[union-attr]
            tv = from_jdwp(reply.values[0], p.type)
            self.locals[p.name] = tv
            return tv
        if p.kind == "field":
            reply = await self.conn.send(ObjectReference.GetValues, p.obj.value, [p.field.id])  # type: ignore[union-attr]
            return from_jdwp(reply.values[0], p.type)
        if p.kind == "static":
            reply = await self.conn.send(ReferenceType.GetValues, p.field.type_id, [p.field.id])  # type: ignore[union-attr]
            return from_jdwp(reply.values[0], p.type)
        if p.kind == "element":
            arr = p.obj
            try:
                reply = await self.conn.send(ArrayReference.GetValues, arr.value, p.index, 1)  # type: ignore[union-attr]
            except JdwpError as e:
                if e.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
                    n = (await self.conn.send(ArrayReference.Length, arr.value)).array_length  # type: ignore[union-attr]
                    raise _Fail(f"threw java.lang.ArrayIndexOutOfBoundsException: Index {p.index} out of bounds "
                                f"for length {n}", column) from None
                raise
            return from_jdwp(reply.values[0], p.type)
        raise _Fail("not a readable variable", column)

    async def store(self, p: _Place, tv: TV, column: int) -> TV:
        self.require_side_effects("assignment", column)
        if p.kind in ("value",):
            raise _Fail(f"cannot assign a value to '{p.name}'", column)
        tv = await self.convert(tv, p.type or _OBJECT, column, "assignment")  # type: ignore[arg-type]
        if tv.is_ref:
            await self.materialize(tv)
        value = tv.to_jdwp()
        try:
            if p.kind == "binding":
                self.bindings[p.name] = tv
            elif p.kind == "local":
                await self.conn.send(StackFrame.SetValues, self.thread, await self.frame(),
                                     [(p.slot.slot, value)])  # type: ignore[union-attr]
                self.locals[p.name] = tv
            elif p.kind == "field":
                await self.conn.send(ObjectReference.SetValues, p.obj.value, [(p.field.id, value)])  # type: ignore[union-attr]
            elif p.kind == "static":
                await self.conn.send(ClassType.SetValues, p.field.type_id, [(p.field.id, value)])  # type: ignore[union-attr]
            elif p.kind == "element":
                try:
                    await self.conn.send(ArrayReference.SetValues, p.obj.value, p.index, [value])  # type: ignore[union-attr]
                except JdwpError as e:
                    if e.code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
                        n = (await self.conn.send(ArrayReference.Length, p.obj.value)).array_length  # type: ignore[union-attr]
                        raise _Fail(f"threw java.lang.ArrayIndexOutOfBoundsException: Index {p.index} out of "
                                    f"bounds for length {n}", column) from None
                    raise
        except JdwpError as e:
            raise _Fail(f"the VM refused the assignment to '{p.name or 'element'}': {e}", column) from None
        return tv

    async def convert(self, tv: TV, target: str, column: int | None, context: str) -> TV:
        """Assignment conversion (JLS 5.2) of a value to a variable or parameter of type ``target``."""
        if jt.is_primitive(target):
            if tv.is_null:
                raise _Fail(f"incompatible types: <null> cannot be converted to {target}", column)
            if tv.is_ref:
                if await self.is_string(tv):
                    raise _Fail(f"incompatible types: String cannot be converted to {target}", column)
                tv = await self.unbox(tv, column)
            try:
                return from_jvalue(S.assign_convert(target, tv.jvalue(), constant=tv.constant))
            except S.JavaTypeError as e:
                raise _Fail(str(e), column) from None
        if tv.is_void:
            raise _Fail(f"'void' cannot be used in {context}", column)
        if tv.is_primitive:
            wrapper_prim = jt.unbox(target)
            if wrapper_prim is not None:
                if wrapper_prim != tv.type:
                    try:
                        converted = S.assign_convert(wrapper_prim, tv.jvalue(), constant=tv.constant)
                    except S.JavaTypeError:
                        raise _Fail(f"incompatible types: {tv.type} cannot be converted to {target}", column) from None
                    if tv.type not in ("int", "short", "char", "byte") or not tv.constant:
                        raise _Fail(f"incompatible types: {tv.type} cannot be converted to {target}", column)
                    tv = from_jvalue(converted)
                return await self.box(tv, column, target)
            boxed = jt.box(tv.type)  # type: ignore[arg-type]
            if not await self.E.is_subtype(boxed, target):  # type: ignore[arg-type]
                raise _Fail(f"incompatible types: {tv.type} cannot be converted to {target}", column)
            return await self.box(tv, column)
        if tv.is_null:
            return TV(target, 0, tag_for_type(target))
        if tv.value is None:  # a String computed here
            if target not in _STRING_SUPERS:
                raise _Fail(f"incompatible types: String cannot be converted to {target}", column)
            return tv
        if not await self.is_instance(tv, target):
            actual = (await self.runtime_type(tv)).name
            raise _Fail(f"incompatible types: {actual} cannot be converted to {target}", column)
        return tv

    # -- qualifiers: a value or a type ---------------------------------------------------------------

    async def qualifier(self, node: A.Expr) -> TV | TypeInfo:
        if isinstance(node, A.Name):
            found = await self.simple_name(node.name, node.column)
            if found is not None:
                return await self.load(found, node.column)
            info = await self.resolve_type(node.name, node.column, quiet=True)
            if info is None:
                raise _Fail(f"cannot find symbol '{node.name}' (not a variable or a class)"
                            f"{await self._symbol_hint(node.name)}", node.column)
            return info
        if isinstance(node, A.AmbiguousName):
            return await self.qualifier_parts(node.parts, node.column)
        return await self.ev(node)

    async def qualifier_parts(self, parts: tuple[str, ...], column: int) -> TV | TypeInfo:
        """JLS 6.5.2: a variable first, else the shortest prefix that is a class, then members."""
        cur: TV | TypeInfo | None = None
        rest: tuple[str, ...] = ()
        found = await self.simple_name(parts[0], column)
        if found is not None:
            cur, rest = await self.load(found, column), parts[1:]
        else:
            for k in range(1, len(parts) + 1):
                info = await self.resolve_type(".".join(parts[:k]), column, quiet=True)
                if info is not None:
                    cur, rest = info, parts[k:]
                    break
            if cur is None:
                for k in range(1, len(parts) + 1):
                    info = await self.resolve_type(".".join(parts[:k]), column, quiet=True, load=True)
                    if info is not None:
                        cur, rest = info, parts[k:]
                        break
            if cur is None:
                if len(parts) == 1:
                    raise _Fail(f"cannot find symbol '{parts[0]}' (not a variable or a class)"
                                f"{await self._symbol_hint(parts[0])}", column)
                raise _Fail(f"cannot find symbol '{parts[0]}': not a variable, and no loaded class "
                            f"{'.'.join(parts)}", column)
        for part in rest:
            if isinstance(cur, TV):
                cur = await self.load(await self.member(cur, part, column), column)
                continue
            f = await self.E.find_field(cur.id, part, static_only=True)
            if f is not None:
                cur = await self.load(_Place("static", f.type_name, name=part, field=f), column)
                continue
            nested = await self.E.type_by_name(f"{cur.name}${part}")
            if nested is None:
                raise _Fail(f"cannot find symbol '{part}' in {cur.name} (no static field or nested class)", column)
            cur = nested
        return cur

    async def qualified_this(self, name: str, column: int) -> TV:
        info = await self.resolve_type(name, column)
        obj = await self.this_obj()
        if obj is None:
            raise _Fail(f"'{name}.this' cannot be used in a static context", column)
        type_id = self.location.class_id
        for _ in range(16):
            if await self.vm.is_assignable(type_id, info.name):
                return TV(info.name, obj.value, obj.tag)
            outer = await self.E.find_field(type_id, "this$0")
            if outer is None:
                break
            obj = await self.load(_Place("field", outer.type_name, obj=obj, field=outer), column)
            type_id = (await self.runtime_type(obj)).id
        raise _Fail(f"not an enclosing class: {name}", column)

    # -- types -------------------------------------------------------------------------------------

    async def _load_class(self, name: str) -> TypeInfo | None:
        """``Class.forName(name, true, <loader of the current class>)``; None when there is no such class."""
        if name.startswith("java.lang.") and "$" not in name and name.count(".") == 2 or \
                name.lstrip("[") in ("Z", "B", "C", "S", "I", "J", "F", "D"):
            loader = 0
        else:
            loader = (await self.conn.send(ReferenceType.ClassLoader, self.location.class_id)).class_loader
        cls = await self._need_type("java.lang.Class", None)
        method = next((m for m in await self.vm.methods(cls.id) if m.name == "forName" and m.signature ==
                       "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;"), None)
        if method is None:
            return None
        arg = await self.materialize(string(name))
        try:
            got = await self.invoke(method, None, [arg.to_jdwp(), Value(Tag.BOOLEAN, True),
                                                   Value(Tag.CLASS_LOADER, loader)], None)
        except _Fail:
            return None
        reply = await self.conn.send(ClassObjectReference.ReflectedType, got.value)
        return await self.vm.type(reply.type_id, reply.ref_type_tag)

    async def resolve_type(self, name: str, column: int | None, quiet: bool = False,
                           load: bool | None = None) -> TypeInfo | None:
        """A class named as in source at the current location: nested, imported, same package,
        java.lang, fully qualified; else a loaded class with that unique simple name."""
        if load is None:
            load = not quiet
        here = self.location.class_id
        key = (here, name)
        cached = self.E._type_names.get(key)
        if cached is not None:
            return cached
        candidates: list[str] = []
        info_here = await self.vm.type(here)
        enclosing = [info_here.name]
        while "$" in enclosing[-1]:
            enclosing.append(enclosing[-1].rsplit("$", 1)[0])
        parts = name.split(".")
        head, tail = parts[0], parts[1:]
        heads: list[str] = []
        for outer in enclosing:
            heads.append(f"{outer}${head}")
            if outer.rsplit(".", 1)[-1].rsplit("$", 1)[-1] == head:
                heads.append(outer)
        imports = await self.E.imports(here)
        if head in imports.single:
            q = imports.single[head]
            heads += [q, _nested_form(q)]
        pkg = imports.package
        heads.append(f"{pkg}.{head}" if pkg else head)
        for p in imports.on_demand:
            heads += [f"{p}.{head}", f"{p}${head}"]
        heads.append(f"java.lang.{head}")
        for h in heads:
            candidates.append("$".join([h, *tail]) if tail else h)
        if tail:  # fully qualified, possibly with nested classes: a.b.C.D -> a.b.C$D
            for i in range(len(parts), 0, -1):
                candidates.append(".".join(parts[:i]) + "".join("$" + p for p in parts[i:]))
        seen: list[str] = []
        for c in candidates:
            if c not in seen:
                seen.append(c)
        results = await asyncio.gather(*(self.vm.classes_by_name(c) for c in seen))
        for found in results:
            if found:
                self.E._type_names[key] = found[0]
                return found[0]
        if load and self.allow:  # not loaded yet: load it as the program would (Class.forName)
            for c in seen:
                info = await self._load_class(c)
                if info is not None:
                    self.E._type_names[key] = info
                    return info
        if not tail:  # last resort: a unique loaded class with that simple name
            matches = [t for t in await self.vm.all_classes()
                       if not t.is_array and re.split(r"[.$]", t.name)[-1] == head]
            names = sorted({t.name for t in matches})
            if len(names) == 1:
                self.E._type_names[key] = matches[0]
                return matches[0]
            if len(names) > 1 and not quiet:
                raise _Fail(f"class name '{name}' is ambiguous: {', '.join(names[:5])}; write the full name", column)
        if quiet:
            return None
        raise _Fail(f"cannot find class '{name}' (not loaded in the target, or not imported here)", column)

    async def type_ref(self, ref: A.TypeRef) -> str:
        """The Java (binary) name of a written type: "int", "java.lang.String[]", "p.A$B"."""
        if ref.name in jt.PRIMITIVE_NAMES or ref.name == "void":
            base = ref.name
        else:
            info = await self.resolve_type(ref.name, ref.column)
            base = info.name  # type: ignore[union-attr]
        return base + "[]" * ref.dims

    async def is_instance(self, tv: TV, target: str) -> bool:
        if tv.is_null:
            return False
        if tv.value is None:
            return target in _STRING_SUPERS
        info = await self.runtime_type(tv)
        if info.name == target or target == _OBJECT:
            return True
        if info.is_array:
            return await self.E.is_subtype(info.name, target)
        if target.endswith("[]"):
            return False
        return await self.vm.is_assignable(info.id, target)

    async def class_literal(self, ref: A.TypeRef, column: int) -> TV:
        name = await self.type_ref(ref)
        if name in jt.PRIMITIVE_NAMES or name == "void":
            wrapper = "java.lang.Void" if name == "void" else jt.box(name)
            info = await self._need_type(wrapper, column)  # type: ignore[arg-type]
            return await self.load(await self.static_member(info, "TYPE", column), column)
        info = await self.E.type_by_name(name)
        if info is None:
            raise _Fail(f"class {name} is not loaded in the target", column)
        reply = await self.conn.send(ReferenceType.ClassObject, info.id)
        return TV("java.lang.Class", reply.class_object, Tag.CLASS_OBJECT)

    # -- methods -------------------------------------------------------------------------------------

    async def call(self, node: A.MethodCall) -> TV:
        name, column = node.name, node.name_column
        if node.is_super or isinstance(node.target, A.Super):
            this = await self.this_obj()
            if this is None:
                raise _Fail("'super' cannot be used in a static context", node.column)
            sup_id = await self.vm.superclass(self.location.class_id)
            q = node.target.qualifier if isinstance(node.target, A.Super) else None
            if q:  # Interface.super.m()
                sup_info = await self.resolve_type(".".join(q), node.column)
            else:
                sup_info = await self.vm.type(sup_id)
            args = [await self.ev(a) for a in node.args]
            method, packed = await self._resolve(sup_info, name, args, column, instance=True)  # type: ignore[arg-type]
            return await self.invoke(method, this, packed, column, nonvirtual=True)
        if node.target is None:
            return await self.unqualified_call(node)
        target = await self.qualifier(node.target)
        args = [await self.ev(a) for a in node.args]
        if isinstance(target, TV):
            return await self.instance_call(target, name, args, column, node.args)
        method, packed = await self._resolve(target, name, args, column, instance=False)
        if not method.is_static:
            raise _Fail(f"non-static method {method.display()} cannot be referenced from the class {target.name}",
                        column)
        return await self.invoke(method, None, packed, column)

    async def unqualified_call(self, node: A.MethodCall) -> TV:
        name, column = node.name, node.name_column
        args = [await self.ev(a) for a in node.args]
        obj = await self.this_obj()
        type_id = self.location.class_id
        for _ in range(16):  # this, then the enclosing instances
            info = await self.vm.type(type_id)
            if await self._has_method(info, name):
                method, packed = await self._resolve(info, name, args, column, instance=obj is not None)
                return await self.invoke(method, None if method.is_static else obj, packed, column)
            if obj is None:
                break
            outer = await self.E.find_field(type_id, "this$0")
            if outer is None:
                obj = None
                break
            obj = await self.load(_Place("field", outer.type_name, obj=obj, field=outer), column)
            type_id = (await self.runtime_type(obj)).id
        for info in await self._enclosing_types():  # static methods of enclosing classes
            if await self._has_method(info, name):
                method, packed = await self._resolve(info, name, args, column, instance=False)
                if not method.is_static:
                    raise _Fail(f"non-static method {method.display()} cannot be referenced from a static context",
                                column)
                return await self.invoke(method, None, packed, column)
        raise _Fail(f"cannot find symbol: method {name}({', '.join([await self._arg_type(a) for a in args])})",
                    column)

    async def instance_call(self, target: TV, name: str, args: list[TV], column: int,
                            arg_nodes: tuple[A.Expr, ...] = ()) -> TV:
        if target.is_primitive:
            raise _Fail(f"{target.type} cannot be dereferenced", column)
        if target.is_null:
            raise _Fail(f"threw java.lang.NullPointerException: cannot invoke \"{name}()\" because the value is null",
                        column)
        if await self.is_string(target):
            fast = await self._string_method(target, name, args)
            if fast is not None:
                return fast
            await self.materialize(target)
        info: TypeInfo | None = None
        if target.type_id is not None:
            static_info = await self.vm.type(target.type_id)
            if await self._has_method(static_info, name):
                info = static_info
        if info is None:
            info = await self.runtime_type(target)
            if info.is_array:
                info = await self._need_type(_OBJECT, column)
        method, packed = await self._resolve(info, name, args, column, instance=True)
        return await self.invoke(method, None if method.is_static else target, packed, column)

    async def _string_method(self, target: TV, name: str, args: list[TV]) -> TV | None:
        """String methods answered here, without invoking: equals, length, isEmpty, charAt, ..."""
        n = len(args)
        if name in ("length", "isEmpty", "isBlank", "hashCode") and n == 0:
            text = await self.string_text(target)
            units = text.encode("utf-16-le", "surrogatepass")
            if name == "length":
                return prim("int", len(units) // 2)
            if name == "isEmpty":
                return prim("boolean", not text)
            if name == "isBlank":
                return prim("boolean", text.strip(" \t\n\x0b\f\r\x1c\x1d\x1e\x1f") == "" and
                            all(not c.isspace() or c in " \t\n\x0b\f\r\x1c\x1d\x1e\x1f" for c in text))
            h = 0
            for i in range(0, len(units), 2):
                h = (31 * h + int.from_bytes(units[i:i + 2], "little")) & 0xFFFFFFFF
            return prim("int", h - (1 << 32) if h >= 1 << 31 else h)
        if name == "equals" and n == 1:
            other = args[0]
            if other.is_null:
                return prim("boolean", False)
            if other.is_ref and await self.is_string(other):
                return prim("boolean", await self.string_text(target) == await self.string_text(other))
            if other.is_ref:
                return prim("boolean", False)
            return None
        if name in ("startsWith", "endsWith", "contains") and n == 1 and args[0].is_ref \
                and not args[0].is_null and await self.is_string(args[0]):
            text, arg = await self.string_text(target), await self.string_text(args[0])
            fn = {"startsWith": text.startswith, "endsWith": text.endswith, "contains": text.__contains__}[name]
            return prim("boolean", fn(arg))
        if name == "toString" and n == 0:
            return target
        return None

    async def _has_method(self, info: TypeInfo, name: str) -> bool:
        for t in await self.E.supertypes(info.id):
            if any(m.name == name for m in await self.vm.methods(t)):
                return True
        return False

    async def _arg_type(self, tv: TV) -> str:
        """The static type overload resolution sees ("null" only for the null literal)."""
        if tv.type is not None:
            return tv.type
        if tv.is_null:
            return "null"
        return await self.type_name(tv)

    async def _candidates(self, info: TypeInfo, name: str, instance: bool) -> list[MethodInfo]:
        found: list[MethodInfo] = []
        sigs: set[str] = set()
        for t in await self.E.supertypes(info.id):
            t_info = await self.vm.type(t)
            for m in await self.vm.methods(t):
                if m.name != name or m.signature in sigs or m.is_bridge:
                    continue
                if m.is_static and t != info.id and await self.is_interface(t_info):
                    continue  # static interface methods are not inherited
                if m.is_synthetic and not name.startswith("lambda$"):
                    continue
                sigs.add(m.signature)
                found.append(m)
        return found

    async def _find_method(self, info: TypeInfo, name: str, args: list[TV], column: int | None,
                           instance: bool) -> MethodInfo:
        method, _ = await self._resolve(info, name, args, column, instance)
        return method

    async def _resolve(self, info: TypeInfo, name: str, args: list[TV], column: int | None,
                       instance: bool) -> tuple[MethodInfo, list[Value]]:
        """Overload resolution, then the arguments converted (boxing, widening, varargs packing)."""
        methods = await self._candidates(info, name, instance)
        if not methods:
            raise _Fail(f"cannot find symbol: method {name}({', '.join([await self._arg_type(a) for a in args])}) "
                        f"in {info.name}", column)
        return await self._choose(methods, name, args, column, info.name)

    async def _choose(self, methods: list[MethodInfo], name: str, args: list[TV], column: int | None,
                      where: str) -> tuple[MethodInfo, list[Value]]:
        cands = [Candidate.from_signature(m.signature, m.is_varargs, m, name if name != "<init>" else
                                          where.rsplit(".", 1)[-1]) for m in methods]
        arg_types = [await self._arg_type(a) for a in args]
        chosen = await self._overload(cands, arg_types, column, where)
        method: MethodInfo = chosen.ref
        phase = applicable_phase(chosen, arg_types, self._known_subtype)
        params = list(chosen.params)
        if phase == 3:
            fixed = params[:-1]
            elem = params[-1][:-2]
            head = [await self._pass(a, p, column) for a, p in zip(args, fixed, strict=False)]
            rest = [await self.convert(a, elem, column, "a varargs argument") for a in args[len(fixed):]]
            array = await self.make_array(params[-1], rest, column)
            return method, [*head, array.to_jdwp()]
        return method, [await self._pass(a, p, column) for a, p in zip(args, params, strict=True)]

    def _known_subtype(self, sub: str, sup: str) -> bool:
        return self.E._subtypes.get((sub, sup), False) if sub != sup else True

    async def _overload(self, cands: list[Candidate], arg_types: list[str], column: int | None,
                        where: str) -> Candidate:
        # resolve() asks subtype questions synchronously: answer the ones it asked, then run it again
        for _ in range(8):
            missing: set[tuple[str, str]] = set()

            def is_sub(sub: str, sup: str, missing: set = missing) -> bool:
                key = (sub, sup)
                if key in self.E._subtypes:
                    return self.E._subtypes[key]
                missing.add(key)
                return False

            try:
                chosen: Candidate | None = resolve(cands, arg_types, is_sub)
                error: OverloadError | None = None
            except OverloadError as e:
                chosen, error = None, e
            if not missing:
                if error is not None:
                    msg = str(error).split("\n")
                    if isinstance(error, NoApplicableMethodError) and len(cands) == 1:
                        c = cands[0]
                        raise _Fail(f"method {c} in {where} cannot be applied to ({', '.join(arg_types)})",
                                    column) from None
                    raise _Fail(msg[0] + (" in " + where if isinstance(error, NoApplicableMethodError) else "")
                                + ("; candidates: " + "; ".join(str(c) for c in cands[:6]) if
                                   isinstance(error, NoApplicableMethodError) else
                                   ": " + msg[-1].strip()), column) from None
                return chosen  # type: ignore[return-value]
            await asyncio.gather(*(self.E.is_subtype(a, b) for a, b in missing))
        raise _Fail(f"cannot decide which {cands[0].name} to call", column)

    async def _pass(self, tv: TV, param: str, column: int | None) -> Value:
        """An argument converted to its parameter type (overload resolution already checked it fits)."""
        if tv.is_primitive and jt.is_primitive(param):
            converted = from_jvalue(S.cast(param, tv.jvalue()))
        else:
            converted = await self.convert(tv, param, column, "an argument")
        await self.materialize(converted)
        return converted.to_jdwp()

    async def _refuse_leaks_under_redact(self, decl: TypeInfo, method: MethodInfo, obj: TV | None,
                                         args: list[Value], column: int | None) -> None:
        """--redact masks by name; reflection and a target's own toString() get around names (redaction.py)."""
        why = redaction.reflective_call(decl.name, method.name)
        if why is not None:
            raise _Fail(why, column)
        if method.name == "toString" and not args and decl.name != "java.lang.Object" and obj is not None \
                and not obj.is_null:  # Object's own toString() prints only the class and hash
            info = await self.runtime_type(obj)
            names = [f.name for f in await self.vm.all_fields(info.id) if not f.is_static]
            secret = redaction.secret_field(names)
            if secret is not None:
                raise _Fail(f"{info.name}.toString() is refused under --redact: the object has a field named "
                            f"'{secret}' it may print; inspect it instead (secret-looking fields show <redacted>)",
                            column)

    async def invoke(self, method: MethodInfo, obj: TV | None, args: list[Value], column: int | None,
                     nonvirtual: bool = False) -> TV:
        self.require_side_effects(f"calling {method.name}()", column)
        decl = await self.vm.type(method.type_id)
        if getattr(self.E.session, "redact", False):
            await self._refuse_leaks_under_redact(decl, method, obj, args, column)
        options = InvokeOptions.SINGLE_THREADED | (InvokeOptions.NONVIRTUAL if nonvirtual else 0)
        timeout = self.E.invoke_timeout
        try:
            what = f"{decl.name}.{method.name}()"
            async with await self.E._invoking(self.thread, what) as call:
                try:
                    if obj is None:
                        command = InterfaceType.InvokeMethod if await self.is_interface(decl) else ClassType.InvokeMethod
                        reply = await call.send(command, decl.id, self.thread, method.id, args, int(options),
                                                timeout=timeout, what=what)
                    else:
                        await self.materialize(obj)
                        reply = await call.send(ObjectReference.InvokeMethod, obj.value, self.thread, decl.id,
                                                method.id, args, int(options), timeout=timeout, what=what)
                finally:
                    self.frame_id = None  # the invoke resumed the thread: frame ids are stale
        except TimeoutError:
            raise _Fail(f"{decl.name}.{method.name}() did not return within {timeout:g}s (it may be waiting for a "
                        "lock another, suspended thread holds); the thread is still inside the call", column) from None
        except JdwpError as e:
            if e.code == ErrorCode.INVALID_THREAD:  # JDWP runs calls only in a thread an event suspended
                raise _Fail(f"cannot call {decl.name}.{method.display()} in this thread: it was paused, not "
                            "stopped at a breakpoint or step, and the JVM runs method calls only in threads "
                            "stopped by an event. Fields and locals read fine; to call methods, stop it at a "
                            "breakpoint (or a step) where it runs next, then evaluate again", column) from None
            raise _Fail(f"cannot call {decl.name}.{method.display()}: {e}", column) from None
        if reply.exception.value:
            raise _Fail(await self.describe_exception(reply.exception), column, exception=reply.exception)
        result = from_jdwp(reply.return_value, method.return_type)
        if result.is_ref and result.value:
            self._keep(result.value)
        return result

    async def describe_exception(self, exc: Value) -> str:
        try:
            tv = TV(None, exc.value, exc.tag)
            info = await self.runtime_type(tv)
            f = await self.E.find_field(info.id, "detailMessage")
            message = None
            if f is not None:
                reply = await self.conn.send(ObjectReference.GetValues, exc.value, [f.id])
                msg = reply.values[0]
                if msg.value:
                    message = await self.string_text(TV(STRING, msg.value, msg.tag))
            if message is None and self.allow:  # e.g. helpful NullPointerException messages are computed
                with contextlib.suppress(_Fail, JdwpError):
                    getter = await self._find_method(info, "getMessage", [], None, instance=True)
                    got = await self.invoke(getter, tv, [], None)
                    if not got.is_null:
                        message = await self.string_text(got)
            return f"threw {info.name}" + (f": {message}" if message else "")
        except JdwpError:
            return "threw an exception (its details could not be read)"

    # -- object and array creation -------------------------------------------------------------------

    async def new_object(self, node: A.New) -> TV:
        name = await self.type_ref(node.type)
        if jt.is_primitive(name):
            raise _Fail(f"cannot instantiate the primitive type {name}", node.type.column)
        info = await self._need_type(name, node.type.column)
        if await self.is_interface(info):
            raise _Fail(f"{name} is an interface: it cannot be instantiated", node.type.column)
        if await self.modifiers(info) & 0x0400:
            raise _Fail(f"{name} is abstract: it cannot be instantiated", node.type.column)
        args = [await self.ev(a) for a in node.args]
        ctors = [m for m in await self.vm.methods(info.id) if m.name == "<init>"]
        outer_name = name.rsplit("$", 1)[0] if "$" in name else None
        outer: TV | None = None
        if outer_name and ctors and await self.E.find_field(info.id, "this$0") is not None or (
                outer_name and ctors and all(m.arg_types[:1] == [outer_name] for m in ctors)):
            outer = await self._outer_instance(outer_name, node.column)  # type: ignore[arg-type]
        if outer is not None:
            trimmed = []
            for m in ctors:
                params, ret = jt.parse_method_signature(m.signature)
                trimmed.append((m, jt.format_method_signature(params[1:], ret)))
            cands = [Candidate.from_signature(sig, m.is_varargs, m, info.simple_name) for m, sig in trimmed]
            arg_types = [await self._arg_type(a) for a in args]
            chosen = await self._overload(cands, arg_types, node.column, name)
            m = chosen.ref
            _, packed = await self._choose([m], "<init>", [outer, *args], node.column, name)
        else:
            if not ctors:
                raise _Fail(f"{name} has no constructors", node.column)
            m, packed = await self._choose(ctors, "<init>", args, node.column, name)
        self.require_side_effects(f"new {name}()", node.column)
        try:
            async with await self.E._invoking(self.thread, f"new {name}()") as call:
                try:
                    reply = await call.send(ClassType.NewInstance, info.id, self.thread, m.id, packed,
                                            int(InvokeOptions.SINGLE_THREADED), timeout=self.E.invoke_timeout,
                                            what=f"new {name}()")
                finally:
                    self.frame_id = None
        except TimeoutError:
            raise _Fail(f"new {name}() did not return within {self.E.invoke_timeout:g}s", node.column) from None
        except JdwpError as e:
            raise _Fail(f"cannot create a {name}: {e}", node.column) from None
        if reply.exception.value:
            raise _Fail(await self.describe_exception(reply.exception), node.column, exception=reply.exception)
        self._keep(reply.new_object.value)
        self.runtime_types[reply.new_object.value] = info.id
        return TV(name, reply.new_object.value, reply.new_object.tag, type_id=info.id)

    async def _outer_instance(self, outer_name: str, column: int) -> TV:
        obj = await self.this_obj()
        type_id = self.location.class_id
        for _ in range(16):
            if obj is None:
                break
            if await self.vm.is_assignable(type_id, outer_name):
                return TV(outer_name, obj.value, obj.tag)
            f = await self.E.find_field(type_id, "this$0")
            if f is None:
                break
            obj = await self.load(_Place("field", f.type_name, obj=obj, field=f), column)
            type_id = (await self.runtime_type(obj)).id
        raise _Fail(f"an enclosing instance of {outer_name} is needed to create this inner class", column)

    async def new_array(self, node: A.NewArray) -> TV:
        self.require_side_effects("creating an array", node.column)
        name = await self.type_ref(node.type)
        if node.initializer is not None:
            return await self._init_array(name, node.initializer)
        lengths = []
        for d in node.dims:
            n = await self.unbox(await self.ev(d), d.column, "an array size")
            if n.type not in ("int", "short", "char", "byte"):
                raise _Fail(f"incompatible types: an array size must be an int, not {n.type}", d.column)
            if n.value < 0:
                raise _Fail(f"threw java.lang.NegativeArraySizeException: {n.value}", d.column)
            lengths.append(n.value)
        return await self._alloc(name, lengths, node.column)

    async def _alloc(self, name: str, lengths: list[int], column: int) -> TV:
        arr = await self.empty_array(name, lengths[0], column)
        if len(lengths) > 1:
            inner = [await self._alloc(name[:-2], lengths[1:], column) for _ in range(lengths[0])]
            if inner:
                await self.conn.send(ArrayReference.SetValues, arr.value, 0, [i.to_jdwp() for i in inner])
        return arr

    async def _init_array(self, name: str, init: A.ArrayInitializer) -> TV:
        elem = name[:-2]
        values: list[TV] = []
        for e in init.elements:
            if isinstance(e, A.ArrayInitializer):
                if not elem.endswith("[]"):
                    raise _Fail(f"illegal initializer for {elem}", e.column)
                values.append(await self._init_array(elem, e))
            else:
                values.append(await self.convert(await self.ev(e), elem, e.column, "an array initializer"))
        return await self.make_array(name, values, init.column)

    async def make_array(self, name: str, values: list[TV], column: int | None) -> TV:
        arr = await self.empty_array(name, len(values), column)
        if values:
            for v in values:
                await self.materialize(v)
            await self.conn.send(ArrayReference.SetValues, arr.value, 0, [v.to_jdwp() for v in values])
        return arr

    async def empty_array(self, name: str, length: int, column: int | None) -> TV:
        info = await self.E.type_by_name(name)
        if info is not None:
            reply = await self.conn.send(ArrayType.NewInstance, info.id, length)
            oid = reply.new_array.value
        else:  # the array class is not loaded yet: Class.forName("[[Ljava.lang.String;") loads it
            self.require_side_effects(f"creating a {name} (its class is not loaded yet)", column)
            info = await self._load_class(jt.java_name_to_signature(name).replace("/", "."))
            if info is None:
                raise _Fail(f"cannot create a {name}: its class cannot be loaded", column)
            self.E._type_names[(0, name)] = info
            reply = await self.conn.send(ArrayType.NewInstance, info.id, length)
            oid = reply.new_array.value
        self._keep(oid)
        return TV(name, oid, Tag.ARRAY)

    # -- operators -----------------------------------------------------------------------------------

    async def unary(self, node: A.Unary) -> TV:
        if node.op in ("++", "--"):
            place = await self.place(node.operand)
            old = await self.load(place, node.operand.column)
            num = await self.unbox(old, node.column, f"operator '{node.op}'")
            try:
                new = from_jvalue(S.increment(num.jvalue(), 1 if node.op == "++" else -1))
            except S.JavaTypeError as e:
                raise _Fail(str(e), node.column) from None
            stored = await self.store(place, new, node.column)
            return old if node.postfix else stored
        v = await self.ev(node.operand)
        if v.is_ref:
            v = await self.unbox(v, node.column, f"unary operator '{node.op}'")
        try:
            return from_jvalue(S.unary(node.op, v.jvalue()))
        except S.JavaTypeError as e:
            raise _Fail(str(e), node.column) from None

    async def binary(self, node: A.Binary) -> TV:
        op = node.op
        if op in ("&&", "||"):
            left = await self.ev(node.left)
            lv = await self.truth(left, node.left.column, f"the left operand of '{op}'")
            if (op == "&&" and not lv) or (op == "||" and lv):
                return prim("boolean", lv)
            right = await self.ev(node.right)
            return prim("boolean", await self.truth(right, node.right.column, f"the right operand of '{op}'"))
        left = await self.ev(node.left)
        right = await self.ev(node.right)
        return await self.operate(op, left, right, node.op_column)

    async def operate(self, op: str, left: TV, right: TV, column: int) -> TV:
        if left.is_void or right.is_void:
            raise _Fail(f"'void' type not allowed here (operator '{op}')", column)
        if op == "+" and ((left.is_ref and (left.type == STRING or await self.is_string(left))) or
                          (right.is_ref and (right.type == STRING or await self.is_string(right)))):
            a = await self.to_text(left, column)
            b = await self.to_text(right, column)
            return string(a + b)
        if op in ("==", "!=") and left.is_ref and right.is_ref:
            same = await self._same_object(left, right)
            return prim("boolean", same if op == "==" else not same)
        if left.is_ref:
            left = await self.unbox(left, column, f"operator '{op}'")
        if right.is_ref:
            right = await self.unbox(right, column, f"operator '{op}'")
        try:
            return from_jvalue(S.binary(op, left.jvalue(), right.jvalue()))
        except S.JavaArithmeticError as e:
            raise _Fail(e.describe(), column) from None
        except S.JavaTypeError as e:
            raise _Fail(str(e), column) from None

    async def _same_object(self, a: TV, b: TV) -> bool:
        if a.is_null or b.is_null:
            return a.is_null and b.is_null
        if a.value is None or b.value is None:
            # a String built here is a new object, except that equal constants are interned
            return a.value is None and b.value is None and a.constant and b.constant and a.text == b.text
        return a.value == b.value

    async def instance_of(self, node: A.InstanceOf) -> TV:
        v = await self.ev(node.expr)
        if v.is_primitive:
            raise _Fail(f"unexpected type: instanceof needs a reference, not {v.type}", node.expr.column)
        name = await self.type_ref(node.type)
        if jt.is_primitive(name):
            raise _Fail(f"unexpected type {name}: instanceof needs a class, interface or array type", node.type.column)
        result = await self.is_instance(v, name)
        if result and node.binding_name:
            self.bindings[node.binding_name] = TV(name, v.value, v.tag, text=v.text)
        return prim("boolean", result)

    async def cast(self, node: A.Cast) -> TV:
        v = await self.ev(node.expr)
        name = await self.type_ref(node.type)
        column = node.column
        if jt.is_primitive(name):
            if v.is_ref:
                if v.is_null:
                    raise _Fail(f"threw java.lang.NullPointerException: cannot unbox null to {name}", column)
                v = await self.unbox(v, column, f"a cast to {name}")
            try:
                return from_jvalue(S.cast(name, v.jvalue()))
            except S.JavaTypeError as e:
                raise _Fail(str(e), column) from None
        if v.is_void:
            raise _Fail("'void' cannot be cast", column)
        if v.is_primitive:
            boxed = jt.box(v.type)  # type: ignore[arg-type]
            if name == boxed or await self.E.is_subtype(boxed, name):  # type: ignore[arg-type]
                result = await self.box(v, column)
                return TV(name, result.value, result.tag)
            raise _Fail(f"incompatible types: {v.type} cannot be converted to {name}", column)
        if v.is_null:
            return TV(name, 0, tag_for_type(name))
        if not await self.is_instance(v, name):
            actual = STRING if v.value is None else (await self.runtime_type(v)).name
            raise _Fail(f"threw java.lang.ClassCastException: class {actual} cannot be cast to class {name}", column)
        return TV(name, v.value, v.tag, text=v.text)

    async def assignment(self, node: A.Assign) -> TV:
        place = await self.place(node.target)
        if node.op == "=":
            value = await self.ev(node.value)
            return await self.store(place, value, node.op_column)
        old = await self.load(place, node.target.column)
        rhs = await self.ev(node.value)
        op = node.binary_op
        if op == "+" and (place.type == STRING or await self.is_string(old)):
            return await self.store(place, string(await self.to_text(old, node.op_column) +
                                                  await self.to_text(rhs, node.op_column)), node.op_column)
        declared = place.type or ""
        num_old = await self.unbox(old, node.op_column, f"operator '{node.op}'")
        num_rhs = await self.unbox(rhs, node.op_column, f"operator '{node.op}'")
        try:
            result = from_jvalue(S.compound_assign(node.op, num_old.jvalue(), num_rhs.jvalue()))
        except S.JavaArithmeticError as e:
            raise _Fail(e.describe(), node.op_column) from None
        except S.JavaTypeError as e:
            raise _Fail(str(e), node.op_column) from None
        if jt.unbox(declared):  # Integer x; x += 1 -> box again
            result = from_jvalue(S.cast(jt.unbox(declared), result.jvalue()))  # type: ignore[arg-type]
        result.constant = True  # the implicit cast of a compound assignment narrows
        return await self.store(place, result, node.op_column)


def _nested_form(qualified: str) -> str:
    """'a.b.Outer.Inner' -> 'a.b.Outer$Inner' (a guess used for imports of nested classes)."""
    parts = qualified.split(".")
    for i, p in enumerate(parts):
        if p[:1].isupper():
            return ".".join(parts[: i + 1]) + "".join("$" + x for x in parts[i + 1:])
    return qualified


def _raise(fail: _Fail) -> str:
    raise fail


# Re-exported for the tests and the bench: the tag of each primitive name.
PRIMITIVE_TAGS = TAG_OF_PRIM
__all__ += ["PRIMITIVE_TAGS"]
