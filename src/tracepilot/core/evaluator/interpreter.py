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

The interpreter is split by concern: context.py (the evaluation context and dispatch), names.py,
calls.py (members and calls), objects.py (objects and arrays), operators.py.

Static types follow Java where the debugger knows them (locals, fields, return types, casts); a
member missing from the static type is looked up in the runtime type too, because erased generics
(``list.get(0).length()``) are what people type in a debugger.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ...jdwp import (
    JdwpError,
    StackFrame,
    ThreadReference,
    Value,
)
from ..errors import EvaluationError
from ..sources import read_text
from . import ast as A
from . import types as jt
from .calls import Calls
from .context import (
    IMPORT_RE,
    OBJECT_CLASS,
    ContextBase,
    EvalFailure,
    Imports,
    Plan,
    collect_names,
    describe_jdwp,
    evaluation_error,
    syntax_error,
)
from .names import Names
from .objects import Objects
from .operators import Operators
from .parse import ExpressionSyntaxError, parse_expression
from .template import TemplateError, split_template
from .values import (
    TAG_OF_PRIM,
    from_jdwp,
    sig_byte,
)

if TYPE_CHECKING:
    from ..vm import FieldInfo, MethodInfo, TypeInfo, VariableSlot, Vm


__all__ = ["Evaluator"]

