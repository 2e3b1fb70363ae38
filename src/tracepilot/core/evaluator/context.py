"""One evaluation's context (`ContextBase`): the thread and frame, `this`, conversions between the
interpreter's values and JDWP's, and the dispatch over node kinds; plus what every part of the
interpreter shares (failures, places, plans, imports). The other parts are mixins over it: names.py,
calls.py, objects.py, operators.py."""


from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ...jdwp import (
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
from ..errors import EvaluationError, refused
from . import ast as A
from . import semantics as S
from . import types as jt
from .parse import ExpressionSyntaxError
from .values import (
    NULL,
    STRING,
    TV,
    from_jdwp,
    from_jvalue,
    prim,
    sig_byte,
    string,
)

if TYPE_CHECKING:
    from ..vm import FieldInfo, MethodInfo, TypeInfo, VariableSlot, Vm

OBJECT_CLASS = "java.lang.Object"
STRING_SUPERS = frozenset({STRING, OBJECT_CLASS, "java.lang.CharSequence", "java.lang.Comparable",
                            "java.io.Serializable", "java.lang.constant.Constable",
                            "java.lang.constant.ConstantDesc"})
IMPORT_RE = re.compile(r"^\s*import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;", re.MULTILINE)
_PACKAGE_RE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


MAX_CREATED_STRING = 65536  # characters of one String the evaluator creates in the target


class EvalFailure(Exception):
    """An evaluation failure at a column of the text being evaluated (converted to EvaluationError)."""

    def __init__(self, message: str, column: int | None = 0, exception: Value | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.exception = exception
        self.text: str | None = None


def evaluation_error(fail: EvalFailure, text: str) -> EvaluationError:
    message = fail.message
    if fail.column is not None and text and fail.exception is None:
        col = max(0, min(fail.column, len(text)))
        message = f"{message} at column {col}\n{text}\n{' ' * col}^"
    err = EvaluationError(message)
    err.column = fail.column  # type: ignore[attr-defined]
    err.exception = fail.exception  # type: ignore[attr-defined]
    return err


def syntax_error(e: ExpressionSyntaxError) -> EvaluationError:
    err = EvaluationError(str(e))
    err.column = e.column  # type: ignore[attr-defined]
    err.exception = None  # type: ignore[attr-defined]
    return err


@dataclass(slots=True)
class Plan:
    """What an expression needs at one code location: cached across condition hits."""

    slots: list[VariableSlot]
    need_this: bool


@dataclass(slots=True)
class Place:
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
class Imports:
    package: str = ""
    single: dict[str, str] = field(default_factory=dict)  # simple name -> qualified
    on_demand: list[str] = field(default_factory=list)  # packages / types ending in .*



def collect_names(node: Any, names: set[str], need_this: list[bool]) -> None:
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
                collect_names(child, names, need_this)
            elif isinstance(child, tuple):
                for c in child:
                    if isinstance(c, A.Expr):
                        collect_names(c, names, need_this)


def describe_jdwp(e: JdwpError, thread_id: int, frame_index: int) -> str:
    code = e.code
    if code == ErrorCode.THREAD_NOT_SUSPENDED:
        return f"thread {thread_id} is running: evaluation needs a suspended thread (pause it or wait for a stop)"
    if code == ErrorCode.INVALID_THREAD:
        return f"thread {thread_id} does not exist (any more)"
    if code in (ErrorCode.INVALID_INDEX, ErrorCode.INVALID_LENGTH):
        return f"there is no frame {frame_index} on thread {thread_id}"
    return refused(e, "the evaluation")


def _exception_name(info: TypeInfo) -> str:
    return info.name


class EvaluatorFacts(Protocol):
    """What one evaluation asks of the evaluator that runs it (interpreter.py's `Evaluator`, which sits above
    this module and hands itself in): the session, the VM, type facts cached across evaluations, and the
    invocation bookkeeping."""

    session: Any
    invoke_timeout: float
    type_names: dict[tuple[int, str], TypeInfo]
    known_subtypes: dict[tuple[str, str], bool]

    @property
    def vm(self) -> Vm: ...

    async def imports(self, type_id: int) -> Imports: ...

    async def supertypes(self, type_id: int) -> list[int]: ...

    async def find_field(self, type_id: int, name: str, static_only: bool = False) -> FieldInfo | None: ...

    async def type_by_name(self, name: str) -> TypeInfo | None: ...

    async def is_subtype(self, sub: str, sup: str) -> bool: ...

    async def invoking(self, thread_id: int, what: str) -> contextlib.AbstractAsyncContextManager: ...


class ContextBase:
    """One evaluation: a thread, a frame, the values read so far, objects created meanwhile."""

    def __init__(self, ev: EvaluatorFacts, thread: int, frame_index: int, extra: dict[str, Value],
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
            raise EvalFailure(f"there is no frame {self.frame_index} on thread {self.thread}", None)
        frame = reply.frames[0]
        location = await self.vm.readable_location(self.thread, self.frame_index, frame.location)
        if self.location is not None and location != self.location:
            raise EvalFailure("the frame changed during the evaluation", None)
        self.frame_id, self.location = frame.frame_id, location
        if self.initial_frame_id is None:
            self.initial_frame_id = frame.frame_id

    async def frame(self) -> int:
        if self.frame_id is None:  # stale after an invocation: re-fetch
            await self.load_frame()
        return self.frame_id  # type: ignore[return-value]

    async def prefetch(self, plan: Plan) -> None:
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

    def release(self, keep: int | None = None) -> None:
        """Let the target collect the objects this evaluation created (sent, not awaited). Re-enabling
        collection is not enough: the JVM's agent holds every object it created for us until its id is
        disposed (DisposeObjects), so ids are disposed too, all but `keep` (the result the caller still
        reads; see Values.mark_transient)."""
        disposed = [(oid, 1) for oid in self.created if oid != keep]
        for oid in self.created:
            self._fire(ObjectReference.EnableCollection, oid)
        if disposed:
            self._fire(VirtualMachine.DisposeObjects, disposed)
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
            raise EvalFailure(f"{what} is not allowed here: side effects are disabled ({self.why})", column)

    # -- conversions ---------------------------------------------------------------------------------

    async def to_jdwp(self, tv: TV) -> Value:
        if tv.is_ref and tv.value is None:
            await self.materialize(tv)
        return tv.to_jdwp()

    async def materialize(self, tv: TV) -> TV:
        """Create a String computed here in the target (CreateString), at most MAX_CREATED_STRING chars:
        it lives in the target's heap (a -Xmx32m program is not ours to fill)."""
        if tv.is_ref and tv.value is None:
            if tv.text is not None and len(tv.text) > MAX_CREATED_STRING:
                raise EvalFailure(f"a string of {len(tv.text)} characters is too long to create in the target "
                            f"(at most {MAX_CREATED_STRING})", None)
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

    def secret_learner(self) -> Any:
        """Under --redact, what learns the secrets values hold (core/inspect/secret_values.py); else None."""
        session = self.E.session
        if not getattr(session, "redact", False):
            return None
        getter = getattr(getattr(session, "inspector", None), "secret_learner", None)
        return getter() if getter is not None else None

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
        """A primitive for a primitive or a wrapper object; EvalFailure otherwise."""
        if tv.is_primitive:
            return tv
        if tv.is_null:
            raise EvalFailure("threw java.lang.NullPointerException" + (f": {what} on null" if what else ""), column)
        name = tv.type if tv.type and jt.unbox(tv.type) else (await self.runtime_type(tv)).name
        p = jt.unbox(name)
        if p is None:
            raise EvalFailure(f"bad operand type {name}" + (f" for {what}" if what else "") + ": not a number, char or boolean",
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
            return "void" if for_display else _raise(EvalFailure("'void' cannot be converted to a string", column))
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
            raise EvalFailure(f"converting a {info.name} to a string calls its toString(), which is not allowed "
                        "here: side effects are disabled (read-only session)", column)
        method = await self._find_method(info, "toString", [], column, instance=True)
        result = await self.invoke(method, tv, [], column)
        return "null" if result.is_null else await self.string_text(result)

    async def truth(self, tv: TV, column: int, what: str) -> bool:
        if tv.is_ref and not tv.is_null and tv.type in (None, "java.lang.Boolean", OBJECT_CLASS) \
                and (await self.runtime_type(tv)).name == "java.lang.Boolean":
            tv = await self.unbox(tv, column)
        if tv.type != "boolean":
            shown = await self.type_name(tv) if tv.is_ref else tv.type
            raise EvalFailure(f"{what} must be boolean, but this is {shown}", column)
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
            raise EvalFailure(f"class {name} is not loaded in the target", column)
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
                    raise EvalFailure("'this' cannot be used in a static context", node.column)
                return this
            case A.This(qualifier=q):
                return await self.qualified_this(".".join(q), node.column)  # type: ignore[arg-type]
            case A.Super():
                raise EvalFailure("'super' must be followed by '.' and a field or method", node.column)
            case A.MethodCall():
                return await self.call(node)
            case A.New():
                return await self.new_object(node)
            case A.NewArray():
                return await self.new_array(node)
            case A.ArrayInitializer():
                raise EvalFailure("an array initializer needs 'new T[]'", node.column)
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
        raise EvalFailure(f"unsupported expression {type(node).__name__}", node.column)



def nested_form(qualified: str) -> str:
    """'a.b.Outer.Inner' -> 'a.b.Outer$Inner' (a guess used for imports of nested classes)."""
    parts = qualified.split(".")
    for i, p in enumerate(parts):
        if p[:1].isupper():
            return ".".join(parts[: i + 1]) + "".join("$" + x for x in parts[i + 1:])
    return qualified


def _raise(fail: EvalFailure) -> str:
    raise fail

