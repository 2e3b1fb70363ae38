"""Compile a condition (the evaluator's AST) to JVM bytecode with Java's static semantics.

Two passes: ``Checker`` types the tree (names resolved against the breakpoint's locals and class, members
and overloads through a ``Resolver``) and inserts the implicit conversions; ``Emitter`` (emit.py) writes the code.
The shapes both passes share are in shapes.py.
What the probe cannot reach from another class is a *capture*: a local, ``this``, a field of ``this`` or a
static of the breakpoint's class, loaded by the instructions inserted in the user's method and passed to
the probe as an argument. Loading a capture never throws, so the inserted code cannot change what the
program does.

Covered: literals, locals, ``this``, fields (private ones of the class too), statics, arithmetic, shifts,
bitwise operators and comparisons with Java's promotions (NaN, integer overflow, division by zero throwing),
``&&`` ``||`` ``!`` ``?:``, ``== null``, ``instanceof``, string concatenation, casts, array length and
elements, boxing and unboxing, and calls of accessible methods (``equals`` among them). Anything else
raises NotCompilable with the reason: the breakpoint then uses the round-trip path.
"""

from __future__ import annotations

from ..evaluator import ast as A
from .assemble import return_descriptor, split_arguments
from .shapes import (
    ACC_PRIVATE,
    ACC_PUBLIC,
    ACC_STATIC,
    BOX_OF,
    BOXES,
    NULL,
    NUMERIC,
    OBJECT,
    PRIMITIVES,
    STRING,
    WIDENS,
    Capture,
    ClassShape,
    MemberShape,
    NotCompilable,
    Resolver,
    Site,
    Typed,
    TypeNotLoaded,
    binary_promotion,
    class_of_descriptor,
    descriptor_of_class,
    is_reference,
    package_of,
    unboxed,
)

__all__ = ["Capture", "Checker", "ClassShape", "MemberShape", "NotCompilable", "Resolver", "Site", "TypeNotLoaded",
           "Typed"]


