"""The evaluator's own small AST: frozen, slotted dataclasses.

Every node has a ``column``: the 0-based character offset of the node's first character in the
user's expression text (never in the parser's wrapper). ``column`` (and ``op_column`` where present)
are excluded from equality, so two trees compare equal when their shapes match.

``dump(node)`` renders a compact s-expression, used by the tests and handy in error reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AmbiguousName",
    "ArrayAccess",
    "ArrayInitializer",
    "Assign",
    "Binary",
    "Cast",
    "ClassLiteral",
    "Conditional",
    "Expr",
    "FieldAccess",
    "InstanceOf",
    "Literal",
    "MethodCall",
    "Name",
    "New",
    "NewArray",
    "Super",
    "This",
    "TypeRef",
    "Unary",
    "dump",
]


def _col() -> Any:
    return field(default=0, compare=False, kw_only=True)


class Expr:
    """Base class of every expression node."""

    __slots__ = ()
    column: int


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A type as written: ``name`` is the source name without type arguments ("int", "String",
    "java.util.List", "Outer.Inner"); ``dims`` is the number of ``[]``. Qualified names are resolved
    later (the interpreter asks the VM)."""

    name: str
    dims: int = 0
    column: int = _col()

    @property
    def is_primitive(self) -> bool:
        return self.dims == 0 and self.name in _PRIMITIVE_NAMES

    def element(self) -> TypeRef:
        """The element type of an array type."""
        if self.dims == 0:
            raise ValueError(f"{self} is not an array type")
        return TypeRef(self.name, self.dims - 1, column=self.column)

    def __str__(self) -> str:
        return self.name + "[]" * self.dims


_PRIMITIVE_NAMES = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double", "void"})


