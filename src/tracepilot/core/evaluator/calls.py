"""Types, members and calls: resolving type names (imports, nested classes), instanceof, class literals,
method lookup with overload resolution, and invocation in the target (with its safety rules)."""


from __future__ import annotations

import asyncio
import contextlib
import re
from typing import TYPE_CHECKING

from ...jdwp import (
    ClassObjectReference,
    ClassType,
    InterfaceType,
    InvokeOptions,
    JdwpError,
    ObjectReference,
    ReferenceType,
    Tag,
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
    nested_form,
)
from .overloads import Candidate, NoApplicableMethodError, OverloadError, applicable_phase, resolve
from .values import (
    STRING,
    TV,
    from_jdwp,
    from_jvalue,
    prim,
    string,
)

if TYPE_CHECKING:
    from ..vm import MethodInfo, TypeInfo


class Calls(ContextBase):
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
        except EvalFailure:
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
        cached = self.E.type_names.get(key)
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
            heads += [q, nested_form(q)]
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
                self.E.type_names[key] = found[0]
                return found[0]
        if load and self.allow:  # not loaded yet: load it as the program would (Class.forName)
            for c in seen:
                info = await self._load_class(c)
                if info is not None:
                    self.E.type_names[key] = info
                    return info
        if not tail:  # last resort: a unique loaded class with that simple name
            matches = [t for t in await self.vm.all_classes()
                       if not t.is_array and re.split(r"[.$]", t.name)[-1] == head]
            names = sorted({t.name for t in matches})
            acquired = await self.vm.acquire(matches[:1]) if len(names) == 1 else []  # (a listed class: its ID)
            if acquired:
                self.E.type_names[key] = acquired[0]
                return acquired[0]
            if len(names) > 1 and not quiet:
                raise EvalFailure(f"class name '{name}' is ambiguous: {', '.join(names[:5])}; write the full name", column)
        if quiet:
            return None
        raise EvalFailure(f"cannot find class '{name}' (not loaded in the target, or not imported here)", column)

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
            return target in STRING_SUPERS
        info = await self.runtime_type(tv)
        if info.name == target or target == OBJECT_CLASS:
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
            raise EvalFailure(f"class {name} is not loaded in the target", column)
        reply = await self.conn.send(ReferenceType.ClassObject, info.id)
        return TV("java.lang.Class", reply.class_object, Tag.CLASS_OBJECT)

    # -- methods -------------------------------------------------------------------------------------

    async def call(self, node: A.MethodCall) -> TV:
        name, column = node.name, node.name_column
        if node.is_super or isinstance(node.target, A.Super):
            this = await self.this_obj()
            if this is None:
                raise EvalFailure("'super' cannot be used in a static context", node.column)
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
            raise EvalFailure(f"non-static method {method.display()} cannot be referenced from the class {target.name}",
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
            obj = await self.load(Place("field", outer.type_name, obj=obj, field=outer), column)
            type_id = (await self.runtime_type(obj)).id
        for info in await self._enclosing_types():  # static methods of enclosing classes
            if await self._has_method(info, name):
                method, packed = await self._resolve(info, name, args, column, instance=False)
                if not method.is_static:
                    raise EvalFailure(f"non-static method {method.display()} cannot be referenced from a static context",
                                column)
                return await self.invoke(method, None, packed, column)
        raise EvalFailure(f"cannot find symbol: method {name}({', '.join([await self._arg_type(a) for a in args])})",
                    column)

    async def instance_call(self, target: TV, name: str, args: list[TV], column: int,
                            arg_nodes: tuple[A.Expr, ...] = ()) -> TV:
        if target.is_primitive:
            raise EvalFailure(f"{target.type} cannot be dereferenced", column)
        if target.is_null:
            raise EvalFailure(f"threw java.lang.NullPointerException: cannot invoke \"{name}()\" because the value is null",
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
                info = await self._need_type(OBJECT_CLASS, column)
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
            raise EvalFailure(f"cannot find symbol: method {name}({', '.join([await self._arg_type(a) for a in args])}) "
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
        return self.E.known_subtypes.get((sub, sup), False) if sub != sup else True

    async def _overload(self, cands: list[Candidate], arg_types: list[str], column: int | None,
                        where: str) -> Candidate:
        # resolve() asks subtype questions synchronously: answer the ones it asked, then run it again
        for _ in range(8):
            missing: set[tuple[str, str]] = set()

            def is_sub(sub: str, sup: str, missing: set = missing) -> bool:
                key = (sub, sup)
                if key in self.E.known_subtypes:
                    return self.E.known_subtypes[key]
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
                        raise EvalFailure(f"method {c} in {where} cannot be applied to ({', '.join(arg_types)})",
                                    column) from None
                    raise EvalFailure(msg[0] + (" in " + where if isinstance(error, NoApplicableMethodError) else "")
                                + ("; candidates: " + "; ".join(str(c) for c in cands[:6]) if
                                   isinstance(error, NoApplicableMethodError) else
                                   ": " + msg[-1].strip()), column) from None
                return chosen  # type: ignore[return-value]
            await asyncio.gather(*(self.E.is_subtype(a, b) for a, b in missing))
        raise EvalFailure(f"cannot decide which {cands[0].name} to call", column)

    async def _pass(self, tv: TV, param: str, column: int | None) -> Value:
        """An argument converted to its parameter type (overload resolution already checked it fits)."""
        if tv.is_primitive and jt.is_primitive(param):
            converted = from_jvalue(S.cast(param, tv.jvalue()))
        else:
            converted = await self.convert(tv, param, column, "an argument")
        await self.materialize(converted)
        return converted.to_jdwp()

    async def _refuse_leaks_under_redact(self, decl: TypeInfo, method: MethodInfo, obj: TV | None,
                                         args: list[Value], column: int | None) -> bool:
        """--redact masks by name; reflection and calls that print a whole object get around names
        (redaction.py). Answers whether the receiver or an argument holds a secret (each one is learned, so
        the output hides it whatever the call returns or throws)."""
        why = redaction.reflective_call(decl.name, method.name)
        if why is not None:
            raise EvalFailure(why, column)
        learner = self.secret_learner()
        if learner is None:
            return False
        receiver = obj.to_jdwp() if obj is not None and obj.is_ref and not obj.is_null else None
        holders = [(v, "the receiver" if v is receiver else "an argument") for v in (receiver, *args)
                   if v is not None and v.is_object and not v.is_null]
        found = None
        for value, role in holders:
            if await learner.reaches_secret(value):
                found = found or role
        if found is None:
            return False
        if redaction.prints_its_arguments(decl.name, method.name, bool(args)):
            raise EvalFailure(f"{decl.name}.{method.name}() is refused under --redact: {found} holds a secret-looking "
                        "field or map entry, and the call's answer can print all of it; inspect it instead "
                        "(secret-looking fields show <redacted>)", column)
        return True

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
            async with await self.E.invoking(self.thread, what) as call:
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
            raise EvalFailure(f"{decl.name}.{method.name}() did not return within {timeout:g}s (it may be waiting for a "
                        "lock another, suspended thread holds); the thread is still inside the call", column) from None
        except JdwpError as e:
            if e.code == ErrorCode.INVALID_THREAD:  # JDWP runs calls only in a thread an event suspended
                raise EvalFailure(f"cannot call {decl.name}.{method.display()} in this thread: it was paused, not "
                            "stopped at a breakpoint or step, and the JVM runs method calls only in threads "
                            "stopped by an event. Fields and locals read fine; to call methods, stop it at a "
                            "breakpoint (or a step) where it runs next, then evaluate again", column) from None
            raise EvalFailure(f"cannot call {decl.name}.{method.display()}: {e}", column) from None
        if reply.exception.value:
            raise EvalFailure(await self.describe_exception(reply.exception), column, exception=reply.exception)
        result = from_jdwp(reply.return_value, method.return_type)
        if result.is_ref and result.value:
            self._keep(result.value)
            if await self._derives_a_secret(method, obj, args):
                await self.secret_learner().learn(result.to_jdwp())
        return result

    async def _derives_a_secret(self, method: MethodInfo, obj: TV | None, args: list[Value]) -> bool:
        """Under --redact, whether a call's result is itself secret: a method with a secret-looking name
        (`getPassword()`), or a call on or with a secret text (`pw.trim()`). (A map's secret values come back
        as the objects learned before the call: `cfg.get("pass" + "word")` is known without a rule.)"""
        learner = self.secret_learner()
        if learner is None:
            return False
        if redaction.is_secret_name(method.name):
            return True
        book = learner.book
        direct = [v.value for v in args if v.is_object] + ([obj.value] if obj is not None and obj.is_ref else [])
        return any(book.is_secret_object(oid) for oid in direct)

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
                with contextlib.suppress(EvalFailure, JdwpError):
                    getter = await self._find_method(info, "getMessage", [], None, instance=True)
                    got = await self.invoke(getter, tv, [], None)
                    if not got.is_null:
                        message = await self.string_text(got)
            return f"threw {info.name}" + (f": {message}" if message else "")
        except JdwpError:
            return "threw an exception (its details could not be read)"

