"""Parse a Java expression with tree-sitter-java into the evaluator's AST (see ``ast.py``).

    parse_expression(text) -> Expr            (cached by text; raises ExpressionSyntaxError)

The text is wrapped as an expression statement, ``class __E{void __m(){`` TEXT ``\\n;}}``, so that
assignments, ``x++`` and every other expression form parse (a trailing ``// comment`` is fine, the
terminator is on its own line). Anything else than exactly one expression statement is rejected.

Error messages are produced (diagnose.py) by a small token-level validator that runs only when tree-sitter
reports a problem: it finds the first unexpected token and says what was expected there, e.g.
``expected an expression after '+' at column 4``; ``str(err)`` adds a caret line.
"""

from __future__ import annotations

import functools
import threading

import tree_sitter
import tree_sitter_java

from . import ast as A

__all__ = ["ExpressionSyntaxError", "parse_expression"]

from .diagnose import diagnose_syntax
from .lexical import (
    PREFIX,
    PREFIX_BYTES,
    SUFFIX,
    LexError,
    char_literal,
    float_literal,
    int_literal,
    text_block_value,
    unescape,
)

_lock = threading.Lock()
_parser: tree_sitter.Parser | None = None


def _get_parser() -> tree_sitter.Parser:
    global _parser
    if _parser is None:
        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))
    return _parser


