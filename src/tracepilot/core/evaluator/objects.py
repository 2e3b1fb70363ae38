"""Object and array creation: `new` with constructors (inner classes get their outer instance), array
allocation and initializers."""


from __future__ import annotations

from ...jdwp import (
    ArrayReference,
    ArrayType,
    ClassType,
    InvokeOptions,
    JdwpError,
    Tag,
)
from . import ast as A
from . import types as jt
from .context import (
    ContextBase,
    EvalFailure,
    Place,
)
from .overloads import Candidate
from .values import (
    TV,
)


class Objects(ContextBase):
    # -- object and array creation -------------------------------------------------------------------

    async def new_object(self, node: A.New) -> TV:
        name = await self.type_ref(node.type)
        if jt.is_primitive(name):
            raise EvalFailure(f"cannot instantiate the primitive type {name}", node.type.column)
        info = await self._need_type(name, node.type.column)
        if await self.is_interface(info):
            raise EvalFailure(f"{name} is an interface: it cannot be instantiated", node.type.column)
        if await self.modifiers(info) & 0x0400:
            raise EvalFailure(f"{name} is abstract: it cannot be instantiated", node.type.column)
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
                raise EvalFailure(f"{name} has no constructors", node.column)
            m, packed = await self._choose(ctors, "<init>", args, node.column, name)
        self.require_side_effects(f"new {name}()", node.column)
        try:
            async with await self.E.invoking(self.thread, f"new {name}()") as call:
                try:
                    reply = await call.send(ClassType.NewInstance, info.id, self.thread, m.id, packed,
                                            int(InvokeOptions.SINGLE_THREADED), timeout=self.E.invoke_timeout,
                                            what=f"new {name}()")
                finally:
                    self.frame_id = None
        except TimeoutError:
            raise EvalFailure(f"new {name}() did not return within {self.E.invoke_timeout:g}s", node.column) from None
        except JdwpError as e:
            raise EvalFailure(f"cannot create a {name}: {e}", node.column) from None
        if reply.exception.value:
            raise EvalFailure(await self.describe_exception(reply.exception), node.column, exception=reply.exception)
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
            obj = await self.load(Place("field", f.type_name, obj=obj, field=f), column)
            type_id = (await self.runtime_type(obj)).id
        raise EvalFailure(f"an enclosing instance of {outer_name} is needed to create this inner class", column)

    async def new_array(self, node: A.NewArray) -> TV:
        self.require_side_effects("creating an array", node.column)
        name = await self.type_ref(node.type)
        if node.initializer is not None:
            return await self._init_array(name, node.initializer)
        lengths = []
        for d in node.dims:
            n = await self.unbox(await self.ev(d), d.column, "an array size")
            if n.type not in ("int", "short", "char", "byte"):
                raise EvalFailure(f"incompatible types: an array size must be an int, not {n.type}", d.column)
            if n.value < 0:
                raise EvalFailure(f"threw java.lang.NegativeArraySizeException: {n.value}", d.column)
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
                    raise EvalFailure(f"illegal initializer for {elem}", e.column)
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
                raise EvalFailure(f"cannot create a {name}: its class cannot be loaded", column)
            self.E.type_names[(0, name)] = info
            reply = await self.conn.send(ArrayType.NewInstance, info.id, length)
            oid = reply.new_array.value
        self._keep(oid)
        return TV(name, oid, Tag.ARRAY)