class Checker:
    def __init__(self, site: Site, resolver: Resolver, every_local: bool = False) -> None:
        self.site = site
        self.resolver = resolver
        self.captures: list[Capture] = []
        if every_local:
            # Every live local (and `this`) is passed, used or not: a later condition on other locals then has
            # the same probe signature, and changing it redefines only the probe, never the running method.
            for _name, (slot, descriptor) in sorted(site.locals.items(), key=lambda item: item[1][0]):
                if slot == 0 and not site.is_static:
                    continue
                self.captures.append(Capture("local", descriptor, slot=slot))
            if not site.is_static and site.this_usable:
                self.captures.insert(0, Capture("this", descriptor_of_class(site.class_name)))

    # -- entry points ----------------------------------------------------------------------------

    async def condition(self, node: A.Expr) -> Typed:
        typed = await self.expr(node)
        if unboxed(typed.type) != "Z":
            raise NotCompilable(f"the condition is a {readable(typed.type)}, not a boolean")
        return self.convert(typed, "Z")

    async def text(self, node: A.Expr) -> Typed:
        """A logpoint part: only types whose text is the same as the debugger's rendering."""
        typed = await self.expr(node)
        if typed.type not in ("I", "J", "S", "B", "Z", STRING):
            raise NotCompilable(f"a {readable(typed.type)} in a log message is formatted by the debugger (its own "
                                "toString(), else its fields), the same text in both modes")
        return typed

    # -- captures ----------------------------------------------------------------------------------

    def capture(self, capture: Capture) -> Typed:
        if capture not in self.captures:
            self.captures.append(capture)
        return Typed("capture", capture.descriptor, value=self.captures.index(capture))

    def this(self) -> Typed:
        if self.site.is_static:
            raise NotCompilable("'this' in a static method")
        if not self.site.this_usable:
            raise NotCompilable("'this' before the constructor called super()")
        return self.capture(Capture("this", descriptor_of_class(self.site.class_name)))

    # -- expressions -------------------------------------------------------------------------------

    async def expr(self, node: A.Expr) -> Typed:
        match node:
            case A.Literal():
                return self.literal(node)
            case A.Name():
                return await self.name(node.name)
            case A.AmbiguousName():
                return await self.ambiguous(node.parts)
            case A.This(qualifier=None):
                return self.this()
            case A.FieldAccess():
                if isinstance(node.target, A.This) and node.target.qualifier is None:
                    return await self.own_field(node.name, required=True)  # type: ignore[return-value]
                return await self.field_of(await self.expr(node.target), node.name)
            case A.ArrayAccess():
                array = await self.expr(node.array)
                if not array.type.startswith("["):
                    raise NotCompilable(f"indexing a {readable(array.type)}")
                index = self.convert(await self.numeric(node.index), "I", "an array index")
                return Typed("aload", array.type[1:], [array, index])
            case A.Unary(op=op, postfix=False) if op in ("+", "-", "~", "!"):
                return await self.unary(op, node.operand)
            case A.Binary():
                return await self.binary(node)
            case A.Conditional():
                return await self.conditional(node)
            case A.InstanceOf(binding_name=None):
                value = await self.expr(node.expr)
                if not is_reference(value.type):
                    raise NotCompilable("instanceof on a primitive")
                target = await self.type_ref(node.type)
                if not is_reference(target):
                    raise NotCompilable("instanceof a primitive type")
                return Typed("instanceof", "Z", [value], class_of_descriptor(target))
            case A.Cast():
                return await self.cast(node)
            case A.MethodCall(is_super=False):
                return await self.call(node)
        raise NotCompilable(f"{describe(node)} is evaluated by the debugger")

    def literal(self, node: A.Literal) -> Typed:
        kinds = {"int": "I", "long": "J", "float": "F", "double": "D", "char": "C", "boolean": "Z",
                 "String": STRING, "null": NULL}
        return Typed("const", kinds[node.type], value=node.value)

    async def name(self, name: str) -> Typed:
        if name in self.site.marks:
            return self.capture(self.site.marks[name])
        if name.startswith("$"):
            raise NotCompilable(f"'{name}' is the debugger's")
        if name in self.site.locals:
            slot, descriptor = self.site.locals[name]
            return self.capture(Capture("local", descriptor, slot=slot))
        found = await self.own_field(name, required=False)
        if found is not None:
            return found
        if not self.site.has_variable_table:
            raise NotCompilable(f"'{name}' is no field, and the method has no local variable table (compile with -g)")
        raise NotCompilable(f"'{name}' is not a local or a field here")

    async def own_field(self, name: str, required: bool) -> Typed | None:
        """A field of the breakpoint's class or an accessible inherited one, captured in the user's method."""
        owner = self.site.class_name
        own = True
        while owner:
            shape = await self.shape(owner)
            member = next((f for f in shape.fields if f.name == name), None)
            if member is not None and (own or not member.access & ACC_PRIVATE):
                if member.access & ACC_STATIC:
                    return self.capture(Capture("static", member.descriptor, owner=self.site.class_name, name=name))
                self.this()
                return self.capture(Capture("field", member.descriptor, owner=self.site.class_name, name=name))
            owner, own = shape.superclass or "", False
        if required:
            raise NotCompilable(f"no field '{name}' in {readable_class(self.site.class_name)}")
        return None

    async def ambiguous(self, parts: tuple[str, ...]) -> Typed:
        first = parts[0]
        if first in self.site.locals or await self.own_field(first, required=False) is not None:
            value = await self.name(first)
            rest = parts[1:]
        else:
            value, rest = None, ()
            for k in range(len(parts) - 1, 0, -1):
                cls = await self.find_class(".".join(parts[:k]))
                if cls is not None:
                    value = await self.static_field(cls, parts[k])
                    rest = parts[k + 1:]
                    break
            if value is None:  # (or a class not loaded yet: compilable once one of them loads)
                classes = tuple(c for k in range(len(parts) - 1, 0, -1)
                                for c in self.class_candidates(".".join(parts[:k])))
                raise TypeNotLoaded(f"'{'.'.join(parts)}' names no local, field or class here (a class not loaded "
                                    "yet?)", classes)
        for part in rest:
            value = await self.field_of(value, part)
        return value

    async def static_field(self, cls: str, name: str) -> Typed:
        if cls == self.site.class_name:
            found = await self.own_field(name, required=True)
            assert found is not None
            return found
        owner, member = await self.member(cls, name, fields=True)
        if not member.access & ACC_STATIC:
            raise NotCompilable(f"{name} is not static")
        self.check_access(owner, member)
        return Typed("getstatic", member.descriptor, value=(owner, name, member.descriptor))

    async def field_of(self, target: Typed, name: str) -> Typed:
        if target.type.startswith("["):
            if name != "length":
                raise NotCompilable(f"arrays have no field '{name}'")
            return Typed("arraylength", "I", [target])
        cls = class_of_descriptor(target.type)
        if cls is None:
            raise NotCompilable(f"a {readable(target.type)} has no fields")
        owner, member = await self.member(cls, name, fields=True)
        self.check_access(owner, member)
        if member.access & ACC_STATIC:
            raise NotCompilable(f"static field {name} read through an instance")
        return Typed("getfield", member.descriptor, [target], (owner, name, member.descriptor))

    async def member(self, cls: str, name: str, fields: bool) -> tuple[str, MemberShape]:
        seen: list[str] = [cls]
        while seen:
            owner = seen.pop(0)
            shape = await self.shape(owner)
            for m in shape.fields if fields else shape.methods:
                if m.name == name:
                    return owner, m
            seen += ([shape.superclass] if shape.superclass else []) + shape.interfaces
        raise NotCompilable(f"{readable_class(cls)} has no field '{name}'")

    def check_access(self, owner: str, member: MemberShape) -> None:
        same_package = package_of(owner) == self.site.package
        if member.access & ACC_PRIVATE or not (member.access & ACC_PUBLIC or same_package):
            raise NotCompilable(f"{member.name} of {readable_class(owner)} is not accessible from another class")

    async def shape(self, cls: str) -> ClassShape:
        shape = await self.resolver.shape(cls)
        if shape is None:
            raise TypeNotLoaded(f"class {readable_class(cls)} is not loaded", (cls,))
        return shape

    async def find_class(self, dotted: str) -> str | None:
        """A type name as written: qualified, nested in the breakpoint's class, of its package, java.lang."""
        if self.site.class_name.rpartition("/")[2] == dotted:
            return self.site.class_name
        for candidate in self.class_candidates(dotted):
            if await self.resolver.shape(candidate) is not None:
                return candidate
        return None

    def class_candidates(self, dotted: str) -> list[str]:
        """The internal names a type name as written may stand for, in the order they are tried."""
        name = dotted.replace(".", "/")
        outer = self.site.class_name.split("$")[0]
        candidates = [name, f"{outer}${name.replace('/', '$')}", f"{self.site.package}/{name}" if self.site.package
                      else name, f"java/lang/{name}"]
        # A qualified nested class: a.b.Outer.Inner
        parts = dotted.split(".")
        candidates += ["/".join(parts[:k]) + "$" + "$".join(parts[k:]) for k in range(len(parts) - 1, 0, -1)]
        return list(dict.fromkeys(candidates))

    async def type_ref(self, ref: A.TypeRef) -> str:
        if ref.name in PRIMITIVES:
            base = PRIMITIVES[ref.name]
        else:
            cls = await self.find_class(ref.name)
            if cls is None:
                raise TypeNotLoaded(f"type {ref.name} is not loaded", tuple(self.class_candidates(ref.name)))
            base = f"L{cls};"
        return "[" * ref.dims + base

    # -- operators -------------------------------------------------------------------------------

    async def numeric(self, node: A.Expr) -> Typed:
        typed = await self.expr(node)
        if unboxed(typed.type) not in NUMERIC:
            raise NotCompilable(f"a {readable(typed.type)} where a number is needed")
        return self.convert(typed, unboxed(typed.type))

    async def unary(self, op: str, operand: A.Expr) -> Typed:
        if op == "!":
            value = await self.expr(operand)
            if unboxed(value.type) != "Z":
                raise NotCompilable(f"! on a {readable(value.type)}")
            return Typed("not", "Z", [self.convert(value, "Z")])
        value = await self.numeric(operand)
        promoted = "I" if value.type in "BSC" else value.type
        if op == "~" and promoted not in "IJ":
            raise NotCompilable(f"~ on a {readable(value.type)}")
        value = self.convert(value, promoted)
        if op == "+":
            return value
        if op == "-" and value.kind == "const" and isinstance(value.value, int | float):
            return Typed("const", promoted, value=_wrap(promoted, -value.value))  # type: ignore[operator]
        return Typed("neg" if op == "-" else "inv", promoted, [value])

    async def binary(self, node: A.Binary) -> Typed:
        op = node.op
        if op in ("&&", "||"):
            left, right = await self.expr(node.left), await self.expr(node.right)
            if unboxed(left.type) != "Z" or unboxed(right.type) != "Z":
                raise NotCompilable(f"{op} on a non-boolean")
            return Typed("logic", "Z", [self.convert(left, "Z"), self.convert(right, "Z")], op)
        left, right = await self.expr(node.left), await self.expr(node.right)
        if op == "+" and STRING in (left.type, right.type):
            parts = [*(left.args if left.kind == "concat" else [left]), right]
            for p in parts:
                if p.type == "V":
                    raise NotCompilable("a void call in a string")
            return Typed("concat", STRING, parts)
        if op in ("==", "!="):
            return self.equality(op, left, right)
        lt, rt = unboxed(left.type), unboxed(right.type)
        if op in ("&", "|", "^") and lt == "Z" and rt == "Z":
            return Typed("arith", "Z", [self.convert(left, "Z"), self.convert(right, "Z")], op)
        if lt not in NUMERIC or rt not in NUMERIC:
            raise NotCompilable(f"{op} on {readable(left.type)} and {readable(right.type)}")
        if op in ("<<", ">>", ">>>"):
            lp = "I" if lt in "BSC" else lt
            if lp not in "IJ" or rt not in "BSCIJ":
                raise NotCompilable(f"{op} on {readable(left.type)}")
            return Typed("arith", lp, [self.convert(left, lp), self.convert(right, "I")], op)
        promoted = binary_promotion(lt, rt)
        if op in ("&", "|", "^") and promoted not in "IJ":
            raise NotCompilable(f"{op} on {readable(promoted)}")
        args = [self.convert(left, promoted), self.convert(right, promoted)]
        if op in ("<", ">", "<=", ">="):
            return Typed("compare", "Z", args, (op, promoted))
        if op in ("+", "-", "*", "/", "%", "&", "|", "^"):
            return Typed("arith", promoted, args, op)
        raise NotCompilable(f"operator {op}")

    def equality(self, op: str, left: Typed, right: Typed) -> Typed:
        lt, rt = left.type, right.type
        if is_reference(lt) and is_reference(rt):
            if NULL in (lt, rt):
                other = right if lt == NULL else left
                if other.type == NULL:
                    return Typed("const", "Z", value=(op == "=="))
                return Typed("isnull", "Z", [other], op)
            return Typed("refcompare", "Z", [left, right], op)
        lu, ru = unboxed(lt), unboxed(rt)
        if lu == "Z" and ru == "Z":
            return Typed("compare", "Z", [self.convert(left, "Z"), self.convert(right, "Z")], (op, "I"))
        if lu in NUMERIC and ru in NUMERIC:
            promoted = binary_promotion(lu, ru)
            return Typed("compare", "Z", [self.convert(left, promoted), self.convert(right, promoted)], (op, promoted))
        raise NotCompilable(f"{op} between {readable(lt)} and {readable(rt)}")

    async def conditional(self, node: A.Conditional) -> Typed:
        condition = await self.expr(node.condition)
        if unboxed(condition.type) != "Z":
            raise NotCompilable("?: needs a boolean condition")
        a, b = await self.expr(node.then), await self.expr(node.otherwise)
        if a.type == b.type:
            result = a.type
        elif unboxed(a.type) in NUMERIC and unboxed(b.type) in NUMERIC and not (is_reference(a.type)
                                                                               and is_reference(b.type)):
            result = binary_promotion(unboxed(a.type), unboxed(b.type))
        elif unboxed(a.type) == "Z" and unboxed(b.type) == "Z":
            result = "Z"
        elif is_reference(a.type) and is_reference(b.type):
            result = b.type if a.type == NULL else a.type if b.type == NULL else OBJECT
        else:
            raise NotCompilable(f"?: mixing {readable(a.type)} and {readable(b.type)}")
        return Typed("cond", result, [self.convert(condition, "Z"), self.convert(a, result), self.convert(b, result)])

    async def cast(self, node: A.Cast) -> Typed:
        target = await self.type_ref(node.type)
        value = await self.expr(node.expr)
        if target in BOXES.values():
            source = unboxed(value.type)
            if source not in NUMERIC + "Z" or (source == "Z") != (target == "Z"):
                raise NotCompilable(f"cast of a {readable(value.type)} to {readable(target)}")
            return Typed("convert", target, [self.convert(value, source)])
        if value.type in BOXES.values():
            if target in BOXES and BOXES[target] == value.type:
                return self.convert(value, target)
            raise NotCompilable(f"cast of a {readable(value.type)} to {readable(target)}")
        return Typed("checkcast", target, [value], class_of_descriptor(target))

    # -- conversions -----------------------------------------------------------------------------

    def convert(self, typed: Typed, to: str, where: str = "") -> Typed:
        """Implicit conversion (widening, boxing, unboxing) to `to`; identity when the types match."""
        source = typed.type
        if source == to or (is_reference(to) and source == NULL):
            return typed
        if source in BOXES and BOXES[source] == to:
            return Typed("unbox", to, [typed])
        if source in BOXES and to in NUMERIC:
            return self.convert(Typed("unbox", BOXES[source], [typed]), to, where)
        if to in BOXES.values() and source in BOXES.values() and (to in WIDENS.get(source, "")):
            if typed.kind == "const" and to in "JFD":
                return Typed("const", to, value=_wrap(to, typed.value))  # type: ignore[arg-type]
            return Typed("convert", to, [typed])
        if source in ("B", "S", "C") and to == "I":
            return Typed("same", "I", [typed])
        if source in BOX_OF and is_reference(to):
            return Typed("box", BOX_OF[source], [typed])
        if is_reference(source) and is_reference(to):
            return typed  # assignability was checked by the caller
        raise NotCompilable(f"a {readable(source)} where a {readable(to)} is needed{' (' + where + ')' if where else ''}")

    # -- method calls ----------------------------------------------------------------------------

    async def call(self, node: A.MethodCall) -> Typed:
        args = [await self.expr(a) for a in node.args]
        receiver: Typed | None = None
        static_only = False
        if node.target is None or (isinstance(node.target, A.This) and node.target.qualifier is None):
            cls = self.site.class_name
            implicit = True
        else:
            implicit = False
            cls_name = None
            if isinstance(node.target, A.Name | A.AmbiguousName):
                parts = (node.target.name,) if isinstance(node.target, A.Name) else node.target.parts
                first = parts[0]
                if first not in self.site.locals and await self.own_field(first, required=False) is None:
                    cls_name = await self.find_class(".".join(parts))
            if cls_name is not None:
                cls, static_only = cls_name, True
            else:
                receiver = await self.expr(node.target)
                cls = class_of_descriptor(receiver.type) or ""
                if not cls or receiver.type == NULL:
                    raise NotCompilable(f"calling {node.name}() on a {readable(receiver.type)}")
                if cls.startswith("["):
                    cls = "java/lang/Object"  # arrays have Object's methods
        owner, method = await self.choose(cls, node.name, args)
        is_static = bool(method.access & ACC_STATIC)
        if static_only and not is_static:
            raise NotCompilable(f"{node.name}() is not static")
        private_own = implicit and method.access & ACC_PRIVATE
        if private_own:
            raise NotCompilable(f"{node.name}() is private to {readable_class(owner)}: another class cannot call it")
        self.check_access(owner, method)
        owner_shape = await self.shape(owner)
        if not owner_shape.access & ACC_PUBLIC and package_of(owner) != self.site.package:
            owner = cls  # call through the accessible class the expression names
        params = split_arguments(method.descriptor)
        converted = [self.convert(a, p) for a, p in zip(args, params, strict=True)]
        result = return_descriptor(method.descriptor)
        if is_static:
            if owner_shape.is_interface:
                raise NotCompilable(f"static interface method {node.name}() (needs a newer class-file version)")
            return Typed("invokestatic", result, converted, (owner, node.name, method.descriptor, False))
        if receiver is None:
            receiver = self.this()
        target_shape = await self.shape(cls)
        kind = "invokeinterface" if target_shape.is_interface else "invokevirtual"
        return Typed(kind, result, [receiver, *converted], (cls, node.name, method.descriptor, target_shape.is_interface))

    async def choose(self, cls: str, name: str, args: list[Typed]) -> tuple[str, MemberShape]:
        """Java's overload resolution, phases 1 (no boxing) and 2 (boxing); varargs calls are not compiled."""
        candidates: list[tuple[str, MemberShape]] = []
        seen_descriptors: set[str] = set()
        queue, visited = [cls], set()
        while queue:
            owner = queue.pop(0)
            if owner in visited:
                continue
            visited.add(owner)
            shape = await self.shape(owner)
            for m in shape.methods:
                if m.name == name and m.descriptor not in seen_descriptors and not m.access & 0x40:  # not bridges
                    seen_descriptors.add(m.descriptor)
                    candidates.append((owner, m))
            queue += ([shape.superclass] if shape.superclass else []) + shape.interfaces
            if shape.is_interface and not shape.interfaces and "java/lang/Object" not in visited:
                queue.append("java/lang/Object")
        if not candidates:
            raise NotCompilable(f"{readable_class(cls)} has no method {name}()")
        arity = [c for c in candidates if len(split_arguments(c[1].descriptor)) == len(args)]
        for boxing in (False, True):
            applicable = [c for c in arity if all([await self.assignable(a.type, p, boxing)
                                                   for a, p in zip(args, split_arguments(c[1].descriptor), strict=True)])]
            if applicable:
                best = [c for c in applicable if all([await self.more_specific(c[1], o[1]) for o in applicable])]
                if len(best) != 1:
                    raise NotCompilable(f"the call of {name}() is ambiguous for the compiler")
                return best[0]
        raise NotCompilable(f"no {name}() of {readable_class(cls)} takes ({', '.join(readable(a.type) for a in args)})")

    async def more_specific(self, a: MemberShape, b: MemberShape) -> bool:
        return all([await self.assignable(x, y, False) for x, y in zip(split_arguments(a.descriptor),
                                                                       split_arguments(b.descriptor), strict=True)])

    async def assignable(self, source: str, target: str, boxing: bool) -> bool:
        if source == target:
            return True
        if source in WIDENS and target in WIDENS:
            return target in WIDENS[source]
        if source == NULL:
            return is_reference(target)
        if boxing and source in BOX_OF:
            return await self.assignable(BOX_OF[source], target, False)
        if boxing and source in BOXES and target in WIDENS:
            return await self.assignable(BOXES[source], target, False)
        if not (is_reference(source) and is_reference(target)):
            return False
        if target == OBJECT:
            return True
        if source.startswith("["):
            if target.startswith("["):
                return (is_reference(source[1:]) and await self.assignable(source[1:], target[1:], False)) \
                    or source == target
            return target in ("Ljava/lang/Cloneable;", "Ljava/io/Serializable;")
        wanted = class_of_descriptor(target)
        queue = [class_of_descriptor(source)]
        while queue:
            current = queue.pop(0)
            if current == wanted:
                return True
            shape = await self.resolver.shape(current)  # type: ignore[arg-type]
            if shape is None:
                return False
            queue += ([shape.superclass] if shape.superclass else []) + shape.interfaces
        return False