class ExpressionSyntaxError(ValueError):
    """A malformed or unsupported expression. ``column`` is a 0-based character offset into
    ``text``; ``hint`` is the short note printed after the caret (e.g. "unexpected '*'")."""

    def __init__(self, message: str, column: int, text: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.text = text
        self.hint = hint

    @property
    def caret(self) -> str:
        """The offending line of the expression and a caret under ``column``."""
        start = self.text.rfind("\n", 0, self.column) + 1
        end = self.text.find("\n", self.column)
        line = self.text[start: end if end >= 0 else len(self.text)]
        pad = self.column - start
        return f"{line}\n{' ' * pad}^{' ' + self.hint if self.hint else ''}"

    def __str__(self) -> str:
        if not self.text:
            return self.message
        return f"{self.message}\n{self.caret}"





# ==================================================================================== conversion


_REJECT = {
    "lambda_expression": "lambdas are not supported in expressions",
    "switch_expression": "switch expressions are not supported in expressions",
    "method_reference": "method references are not supported in expressions",
    "template_expression": "string templates are not supported in expressions",
    "record_pattern": "record patterns are not supported in expressions",
    "array_initializer": "an array initializer needs 'new T[]' in an expression",
}
_INT_LITERALS = frozenset({"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal",
                           "binary_integer_literal"})
_FLOAT_LITERALS = frozenset({"decimal_floating_point_literal", "hex_floating_point_literal"})
_PRIMITIVE_TYPES = frozenset({"integral_type", "floating_point_type", "boolean_type", "void_type"})


class _Converter:
    def __init__(self, text: str, src: bytes) -> None:
        self.text = text
        self.src = src
        if text.isascii():
            self._map = None
        else:  # byte offset (relative to the user's text) -> character offset
            m = []
            for i, ch in enumerate(text):
                m.extend([i] * len(ch.encode()))
            m.append(len(text))
            self._map = m

    def col(self, node: tree_sitter.Node) -> int:
        b = node.start_byte - PREFIX_BYTES
        if self._map is None:
            return b
        return self._map[min(max(b, 0), len(self._map) - 1)]

    def raw(self, node: tree_sitter.Node) -> str:
        return self.src[node.start_byte: node.end_byte].decode()

    # ------------------------------------------------------------------------------- types

    def type_ref(self, node: tree_sitter.Node, extra_dims: int = 0) -> A.TypeRef:
        col = self.col(node)
        t = node.type
        if t == "array_type":
            el = self.type_ref(node.child_by_field_name("element"))
            dims = self.raw(node.child_by_field_name("dimensions")).count("[")
            return A.TypeRef(el.name, el.dims + dims + extra_dims, column=col)
        if t in _PRIMITIVE_TYPES or t == "type_identifier":
            return A.TypeRef(self.raw(node), extra_dims, column=col)
        if t in ("scoped_type_identifier", "generic_type"):
            return A.TypeRef(".".join(self._type_parts(node)), extra_dims, column=col)
        if t == "identifier":  # e.g. Foo in some positions
            return A.TypeRef(self.raw(node), extra_dims, column=col)
        raise LexError(f"unsupported type syntax at column {col}", col, f"unexpected {node.type}")

    def _type_parts(self, node: tree_sitter.Node) -> list[str]:
        if node.type in ("type_identifier", "identifier"):
            return [self.raw(node)]
        parts: list[str] = []
        for c in node.named_children:
            if c.type in ("type_arguments", "annotation", "marker_annotation"):
                continue
            parts.extend(self._type_parts(c))
        return parts

    # --------------------------------------------------------------------------- expressions

    def chain(self, node: tree_sitter.Node) -> tuple[str, ...] | None:
        """identifier / a.b.c field-access chain -> ('a', 'b', 'c'); None otherwise."""
        if node.type == "identifier":
            return (self.raw(node),)
        if node.type == "field_access":
            if any(c.type in ("super", "this") for c in node.children):
                return None
            obj = node.child_by_field_name("object")
            field = node.child_by_field_name("field")
            head = self.chain(obj)
            if head is not None and field is not None and field.type == "identifier":
                return head + (self.raw(field),)
        return None

    def expr(self, node: tree_sitter.Node) -> A.Expr:
        t = node.type
        col = self.col(node)
        handler = getattr(self, "x_" + t, None)
        if handler is not None:
            return handler(node, col)
        if t in _INT_LITERALS:
            return int_literal(self.raw(node), col, negated=False)
        if t in _FLOAT_LITERALS:
            return float_literal(self.raw(node), col, negated=False)
        if t in _REJECT:
            raise LexError(f"{_REJECT[t]} (at column {col})", col, "not supported")
        raise LexError(f"unsupported syntax at column {col}: {t.replace('_', ' ')}", col, "not supported")

    def args(self, node: tree_sitter.Node | None) -> tuple[A.Expr, ...]:
        if node is None:
            return ()
        return tuple(self.expr(c) for c in node.named_children if not _is_comment(c))

    def x_parenthesized_expression(self, node, col):
        inner = [c for c in node.named_children if not _is_comment(c)]
        return self.expr(inner[0])

    def x_identifier(self, node, col):
        return A.Name(self.raw(node), column=col)

    def x_this(self, node, col):
        return A.This(column=col)

    def x_super(self, node, col):
        raise LexError(f"'super' must be followed by '.' and a field or method at column {col}", col,
                   "bare 'super'")

    def x_true(self, node, col):
        return A.Literal("boolean", True, column=col)

    def x_false(self, node, col):
        return A.Literal("boolean", False, column=col)

    def x_null_literal(self, node, col):
        return A.Literal("null", None, column=col)

    def x_character_literal(self, node, col):
        return A.Literal("char", char_literal(self.raw(node), col), column=col)

    def x_string_literal(self, node, col):
        raw = self.raw(node)
        if raw.startswith('"""'):
            return A.Literal("String", text_block_value(raw, col), column=col)
        return A.Literal("String", unescape(raw[1:-1], col + 1), column=col)

    def x_field_access(self, node, col):
        field = node.child_by_field_name("field")
        obj = node.child_by_field_name("object")
        parts = self.chain(node)
        if parts is not None:
            return A.AmbiguousName(parts, column=col)
        has_super = any(c.type == "super" for c in node.children if c != obj)
        if field.type == "this":
            q = self.chain(obj)
            if q is None:
                raise LexError(f"'.this' needs a class name before it at column {col}", self.col(field))
            return A.This(q, column=col)
        if obj.type == "super":
            target: A.Expr = A.Super(column=self.col(obj))
        elif has_super:
            target = self._qualified_super(obj, col)
        else:
            target = self.expr(obj)
        return A.FieldAccess(target, self.raw(field), column=col)

    def _qualified_super(self, obj, col):
        """`Outer.super.f` / `Iface.super.m()`: the qualifier must be a name."""
        q = self.chain(obj)
        if q is None:
            raise LexError(f"'.super' needs a class name before it at column {col}", col)
        return A.Super(q, column=col)

    def x_array_access(self, node, col):
        return A.ArrayAccess(self.expr(node.child_by_field_name("array")),
                             self.expr(node.child_by_field_name("index")), column=col)

    def x_method_invocation(self, node, col):
        obj = node.child_by_field_name("object")
        name = node.child_by_field_name("name")
        args = self.args(node.child_by_field_name("arguments"))
        has_super = any(c.type == "super" for c in node.children if c != obj)
        target: A.Expr | None
        if obj is None:
            target = None
        elif obj.type == "super":
            target, has_super = A.Super(column=self.col(obj)), True
        elif has_super:
            target = self._qualified_super(obj, col)
        else:
            parts = self.chain(obj)
            if parts is not None and len(parts) > 1:
                target = A.AmbiguousName(parts, column=self.col(obj))
            else:
                target = self.expr(obj)
        return A.MethodCall(target, self.raw(name), args, has_super, column=col, name_column=self.col(name))

    def x_object_creation_expression(self, node, col):
        if node.children and node.children[0].type != "new":
            raise LexError(f"qualified 'outer.new Inner()' is not supported (at column {col})", col,
                       "not supported")
        if any(c.type == "class_body" for c in node.children):
            raise LexError(f"anonymous classes are not supported in expressions (at column {col})", col,
                       "not supported")
        return A.New(self.type_ref(node.child_by_field_name("type")),
                     self.args(node.child_by_field_name("arguments")), column=col)

    def x_array_creation_expression(self, node, col):
        base = self.type_ref(node.child_by_field_name("type"))
        dims: list[A.Expr] = []
        extra = 0
        for c in node.children_by_field_name("dimensions"):
            if c.type == "dimensions_expr":
                dims.append(self.expr(next(x for x in c.named_children if not _is_comment(x))))
            else:
                extra += self.raw(c).count("[")
        value = node.child_by_field_name("value")
        init = self.x_array_initializer(value, self.col(value)) if value is not None else None
        return A.NewArray(A.TypeRef(base.name, base.dims + len(dims) + extra, column=base.column),
                          tuple(dims), init, column=col)

    def x_array_initializer(self, node, col):
        elems = []
        for c in node.named_children:
            if _is_comment(c):
                continue
            if c.type == "array_initializer":
                elems.append(self.x_array_initializer(c, self.col(c)))
            else:
                elems.append(self.expr(c))
        return A.ArrayInitializer(tuple(elems), column=col)

    def x_unary_expression(self, node, col):
        op = self.raw(node.child_by_field_name("operator"))
        operand = node.child_by_field_name("operand")
        if op == "-" and operand.type in _INT_LITERALS:
            return int_literal(self.raw(operand), col, negated=True)
        if op == "-" and operand.type in _FLOAT_LITERALS:
            return float_literal(self.raw(operand), col, negated=True)
        return A.Unary(op, self.expr(operand), column=col)

    def x_update_expression(self, node, col):
        first = node.children[0]
        if first.type in ("++", "--"):
            return A.Unary(first.type, self.expr(node.children[1]), False, column=col)
        return A.Unary(node.children[-1].type, self.expr(first), True, column=col)

    def x_binary_expression(self, node, col):
        op = node.child_by_field_name("operator")
        return A.Binary(self.raw(op), self.expr(node.child_by_field_name("left")),
                        self.expr(node.child_by_field_name("right")), column=col, op_column=self.col(op))

    def x_ternary_expression(self, node, col):
        return A.Conditional(self.expr(node.child_by_field_name("condition")),
                             self.expr(node.child_by_field_name("consequence")),
                             self.expr(node.child_by_field_name("alternative")), column=col)

    def x_instanceof_expression(self, node, col):
        right = node.child_by_field_name("right")
        if right is None or right.type == "record_pattern":
            pat = right or node.child_by_field_name("pattern") or node
            raise LexError(f"record patterns are not supported in expressions (at column {self.col(pat)})",
                       self.col(pat), "not supported")
        name = node.child_by_field_name("name")
        return A.InstanceOf(self.expr(node.child_by_field_name("left")), self.type_ref(right),
                            self.raw(name) if name is not None else None, column=col)

    def x_cast_expression(self, node, col):
        types = node.children_by_field_name("type")
        if len(types) != 1:
            raise LexError(f"intersection casts are not supported (at column {col})", col, "not supported")
        return A.Cast(self.type_ref(types[0]), self.expr(node.child_by_field_name("value")), column=col)

    def x_assignment_expression(self, node, col):
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        target = self.expr(left)
        if not isinstance(target, A.Name | A.AmbiguousName | A.FieldAccess | A.ArrayAccess):
            raise LexError(f"cannot assign to this expression at column {self.col(left)}", self.col(left),
                       "not a variable")
        return A.Assign(self.raw(op), target, self.expr(node.child_by_field_name("right")),
                        column=col, op_column=self.col(op))

    def x_class_literal(self, node, col):
        t = next(c for c in node.named_children if not _is_comment(c))
        return A.ClassLiteral(self.type_ref(t), column=col)


def _is_comment(node: tree_sitter.Node) -> bool:
    return node.type in ("line_comment", "block_comment")


# ====================================================================================== entry


@functools.lru_cache(maxsize=4096)
def parse_expression(text: str) -> A.Expr:
    """Parse one Java expression. Raises ExpressionSyntaxError (with column and caret line)."""
    try:
        return _parse(text)
    except LexError as e:
        raise ExpressionSyntaxError(e.message, e.column, text, e.hint) from None


def _parse(text: str) -> A.Expr:
    if not text.strip():
        raise LexError("empty expression: nothing to evaluate", 0, "expected an expression")
    src = (PREFIX + text + SUFFIX).encode()
    with _lock:
        tree = _get_parser().parse(src)
    root = tree.root_node
    expr_node = None if root.has_error else _single_expression(root, len(src) - len(SUFFIX))
    if expr_node is None:
        diagnose_syntax(text, tree)  # raises
        raise LexError("syntax error", 0, "here")  # pragma: no cover - diagnose_syntax always raises
    depth = _nesting(expr_node)
    if depth > MAX_NESTING:
        raise LexError(f"expression nested {depth} levels deep; at most {MAX_NESTING} are evaluated", 0,
                   "split it up (e.g. evaluate the inner part first)")
    return _Converter(text, src).expr(expr_node)


# Converting, checking and evaluating walk the tree recursively: a bound keeps a pathological expression
# ("1+1+...+1" three thousand times) an answer instead of a RecursionError. Real expressions stay far below.
MAX_NESTING = 150


def _nesting(node: tree_sitter.Node) -> int:
    """How deep the syntax tree under `node` goes (counted without recursion)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in current.named_children)
    return deepest


def _single_expression(root: tree_sitter.Node, user_end: int) -> tree_sitter.Node | None:
    try:
        (cls,) = root.named_children
        body = cls.child_by_field_name("body")
        (method,) = body.named_children
        block = method.child_by_field_name("body")
    except (ValueError, AttributeError):
        return None
    stmts = [c for c in block.named_children if not _is_comment(c)]
    if len(stmts) != 1 or stmts[0].type != "expression_statement":
        return None
    inner = [c for c in stmts[0].named_children if not _is_comment(c)]
    if len(inner) != 1 or inner[0].end_byte > user_end or inner[0].start_byte < PREFIX_BYTES:
        return None
    return inner[0]