@dataclass(frozen=True, slots=True)
class Literal(Expr):
    """A literal. ``type`` is one of "int", "long", "float", "double", "char", "boolean", "String",
    "null". ``value``: int for int/long (signed, in range) and char (UTF-16 code unit 0..65535);
    float for float (already rounded to float32) and double; bool; str; None for null."""

    type: str
    value: Any
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A simple name: a local, a field of ``this``, a static of the current class, or a ``$mark`` /
    ``$exception`` / ``$return`` / ``$old`` / ``$new`` (``$`` is a legal Java identifier char)."""

    name: str
    column: int = _col()

    @property
    def is_dollar(self) -> bool:
        return self.name.startswith("$")


@dataclass(frozen=True, slots=True)
class AmbiguousName(Expr):
    """A dotted chain of identifiers ``a.b.c`` (at least two parts) that may be a package, a class,
    a local or a field: the interpreter resolves it (JLS 6.5.2: longest prefix that is a variable,
    else a type...)."""

    parts: tuple[str, ...]
    column: int = _col()


@dataclass(frozen=True, slots=True)
class This(Expr):
    """``this`` or ``Outer.this`` (qualifier = ("Outer",))."""

    qualifier: tuple[str, ...] | None = None
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Super(Expr):
    """``super`` or ``Outer.super``; only ever the target of a FieldAccess or MethodCall."""

    qualifier: tuple[str, ...] | None = None
    column: int = _col()


@dataclass(frozen=True, slots=True)
class FieldAccess(Expr):
    """``target.name`` where target is not a plain identifier chain (those are AmbiguousName)."""

    target: Expr
    name: str
    column: int = _col()


@dataclass(frozen=True, slots=True)
class ArrayAccess(Expr):
    array: Expr
    index: Expr
    column: int = _col()


@dataclass(frozen=True, slots=True)
class MethodCall(Expr):
    """``target.name(args)``; target is None for an unqualified call ``name(args)``. For
    ``super.m()`` / ``Outer.super.m()`` target is a Super node and is_super is True."""

    target: Expr | None
    name: str
    args: tuple[Expr, ...]
    is_super: bool = False
    column: int = _col()
    name_column: int = _col()


@dataclass(frozen=True, slots=True)
class New(Expr):
    """``new T(args)`` (type arguments dropped; anonymous classes rejected by the parser)."""

    type: TypeRef
    args: tuple[Expr, ...]
    column: int = _col()


@dataclass(frozen=True, slots=True)
class ArrayInitializer(Expr):
    """``{a, b, {c}}`` inside ``new T[]{...}``."""

    elements: tuple[Expr, ...]
    column: int = _col()


@dataclass(frozen=True, slots=True)
class NewArray(Expr):
    """``new int[3][]`` -> type=int[][] (the full array type), dims=(3,);
    ``new int[]{1, 2}`` -> type=int[], dims=(), initializer={1 2}."""

    type: TypeRef
    dims: tuple[Expr, ...]
    initializer: ArrayInitializer | None = None
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    """op in "+", "-", "!", "~", "++", "--". ``postfix`` tells ``x++`` from ``++x``."""

    op: str
    operand: Expr
    postfix: bool = False
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    """op in "||", "&&", "|", "^", "&", "==", "!=", "<", ">", "<=", ">=", "<<", ">>", ">>>", "+",
    "-", "*", "/", "%". ``op_column`` is where the operator is (use it for runtime errors)."""

    op: str
    left: Expr
    right: Expr
    column: int = _col()
    op_column: int = _col()


@dataclass(frozen=True, slots=True)
class Conditional(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr
    column: int = _col()


@dataclass(frozen=True, slots=True)
class InstanceOf(Expr):
    """``expr instanceof T`` or ``expr instanceof T name`` (binding_name set)."""

    expr: Expr
    type: TypeRef
    binding_name: str | None = None
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    type: TypeRef
    expr: Expr
    column: int = _col()


@dataclass(frozen=True, slots=True)
class Assign(Expr):
    """op is "=" or a compound operator ("+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=",
    ">>=", ">>>="). target is a Name, AmbiguousName, FieldAccess or ArrayAccess."""

    op: str
    target: Expr
    value: Expr
    column: int = _col()
    op_column: int = _col()

    @property
    def binary_op(self) -> str | None:
        """The arithmetic operator of a compound assignment ("+" for "+="), None for "="."""
        return None if self.op == "=" else self.op[:-1]


@dataclass(frozen=True, slots=True)
class ClassLiteral(Expr):
    """``Foo.class``, ``int.class``, ``String[].class``, ``void.class``."""

    type: TypeRef
    column: int = _col()


# --------------------------------------------------------------------------------------------- dump


def _lit(node: Literal) -> str:
    t, v = node.type, node.value
    if t == "String":
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if t == "boolean":
        return "true" if v else "false"
    if t == "null":
        return "null"
    if t == "char":
        return f"char:{v}"
    if t in ("float", "double"):
        return f"{t}:{v!r}"
    return f"{t}:{v}"


def dump(node: Any) -> str:
    """Compact s-expression of a tree, e.g. ``(+ a (* int:2 b))``."""
    match node:
        case None:
            return "_"
        case TypeRef():
            return str(node)
        case Literal():
            return _lit(node)
        case Name():
            return node.name
        case AmbiguousName():
            return ".".join(node.parts)
        case This(qualifier=q):
            return "this" if q is None else ".".join(q) + ".this"
        case Super(qualifier=q):
            return "super" if q is None else ".".join(q) + ".super"
        case FieldAccess():
            return f"(. {dump(node.target)} {node.name})"
        case ArrayAccess():
            return f"([] {dump(node.array)} {dump(node.index)})"
        case MethodCall():
            return "(call " + " ".join([dump(node.target), node.name, *map(dump, node.args)]) + ")"
        case New():
            return "(new " + " ".join([str(node.type), *map(dump, node.args)]) + ")"
        case ArrayInitializer():
            return "{" + " ".join(map(dump, node.elements)) + "}"
        case NewArray():
            parts = [str(node.type), *(f"[{dump(d)}]" for d in node.dims)]
            if node.initializer is not None:
                parts.append(dump(node.initializer))
            return "(new-array " + " ".join(parts) + ")"
        case Unary():
            if node.postfix:
                return f"(post{node.op} {dump(node.operand)})"
            if node.op in ("++", "--"):
                return f"(pre{node.op} {dump(node.operand)})"
            return f"({node.op} {dump(node.operand)})"
        case Binary():
            return f"({node.op} {dump(node.left)} {dump(node.right)})"
        case Conditional():
            return f"(? {dump(node.condition)} {dump(node.then)} {dump(node.otherwise)})"
        case InstanceOf():
            tail = f" {node.binding_name}" if node.binding_name else ""
            return f"(instanceof {dump(node.expr)} {node.type}{tail})"
        case Cast():
            return f"(cast {node.type} {dump(node.expr)})"
        case Assign():
            return f"({node.op} {dump(node.target)} {dump(node.value)})"
        case ClassLiteral():
            return f"(class {node.type})"
    raise TypeError(f"not an AST node: {node!r}")