def _wrap(descriptor: str, value: float) -> int | float:
    """Java's overflow for a constant folded into a type."""
    if descriptor == "I":
        return ((int(value) + 2**31) % 2**32) - 2**31
    if descriptor == "J":
        return ((int(value) + 2**63) % 2**64) - 2**63
    return float(value)


def readable(descriptor: str) -> str:
    if descriptor == NULL:
        return "null"
    dims = len(descriptor) - len(descriptor.lstrip("["))
    base = descriptor[dims:]
    names = {v: k for k, v in PRIMITIVES.items()} | {"V": "void"}
    text = names.get(base) or readable_class(base[1:-1])
    return text + "[]" * dims


def readable_class(internal_name: str) -> str:
    return internal_name.replace("/", ".")


def describe(node: A.Expr) -> str:
    names = {A.Assign: "an assignment", A.New: "object creation", A.NewArray: "array creation",
             A.ClassLiteral: "a class literal", A.Super: "super", A.ArrayInitializer: "an array initializer"}
    if isinstance(node, A.Unary):
        return f"'{node.op}'" + (" (it changes a variable)" if node.op in ("++", "--") else "")
    if isinstance(node, A.InstanceOf):
        return "an instanceof pattern"
    if isinstance(node, A.This):
        return "a qualified this"
    if isinstance(node, A.MethodCall):
        return "a super call"
    return names.get(type(node), type(node).__name__)


