"""Names and places: simple names, fields, statics, `$` marks, qualifiers (a value or a type), loading,
storing and converting a value to a place's type."""


from __future__ import annotations

import difflib
import inspect
from typing import TYPE_CHECKING

from ...jdwp import (
    ArrayReference,
    ClassType,
    JdwpError,
    ObjectReference,
    ReferenceType,
    StackFrame,
    Value,
)
from ...jdwp.errors import ErrorCode
from . import ast as A
from . import redaction
from . import semantics as S
from . import types as jt
from .context import (
    OBJECT_CLASS,
    STRING_SUPERS,
    ContextBase,
    EvalFailure,
    Place,
)
from .values import (
    TV,
    from_jdwp,
    from_jvalue,
    prim,
    sig_byte,
    tag_for_type,
)

if TYPE_CHECKING:
    from ..vm import FieldInfo, TypeInfo


class Names(ContextBase):
    # -- names and places ----------------------------------------------------------------------------

    async def place(self, node: A.Expr) -> Place:
        match node:
            case A.Name(name=n):
                found = await self.simple_name(n, node.column)
                if found is None:
                    raise EvalFailure(f"cannot find symbol '{n}'{await self._symbol_hint(n)}", node.column)
                return found
            case A.AmbiguousName(parts=parts):
                head = await self.qualifier_parts(parts[:-1], node.column)
                if not isinstance(head, TV):
                    return await self.static_member(head, parts[-1], node.column)
                return await self.member(head, parts[-1], node.column)
            case A.FieldAccess(target=A.Super() as sup, name=n):
                this = await self.this_obj()
                if this is None:
                    raise EvalFailure("'super' cannot be used in a static context", sup.column)
                start = await self.vm.superclass(self.location.class_id)
                f = await self.E.find_field(start, n)
                if f is None:
                    raise EvalFailure(f"cannot find field '{n}' in the superclass", node.column)
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
                    raise EvalFailure(f"incompatible types: an array index must be an int, not {await self.type_name(idx)}",
                                i.column)
                idx = await self.unbox(idx, i.column, "an array index")
                if idx.type not in ("int", "short", "byte", "char"):
                    raise EvalFailure(f"incompatible types: an array index must be an int, not {idx.type}", i.column)
                if arr.is_null:
                    raise EvalFailure("threw java.lang.NullPointerException: cannot load from a null array", node.column)
                tname = await self.type_name(arr)
                if not tname.endswith("[]"):
                    tname = (await self.runtime_type(arr)).name
                    if not tname.endswith("[]"):
                        raise EvalFailure(f"array required, but {tname} found", a.column)
                return Place("element", tname[:-2], obj=arr, index=idx.value)
        raise EvalFailure("not a variable", node.column)

    async def simple_name(self, n: str, column: int) -> Place | None:
        if n in self.bindings:
            return Place("binding", self.bindings[n].type, name=n, value=self.bindings[n])
        if n.startswith("$"):
            value = await self.dollar(n)
            if value is not None:
                return Place("value", None, name=n, value=from_jdwp(value))
        slot = self.live.get(n)
        if slot is not None:
            return Place("local", slot.type_name, name=n, slot=slot)
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
                return Place("static", f.type_name, name=n, field=f)
        return None

    async def _symbol_hint(self, n: str) -> str:
        if self.location is not None and not self.location.method_id:  # JDWP's method id 0: a method version replaced by a redefinition
            return (" (this frame runs obsolete code: its class was redefined since, so its local variables "
                    "cannot be named; `this`, fields and statics can still be read)")
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

    async def _field_place(self, obj: TV | None, f: FieldInfo) -> Place:
        if f.is_static:
            return Place("static", f.type_name, name=f.name, field=f)
        return Place("field", f.type_name, name=f.name, obj=obj, field=f)

    async def member(self, target: TV, n: str, column: int) -> Place:
        """``target.n``: a field, or ``length`` of an array."""
        if target.is_primitive:
            raise EvalFailure(f"{target.type} cannot be dereferenced", column)
        if target.is_null:
            raise EvalFailure(f"threw java.lang.NullPointerException: cannot read field \"{n}\" because the value is null",
                        column)
        tname = await self.type_name(target)
        if tname.endswith("[]") or (n == "length" and (await self.runtime_type(target)).is_array):
            if n != "length":
                raise EvalFailure(f"cannot find symbol '{n}' in an array (arrays have only 'length')", column)
            reply = await self.conn.send(ArrayReference.Length, target.value)
            return Place("value", "int", name="length", value=prim("int", reply.array_length))
        f = None
        if target.type_id is not None:
            f = await self.E.find_field(target.type_id, n)
        if f is None:
            info = await self.runtime_type(target)
            f = await self.E.find_field(info.id, n)
        if f is None:
            raise EvalFailure(f"cannot find symbol: field '{n}' in {tname}", column)
        return await self._field_place(target, f)

    async def static_member(self, info: TypeInfo, n: str, column: int) -> Place:
        if n == "length" and info.is_array:
            raise EvalFailure("'length' needs an array value, not an array type", column)
        f = await self.E.find_field(info.id, n, static_only=True)
        if f is None:
            nonstatic = await self.E.find_field(info.id, n)
            if nonstatic is not None:
                raise EvalFailure(f"non-static field '{n}' cannot be referenced from the class {info.name}", column)
            raise EvalFailure(f"cannot find symbol: static field '{n}' in {info.name}", column)
        return Place("static", f.type_name, name=n, field=f)

    async def load(self, p: Place, column: int | None) -> TV:
        tv = await self._load(p, column)
        if p.name and tv.is_ref and not tv.is_null and redaction.is_secret_name(p.name):
            learner = self.secret_learner()  # under --redact: its text is hidden wherever it shows up later
            if learner is not None:
                await learner.learn(tv.to_jdwp())
        return tv

    async def _load(self, p: Place, column: int | None) -> TV:
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
                    raise EvalFailure(f"threw java.lang.ArrayIndexOutOfBoundsException: Index {p.index} out of bounds "
                                f"for length {n}", column) from None
                raise
            return from_jdwp(reply.values[0], p.type)
        raise EvalFailure("not a readable variable", column)

    async def store(self, p: Place, tv: TV, column: int) -> TV:
        self.require_side_effects("assignment", column)
        if p.kind in ("value",):
            raise EvalFailure(f"cannot assign a value to '{p.name}'", column)
        tv = await self.convert(tv, p.type or OBJECT_CLASS, column, "assignment")  # type: ignore[arg-type]
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
                        raise EvalFailure(f"threw java.lang.ArrayIndexOutOfBoundsException: Index {p.index} out of "
                                    f"bounds for length {n}", column) from None
                    raise
        except JdwpError as e:
            raise EvalFailure(f"the VM refused the assignment to '{p.name or 'element'}': {e}", column) from None
        return tv

    async def convert(self, tv: TV, target: str, column: int | None, context: str) -> TV:
        """Assignment conversion (JLS 5.2) of a value to a variable or parameter of type ``target``."""
        if jt.is_primitive(target):
            if tv.is_null:
                raise EvalFailure(f"incompatible types: <null> cannot be converted to {target}", column)
            if tv.is_ref:
                if await self.is_string(tv):
                    raise EvalFailure(f"incompatible types: String cannot be converted to {target}", column)
                tv = await self.unbox(tv, column)
            try:
                return from_jvalue(S.assign_convert(target, tv.jvalue(), constant=tv.constant))
            except S.JavaTypeError as e:
                raise EvalFailure(str(e), column) from None
        if tv.is_void:
            raise EvalFailure(f"'void' cannot be used in {context}", column)
        if tv.is_primitive:
            wrapper_prim = jt.unbox(target)
            if wrapper_prim is not None:
                if wrapper_prim != tv.type:
                    try:
                        converted = S.assign_convert(wrapper_prim, tv.jvalue(), constant=tv.constant)
                    except S.JavaTypeError:
                        raise EvalFailure(f"incompatible types: {tv.type} cannot be converted to {target}", column) from None
                    if tv.type not in ("int", "short", "char", "byte") or not tv.constant:
                        raise EvalFailure(f"incompatible types: {tv.type} cannot be converted to {target}", column)
                    tv = from_jvalue(converted)
                return await self.box(tv, column, target)
            boxed = jt.box(tv.type)  # type: ignore[arg-type]
            if not await self.E.is_subtype(boxed, target):  # type: ignore[arg-type]
                raise EvalFailure(f"incompatible types: {tv.type} cannot be converted to {target}", column)
            return await self.box(tv, column)
        if tv.is_null:
            return TV(target, 0, tag_for_type(target))
        if tv.value is None:  # a String computed here
            if target not in STRING_SUPERS:
                raise EvalFailure(f"incompatible types: String cannot be converted to {target}", column)
            return tv
        if not await self.is_instance(tv, target):
            actual = (await self.runtime_type(tv)).name
            raise EvalFailure(f"incompatible types: {actual} cannot be converted to {target}", column)
        return tv

    # -- qualifiers: a value or a type ---------------------------------------------------------------

    async def qualifier(self, node: A.Expr) -> TV | TypeInfo:
        if isinstance(node, A.Name):
            found = await self.simple_name(node.name, node.column)
            if found is not None:
                return await self.load(found, node.column)
            info = await self.resolve_type(node.name, node.column, quiet=True)
            if info is None:
                raise EvalFailure(f"cannot find symbol '{node.name}' (not a variable or a class)"
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
                    raise EvalFailure(f"cannot find symbol '{parts[0]}' (not a variable or a class)"
                                f"{await self._symbol_hint(parts[0])}", column)
                raise EvalFailure(f"cannot find symbol '{parts[0]}': not a variable, and no loaded class "
                            f"{'.'.join(parts)}", column)
        for part in rest:
            if isinstance(cur, TV):
                cur = await self.load(await self.member(cur, part, column), column)
                continue
            f = await self.E.find_field(cur.id, part, static_only=True)
            if f is not None:
                cur = await self.load(Place("static", f.type_name, name=part, field=f), column)
                continue
            nested = await self.E.type_by_name(f"{cur.name}${part}")
            if nested is None:
                raise EvalFailure(f"cannot find symbol '{part}' in {cur.name} (no static field or nested class)", column)
            cur = nested
        return cur

    async def qualified_this(self, name: str, column: int) -> TV:
        info = await self.resolve_type(name, column)
        obj = await self.this_obj()
        if obj is None:
            raise EvalFailure(f"'{name}.this' cannot be used in a static context", column)
        type_id = self.location.class_id
        for _ in range(16):
            if await self.vm.is_assignable(type_id, info.name):
                return TV(info.name, obj.value, obj.tag)
            outer = await self.E.find_field(type_id, "this$0")
            if outer is None:
                break
            obj = await self.load(Place("field", outer.type_name, obj=obj, field=outer), column)
            type_id = (await self.runtime_type(obj)).id
        raise EvalFailure(f"not an enclosing class: {name}", column)