class Evaluator:
    """The expression evaluator of one session (see the module docstring)."""

    invoke_timeout = 10.0

    def __init__(self, session: Any) -> None:
        self.session = session
        self._plans: dict[tuple, tuple[MethodInfo, Plan]] = {}  # per method version (see _context)
        self._live: dict[tuple[int, int, int], tuple[MethodInfo, dict[str, VariableSlot]]] = {}
        self.type_names: dict[tuple[int, str], TypeInfo] = {}
        self.known_subtypes: dict[tuple[str, str], bool] = {}
        self._imports: dict[int, Imports] = {}
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
        self.type_names.clear()
        self.known_subtypes.clear()
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
            raise syntax_error(e) from None

    def validate_template(self, template: str) -> None:
        """Raise EvaluationError if a logpoint template or one of its expressions is malformed."""
        for part in self._template_parts(template):
            if isinstance(part, tuple):
                self._parse_part(part[0], part[1], template)

    async def evaluate(self, text: str, thread_id: int, frame_index: int = 0,
                       extra: dict[str, Value] | None = None, allow_side_effects: bool = True, *,
                       frame: int | None = None, created: set[int] | None = None) -> Value:
        """Evaluate ``text`` in a frame of a suspended thread; the result as a JDWP value (a String
        the expression built is created in the target; void methods give a VOID value).
        ``frame`` is an alias of ``frame_index``. Objects the evaluation created (and kept from collection
        while it ran) are released when it ends; their ids are added to ``created`` when given."""
        if frame is not None:
            frame_index = frame
        node = self._parse(text)
        ctx = await self._context(thread_id, frame_index, extra, allow_side_effects, text, node)
        value: Value | None = None
        try:
            value = await ctx.to_jdwp(await ctx.ev(node))
            return value
        except EvalFailure as f:
            raise evaluation_error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{describe_jdwp(e, thread_id, frame_index)} (evaluating {text!r})") from None
        finally:
            if created is not None:
                created.update(ctx.created)
            ctx.release(keep=value.value if value is not None and value.is_object else None)

    async def assign(self, target_text: str, value_text: str, thread_id: int, frame_index: int = 0) -> Value:
        """``target = value`` (set_value): a local, field, static or array element; returns the stored value."""
        target = self._parse(target_text)
        if not isinstance(target, A.Name | A.AmbiguousName | A.FieldAccess | A.ArrayAccess):
            raise evaluation_error(EvalFailure("cannot assign to this: expected a variable, field or array element", 0),
                         target_text)
        value = self._parse(value_text)
        ctx = await self._context(thread_id, frame_index, None, True, target_text, target, value,
                                  key_text=f"{target_text}\x00{value_text}")
        text = target_text
        result: Value | None = None
        try:
            ctx.require_side_effects("assignment", 0)
            place = await ctx.place(target)
            text = value_text
            new = await ctx.ev(value)
            text = target_text
            stored = await ctx.store(place, new, target.column)
            result = await ctx.to_jdwp(stored)
            return result
        except EvalFailure as f:
            raise evaluation_error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{describe_jdwp(e, thread_id, frame_index)} (assigning {target_text!r})") from None
        finally:
            ctx.release(keep=result.value if result is not None and result.is_object else None)

    async def condition(self, text: str, thread_id: int, extra: dict[str, Value] | None = None, *,
                        frame: int = 0) -> bool:
        """A breakpoint condition in the top frame (`frame`: the program's, below an in-JVM probe's frames):
        True/False, or EvaluationError (never a silent skip)."""
        node = self._parse(text)
        allow = not getattr(self.session, "read_only", False)
        ctx = await self._context(thread_id, frame, extra, allow, text, node)
        try:
            result = await ctx.ev(node)
            return await ctx.truth(result, node.column, "a condition")
        except EvalFailure as f:
            raise evaluation_error(f, f.text or text) from None
        except JdwpError as e:
            raise EvaluationError(f"{describe_jdwp(e, thread_id, frame)} (condition {text!r})") from None
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
                except EvalFailure as f:
                    out.append(f"<error: {f.message}>")
                except JdwpError as e:
                    out.append(f"<error: {describe_jdwp(e, thread_id, 0)}>")
        finally:
            ctx.release()
        return "".join(out)

    # -- parsing -------------------------------------------------------------------------------------

    @staticmethod
    def _parse(text: str) -> A.Expr:
        try:
            return parse_expression(text)
        except ExpressionSyntaxError as e:
            raise syntax_error(e) from None

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
            # (Keyed by code index, and kept only for the same version of the method: the debugger's own
            # redefinitions, in-JVM probes and traces, move the code, and the VM's tables are fetched afresh.)
            key = (ctx.location.class_id, ctx.location.method_id, ctx.location.index)
            known, live = self._live.get(key, (None, None))
            if live is None or known is not method:
                live = {}
                for s in method.variables or ():
                    if s.live_at(ctx.location.index) and (s.name not in live or s.start >= live[s.name].start):
                        live[s.name] = s
                self._live[key] = (method, live)
            ctx.live = live
            plan_key = (plan_text, *key)
            known, plan = self._plans.get(plan_key, (None, None))
            if plan is None or known is not method:
                names: set[str] = set()
                need_this = [False]
                for n in nodes:
                    collect_names(n, names, need_this)
                slots = [live[n] for n in sorted(names) if n in live]
                need_this_flag = need_this[0] or any(n not in live and not n.startswith("$") for n in names)
                plan = Plan(slots, need_this_flag and not method.is_static)
                if len(self._plans) > 4096:
                    self._plans.clear()
                self._plans[plan_key] = (method, plan)
            await ctx.prefetch(plan)
            if frame_index == 0:
                self._remember_frame(ctx, plan_text, plan)
        except JdwpError as e:
            raise EvaluationError(describe_jdwp(e, thread_id, frame_index)) from None
        except EvalFailure as f:
            raise evaluation_error(f, text) from None
        return ctx

    # A breakpoint condition is evaluated at the same place hit after hit, and a JVM numbers frame ids
    # so that the top frame's id moves by the same step between such hits. So the values are asked for
    # with the predicted frame id in the same burst as ThreadReference.Frames: one round trip instead of
    # two. The answer is used only when Frames confirms the id and the location; else the normal path.
    def _remember_frame(self, ctx: _Ctx, plan_text: str, plan: Plan) -> None:
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
            raise EvalFailure(f"thread {ctx.thread} has no frames", None)
        frame = reply.frames[0]
        here = await self.vm.readable_location(ctx.thread, 0, frame.location)
        ctx.frame_id, ctx.location, ctx.initial_frame_id = frame.frame_id, here, frame.frame_id
        hit = frame.frame_id == predicted and here == location \
            and await self.vm.variables(here.class_id, here.method_id) is method  # (not since redefined)
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

    async def invoking(self, thread_id: int, what: str) -> contextlib.AbstractAsyncContextManager:
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
        if key in self.type_names:
            return self.type_names[key]
        found = await self.vm.classes_by_name(name)
        if not found:
            return None
        self.type_names[key] = found[0]
        return found[0]

    async def is_subtype(self, sub: str, sup: str) -> bool:
        """Reference subtyping by Java names (sub must be loaded to be a subtype of anything else)."""
        if sub == sup or sup == OBJECT_CLASS:
            return True
        key = (sub, sup)
        if key in self.known_subtypes:
            return self.known_subtypes[key]
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
        self.known_subtypes[key] = result
        return result

    async def imports(self, type_id: int) -> Imports:
        found = self._imports.get(type_id)
        if found is not None:
            return found
        result = Imports()
        info = await self.vm.type(type_id)
        outer = info.name.split("$", 1)[0]
        result.package = outer.rpartition(".")[0]
        sources = getattr(self.session, "sources", None)
        if sources is not None:
            try:
                source_file = await self.vm.source_file(type_id)
                path = sources.find(info.name, source_file)
                text = read_text(path) if path else ""  # (bounded, and cached with the views')
            except Exception:  # noqa: BLE001 - no source is a normal case, not an error
                text = ""
            for static, name in IMPORT_RE.findall(text):
                if static:
                    continue
                if name.endswith(".*"):
                    result.on_demand.append(name[:-2])
                else:
                    result.single[name.rpartition(".")[2]] = name
        self._imports[type_id] = result
        return result




class _Ctx(Names, Calls, Objects, Operators, ContextBase):
    """One evaluation: a thread, a frame, the values read so far, objects created meanwhile."""



# Re-exported for the tests and the bench: the tag of each primitive name.
PRIMITIVE_TAGS = TAG_OF_PRIM
__all__ += ["PRIMITIVE_TAGS"]
