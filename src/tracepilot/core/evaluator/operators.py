"""Operators: unary and binary arithmetic with Java semantics, ==/!= on objects, instanceof, casts and
assignment (compound ones narrow as Java does)."""


from __future__ import annotations

from . import ast as A
from . import semantics as S
from . import types as jt
from .context import (
    ContextBase,
    EvalFailure,
)
from .values import (
    STRING,
    TV,
    from_jvalue,
    prim,
    string,
    tag_for_type,
)


class Operators(ContextBase):
    # -- operators -----------------------------------------------------------------------------------

    async def unary(self, node: A.Unary) -> TV:
        if node.op in ("++", "--"):
            place = await self.place(node.operand)
            old = await self.load(place, node.operand.column)
            num = await self.unbox(old, node.column, f"operator '{node.op}'")
            try:
                new = from_jvalue(S.increment(num.jvalue(), 1 if node.op == "++" else -1))
            except S.JavaTypeError as e:
                raise EvalFailure(str(e), node.column) from None
            stored = await self.store(place, new, node.column)
            return old if node.postfix else stored
        v = await self.ev(node.operand)
        if v.is_ref:
            v = await self.unbox(v, node.column, f"unary operator '{node.op}'")
        try:
            return from_jvalue(S.unary(node.op, v.jvalue()))
        except S.JavaTypeError as e:
            raise EvalFailure(str(e), node.column) from None

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
            raise EvalFailure(f"'void' type not allowed here (operator '{op}')", column)
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
            raise EvalFailure(e.describe(), column) from None
        except S.JavaTypeError as e:
            raise EvalFailure(str(e), column) from None

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
            raise EvalFailure(f"unexpected type: instanceof needs a reference, not {v.type}", node.expr.column)
        name = await self.type_ref(node.type)
        if jt.is_primitive(name):
            raise EvalFailure(f"unexpected type {name}: instanceof needs a class, interface or array type", node.type.column)
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
                    raise EvalFailure(f"threw java.lang.NullPointerException: cannot unbox null to {name}", column)
                v = await self.unbox(v, column, f"a cast to {name}")
            try:
                return from_jvalue(S.cast(name, v.jvalue()))
            except S.JavaTypeError as e:
                raise EvalFailure(str(e), column) from None
        if v.is_void:
            raise EvalFailure("'void' cannot be cast", column)
        if v.is_primitive:
            boxed = jt.box(v.type)  # type: ignore[arg-type]
            if name == boxed or await self.E.is_subtype(boxed, name):  # type: ignore[arg-type]
                result = await self.box(v, column)
                return TV(name, result.value, result.tag)
            raise EvalFailure(f"incompatible types: {v.type} cannot be converted to {name}", column)
        if v.is_null:
            return TV(name, 0, tag_for_type(name))
        if not await self.is_instance(v, name):
            actual = STRING if v.value is None else (await self.runtime_type(v)).name
            raise EvalFailure(f"threw java.lang.ClassCastException: class {actual} cannot be cast to class {name}", column)
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
            raise EvalFailure(e.describe(), node.op_column) from None
        except S.JavaTypeError as e:
            raise EvalFailure(str(e), node.op_column) from None
        if jt.unbox(declared):  # Integer x; x += 1 -> box again
            result = from_jvalue(S.cast(jt.unbox(declared), result.jvalue()))  # type: ignore[arg-type]
        result.constant = True  # the implicit cast of a compound assignment narrows
        return await self.store(place, result, node.op_column)


