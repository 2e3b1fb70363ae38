"""Parse a Java expression with tree-sitter-java into the evaluator's AST (see ``ast.py``).

    parse_expression(text) -> Expr            (cached by text; raises ExpressionSyntaxError)

The text is wrapped as an expression statement, ``class __E{void __m(){`` TEXT ``\\n;}}``, so that
assignments, ``x++`` and every other expression form parse (a trailing ``// comment`` is fine, the
terminator is on its own line). Anything else than exactly one expression statement is rejected.

Error messages are produced by a small token-level validator that runs only when tree-sitter
reports a problem: it finds the first unexpected token and says what was expected there, e.g.
``expected an expression after '+' at column 4``; ``str(err)`` adds a caret line.
"""

from __future__ import annotations

import functools
import re
import threading
from fractions import Fraction

import tree_sitter
import tree_sitter_java

from . import ast as A

__all__ = ["ExpressionSyntaxError", "parse_expression"]

_PREFIX = "class __E{void __m(){"
_SUFFIX = "\n;}}"
_PREFIX_BYTES = len(_PREFIX.encode())

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


# ====================================================================================== literals

_ESCAPE = re.compile(r"\\(?:u+([0-9a-fA-F]{4})|([btnfrs\"'\\])|([0-3][0-7]{2}|[0-7]{1,2})|(\n)|(.))", re.S)
_SIMPLE_ESC = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", '"': '"', "'": "'", "\\": "\\"}


def _unescape(body: str, col: int, text_block: bool = False) -> str:
    def sub(m: re.Match) -> str:
        if m.group(1):
            return chr(int(m.group(1), 16))
        if m.group(2):
            return _SIMPLE_ESC[m.group(2)]
        if m.group(3):
            return chr(int(m.group(3), 8))
        if m.group(4) is not None and text_block:
            return ""  # a line continuation in a text block
        raise _Err(f"illegal escape character in literal at column {col + m.start()}", col + m.start(),
                   "illegal escape")

    out = _ESCAPE.sub(sub, body)
    # join UTF-16 surrogate pairs written as two escapes
    if any("\ud800" <= ch <= "\udfff" for ch in out):
        out = out.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return out


def _text_block(raw: str, col: int) -> str:
    body = raw[3:-3]
    nl = body.find("\n")
    if nl < 0 or body[:nl].strip():
        raise _Err("text block must start with a line break after \"\"\"", col, "here")
    lines = body[nl + 1:].split("\n")
    # the closing line counts for indentation even when blank; other blank lines don't
    sig = [ln for ln in lines[:-1] if ln.strip()] + [lines[-1]]
    indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in sig), default=0)
    if not lines[-1].strip():
        lines[-1] = ""  # closing delimiter on its own line: content ends with a line break
    stripped = [ln[indent:].rstrip(" \t") for ln in lines]
    return _unescape("\n".join(stripped), col, text_block=True)


def _char_literal(raw: str, col: int) -> int:
    s = _unescape(raw[1:-1], col + 1)
    units = s.encode("utf-16-le", "surrogatepass")
    if len(units) != 2:
        raise _Err(f"unclosed or multi-character char literal at column {col}", col, "not one character")
    return int.from_bytes(units, "little")


def _int_literal(raw: str, col: int, negated: bool) -> A.Literal:
    s = raw.replace("_", "")
    is_long = s[-1] in "lL"
    if is_long:
        s = s[:-1]
    low = s.lower()
    if low.startswith("0x"):
        value, radix = int(s[2:], 16), 16
    elif low.startswith("0b"):
        value, radix = int(s[2:], 2), 2
    elif len(s) > 1 and s[0] == "0":
        if any(c in "89" for c in s):
            raise _Err(f"invalid octal literal at column {col}", col, "digits 8 and 9 are not octal")
        value, radix = int(s, 8), 8
    else:
        value, radix = int(s), 10
    bits = 64 if is_long else 32
    t = "long" if is_long else "int"
    if radix == 10:
        limit = (1 << (bits - 1)) if negated else (1 << (bits - 1)) - 1
        if value > limit:
            raise _Err(f"integer number too large: {raw} at column {col}", col, "too large for " + t)
    else:
        if value >= 1 << bits:
            raise _Err(f"integer number too large: {raw} at column {col}", col, "too large for " + t)
        if value >> (bits - 1):
            value -= 1 << bits
    return A.Literal(t, -value if negated else value, column=col)


def _fraction_to_f32(fr: Fraction) -> float:
    if fr == 0:
        return 0.0
    m = abs(fr)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    if Fraction(2) ** e > m:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)
    q = round(m / quantum)  # round half to even
    r = q * quantum
    if r >= Fraction(2) ** 128:
        return float("inf")
    return float(r)


def _hex_fraction(s: str) -> Fraction:
    mant, _, exp = s[2:].lower().partition("p")
    whole, _, frac = mant.partition(".")
    digits = int((whole + frac) or "0", 16)
    return Fraction(digits) * Fraction(2) ** (int(exp) - 4 * len(frac))


def _float_literal(raw: str, col: int, negated: bool) -> A.Literal:
    s = raw.replace("_", "")
    t = "double"
    if s[-1] in "fFdD":
        t = "float" if s[-1] in "fF" else "double"
        s = s[:-1]
    fr = _hex_fraction(s) if s.lower().startswith("0x") else Fraction(s)
    if t == "float":
        value = _fraction_to_f32(fr)
    else:
        value = float.fromhex(s) if s.lower().startswith("0x") else float(s)
    if value == float("inf"):
        raise _Err(f"floating-point number too large: {raw} at column {col}", col, "too large for " + t)
    if value == 0 and fr != 0:
        raise _Err(f"floating-point number too small: {raw} at column {col}", col, "too small for " + t)
    return A.Literal(t, -value if negated else value, column=col)


# ==================================================================================== conversion


class _Err(Exception):
    """Internal: message/column/hint, turned into ExpressionSyntaxError with the text attached."""

    def __init__(self, message: str, column: int, hint: str = "") -> None:
        super().__init__(message)
        self.message, self.column, self.hint = message, column, hint


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
        b = node.start_byte - _PREFIX_BYTES
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
        raise _Err(f"unsupported type syntax at column {col}", col, f"unexpected {node.type}")

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
            return _int_literal(self.raw(node), col, negated=False)
        if t in _FLOAT_LITERALS:
            return _float_literal(self.raw(node), col, negated=False)
        if t in _REJECT:
            raise _Err(f"{_REJECT[t]} (at column {col})", col, "not supported")
        raise _Err(f"unsupported syntax at column {col}: {t.replace('_', ' ')}", col, "not supported")

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
        raise _Err(f"'super' must be followed by '.' and a field or method at column {col}", col,
                   "bare 'super'")

    def x_true(self, node, col):
        return A.Literal("boolean", True, column=col)

    def x_false(self, node, col):
        return A.Literal("boolean", False, column=col)

    def x_null_literal(self, node, col):
        return A.Literal("null", None, column=col)

    def x_character_literal(self, node, col):
        return A.Literal("char", _char_literal(self.raw(node), col), column=col)

    def x_string_literal(self, node, col):
        raw = self.raw(node)
        if raw.startswith('"""'):
            return A.Literal("String", _text_block(raw, col), column=col)
        return A.Literal("String", _unescape(raw[1:-1], col + 1), column=col)

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
                raise _Err(f"'.this' needs a class name before it at column {col}", self.col(field))
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
            raise _Err(f"'.super' needs a class name before it at column {col}", col)
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
            raise _Err(f"qualified 'outer.new Inner()' is not supported (at column {col})", col,
                       "not supported")
        if any(c.type == "class_body" for c in node.children):
            raise _Err(f"anonymous classes are not supported in expressions (at column {col})", col,
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
            return _int_literal(self.raw(operand), col, negated=True)
        if op == "-" and operand.type in _FLOAT_LITERALS:
            return _float_literal(self.raw(operand), col, negated=True)
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
            raise _Err(f"record patterns are not supported in expressions (at column {self.col(pat)})",
                       self.col(pat), "not supported")
        name = node.child_by_field_name("name")
        return A.InstanceOf(self.expr(node.child_by_field_name("left")), self.type_ref(right),
                            self.raw(name) if name is not None else None, column=col)

    def x_cast_expression(self, node, col):
        types = node.children_by_field_name("type")
        if len(types) != 1:
            raise _Err(f"intersection casts are not supported (at column {col})", col, "not supported")
        return A.Cast(self.type_ref(types[0]), self.expr(node.child_by_field_name("value")), column=col)

    def x_assignment_expression(self, node, col):
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        target = self.expr(left)
        if not isinstance(target, A.Name | A.AmbiguousName | A.FieldAccess | A.ArrayAccess):
            raise _Err(f"cannot assign to this expression at column {self.col(left)}", self.col(left),
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
    except _Err as e:
        raise ExpressionSyntaxError(e.message, e.column, text, e.hint) from None


def _parse(text: str) -> A.Expr:
    if not text.strip():
        raise _Err("empty expression: nothing to evaluate", 0, "expected an expression")
    src = (_PREFIX + text + _SUFFIX).encode()
    with _lock:
        tree = _get_parser().parse(src)
    root = tree.root_node
    expr_node = None if root.has_error else _single_expression(root, len(src) - len(_SUFFIX))
    if expr_node is None:
        _diagnose(text, tree)  # raises
        raise _Err("syntax error", 0, "here")  # pragma: no cover - _diagnose always raises
    depth = _nesting(expr_node)
    if depth > MAX_NESTING:
        raise _Err(f"expression nested {depth} levels deep; at most {MAX_NESTING} are evaluated", 0,
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
    if len(inner) != 1 or inner[0].end_byte > user_end or inner[0].start_byte < _PREFIX_BYTES:
        return None
    return inner[0]


# ================================================================================ diagnostics

_TOKEN = re.compile(
    r"""
  (?P<ws>\s+)
| (?P<comment>//[^\n]*|/\*.*?\*/)
| (?P<badcomment>/\*.*)
| (?P<str>\"\"\"[ \t\f]*\n(?:[^"\\]|\\.|"(?!""))*\"\"\"|"(?:[^"\\\n]|\\.)*")
| (?P<badstr>"[^\n]*)
| (?P<chr>'(?:[^'\\\n]|\\.)+')
| (?P<badchr>'[^\n]*)
| (?P<num>0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?[lLfFdD]?
        |0[bB][01_]+[lL]?
        |(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?[\d_]+)?[lLfFdD]?)
| (?P<id>[^\W\d][\w$]*|\$[\w$]*)
| (?P<op>>>>=|<<=|>>=|>>>|\.\.\.|->|::|\+\+|--|&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|<<|>>
        |[-+*/%=<>!~?:;,.@(){}\[\]&|^])
| (?P<bad>.)
""",
    re.X | re.S,
)

_KEYWORD_LITERALS = frozenset({"true", "false", "null", "this", "super", "new"})
_PRIMS = frozenset({"boolean", "byte", "char", "short", "int", "long", "float", "double", "void"})
_STATEMENT_KW = frozenset({"return", "if", "for", "while", "do", "try", "throw", "break", "continue",
                           "assert", "synchronized", "else", "case", "default", "catch", "finally",
                           "class", "interface", "enum", "record", "import", "package", "var", "yield"})
_RESERVED = _STATEMENT_KW - {"var", "record", "yield"} | {
    "abstract", "const", "extends", "final", "goto", "implements", "instanceof", "native", "private",
    "protected", "public", "static", "strictfp", "switch", "throws", "transient", "volatile", "_"}
_BINARY_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
    "instanceof": 7, "<<": 8, ">>": 8, ">>>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="})
_PREFIX_OPS = frozenset({"+", "-", "++", "--", "!", "~"})
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


class _Tok:
    __slots__ = ("kind", "text", "col")

    def __init__(self, kind: str, text: str, col: int) -> None:
        self.kind, self.text, self.col = kind, text, col

    def show(self) -> str:
        return "end of expression" if self.kind == "eof" else f"'{self.text}'"


def _tokenize(text: str) -> list[_Tok]:
    toks = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        col = m.start()
        if kind in ("ws", "comment"):
            continue
        if kind == "badcomment":
            raise _Err(f"unclosed comment starting at column {col}", col, "comment never ends")
        if kind == "badstr":
            raise _Err(f"unclosed string literal starting at column {col}", col, "string never ends")
        if kind == "badchr":
            raise _Err(f"unclosed char literal starting at column {col}", col, "char never ends")
        if kind == "bad":
            raise _Err(f"illegal character {m.group()!r} at column {col}", col, "illegal character")
        if kind == "id" and m.group() in _KEYWORD_LITERALS | _PRIMS | _RESERVED | {"instanceof"}:
            kind = "kw"
        toks.append(_Tok(kind, m.group(), col))
    toks.append(_Tok("eof", "", len(text.rstrip())))
    return toks


def _diagnose(text: str, tree: tree_sitter.Tree | None = None) -> None:
    """Find the first problem in a text tree-sitter did not accept; always raises _Err."""
    toks = _tokenize(text)
    for t in toks:
        if t.text == "->" and t.kind == "op":
            raise _Err(f"lambdas are not supported in expressions (at column {t.col})", t.col, "lambda")
        if t.text == "::" and t.kind == "op":
            raise _Err(f"method references are not supported in expressions (at column {t.col})", t.col,
                       "method reference")
        if t.text == "switch" and t.kind == "kw":
            raise _Err(f"switch expressions are not supported in expressions (at column {t.col})", t.col,
                       "switch")
    for t in toks:
        if t.kind == "num":
            low = t.text.lower()
            is_float = ("." in low or "p" in low) if low.startswith("0x") else (
                any(c in low for c in ".e") or low[-1] in "fd")
            (_float_literal if is_float else _int_literal)(t.text, t.col, False)
    first = toks[0]
    if (len(toks) > 2 and (first.kind == "id" or first.text in _PRIMS) and toks[1].kind == "id"
            and toks[2].text in ("=", ";", ",", "")):
        raise _Err(f"declarations are not supported: enter a single expression (at column {first.col})",
                   first.col, "a declaration, not an expression")
    if first.text in _STATEMENT_KW and (first.kind == "kw" or (len(toks) > 2 and toks[1].kind == "id")):
        raise _Err(f"statements are not supported: enter a single expression ('{first.text}' at column 0)",
                   first.col, "a statement, not an expression")
    if first.text == "{":
        raise _Err("blocks are not supported: enter a single expression (at column 0)", first.col,
                   "a block, not an expression")
    _check_brackets(toks)
    _Validator(toks).run()
    # The validator accepted what tree-sitter rejected: point at tree-sitter's first error.
    col = _first_error_column(tree, text)
    raise _Err(f"syntax error at column {col}: not a single Java expression", col, "here")


def _first_error_column(tree: tree_sitter.Tree | None, text: str) -> int:
    if tree is None:
        return 0
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            b = max(n.start_byte - _PREFIX_BYTES, 0)
            return min(len(text.encode()[:b].decode(errors="ignore")), len(text))
        if n.has_error:
            stack.extend(reversed(n.children))
    return 0


def _check_brackets(toks: list[_Tok]) -> None:
    stack: list[_Tok] = []
    for t in toks:
        if t.kind != "op":
            continue
        if t.text in _CLOSERS:
            stack.append(t)
        elif t.text in (")", "]", "}"):
            if not stack:
                raise _Err(f"unmatched '{t.text}' at column {t.col}", t.col, "nothing to close here")
            if _CLOSERS[stack[-1].text] != t.text:
                o = stack[-1]
                raise _Err(f"expected '{_CLOSERS[o.text]}' to close '{o.text}' at column {o.col}, "
                           f"found '{t.text}' at column {t.col}", t.col, f"unexpected '{t.text}'")
            stack.pop()
    if stack:
        o = stack[-1]
        raise _Err(f"'{o.text}' at column {o.col} is never closed: expected '{_CLOSERS[o.text]}'", o.col,
                   "unclosed")


class _Validator:
    """A token-level recursive-descent recognizer of Java expressions, used only to word errors."""

    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0

    # -- helpers
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def prev(self) -> _Tok | None:
        return self.toks[self.i - 1] if self.i > 0 else None

    def at(self, *texts: str) -> bool:
        return self.tok.kind in ("op", "kw") and self.tok.text in texts

    def advance(self) -> _Tok:
        t = self.tok
        if t.kind != "eof":
            self.i += 1
        return t

    def expect(self, text: str, what: str | None = None) -> None:
        if self.at(text):
            self.advance()
            return
        t = self.tok
        want = what or f"'{text}'"
        p = self.prev()
        after = f" after '{p.text}'" if p is not None and " after " not in want else ""
        raise _Err(f"expected {want}{after} at column {t.col}", t.col, f"unexpected {t.show()}")

    def fail_expr(self) -> None:
        t = self.tok
        p = self.prev()
        if p is None:
            raise _Err(f"expected an expression at column {t.col}", t.col, f"unexpected {t.show()}")
        raise _Err(f"expected an expression after '{p.text}' at column {t.col}", t.col,
                   f"unexpected {t.show()}")

    # -- grammar
    def run(self) -> None:
        self.expression()
        t = self.tok
        if t.kind != "eof":
            if t.text == ";":
                raise _Err(f"unexpected ';' at column {t.col}: enter a single expression without ';'",
                           t.col, "unexpected ';'")
            if t.text == ",":
                raise _Err(f"unexpected ',' at column {t.col}: enter a single expression", t.col,
                           "unexpected ','")
            raise _Err(f"expected an operator or the end of the expression at column {t.col}", t.col,
                       f"unexpected {t.show()}")

    def expression(self) -> None:
        self.conditional()
        if self.tok.kind == "op" and self.tok.text in _ASSIGN_OPS:
            p = self.prev()
            if p is None or not (p.kind == "id" or p.text == "]"):
                t = self.tok
                raise _Err(f"cannot assign with '{t.text}' at column {t.col}: the left side is not a variable",
                           t.col, "left side is not a variable")
            self.advance()
            self.expression()

    def conditional(self) -> None:
        self.binary(1)
        if self.at("?"):
            self.advance()
            self.expression()
            self.expect(":", "':' of the conditional '? :'")
            self.conditional()

    def binary(self, min_prec: int) -> None:
        self.unary()
        while True:
            t = self.tok
            prec = _BINARY_PREC.get(t.text) if t.kind in ("op", "kw") else None
            if prec is None or prec < min_prec:
                return
            self.advance()
            if t.text == "instanceof":
                if self.at("final"):
                    self.advance()
                self.type_("a type after 'instanceof'")
                if self.tok.kind == "id":
                    self.advance()
                continue
            self.binary(prec + 1)

    def unary(self) -> None:
        t = self.tok
        if t.kind == "op" and t.text in _PREFIX_OPS:
            self.advance()
            self.unary()
            return
        if self.at("(") and self._looks_like_cast():
            self.advance()
            self.type_("a type")
            while self.at("&"):
                self.advance()
                self.type_("a type")
            self.expect(")")
            self.unary()
            return
        self.postfix()

    def _looks_like_cast(self) -> bool:
        j = self.i + 1
        toks = self.toks
        if toks[j].kind == "kw" and toks[j].text in _PRIMS:
            return True
        if toks[j].kind != "id":
            return False
        depth = 0
        while toks[j].kind != "eof":  # skip a type: ids, dots, <...>, []
            tx = toks[j].text
            if toks[j].kind == "id" or tx in (".", "[", "]", "?", ",", "&") or tx in ("extends", "super"):
                pass
            elif tx == "<":
                depth += 1
            elif tx in (">", ">>", ">>>"):
                depth -= len(tx)
            elif tx == ")" and depth <= 0:
                break
            else:
                return False
            j += 1
        nxt = toks[min(j + 1, len(toks) - 1)]
        return nxt.kind in ("id", "num", "str", "chr") or (nxt.kind == "kw" and nxt.text in
                                                           _KEYWORD_LITERALS) or nxt.text in ("(", "!", "~")

    def postfix(self) -> None:
        self.primary()
        while True:
            if self.at("."):
                self.advance()
                if self.at("<"):
                    self.type_args()
                t = self.tok
                if t.kind == "id":
                    self.advance()
                    if self.at("("):
                        self.arguments()
                elif t.kind == "kw" and t.text in ("class", "this"):
                    self.advance()
                elif t.kind == "kw" and t.text == "super":
                    self.advance()
                    self.expect(".")
                    self.expect_name()
                    if self.at("("):
                        self.arguments()
                elif t.kind == "kw" and t.text == "new":
                    self.advance()
                    self.creator()
                else:
                    raise _Err(f"expected a name after '.' at column {t.col}", t.col, f"unexpected {t.show()}")
            elif self.at("["):
                self.advance()
                if self.at("]"):  # Foo[].class
                    self.advance()
                    while self.at("["):
                        self.advance()
                        self.expect("]")
                    self.expect(".", "'.class' after '[]'")
                    self.expect("class", "'class'")
                    continue
                self.expression()
                self.expect("]")
            elif self.at("++", "--"):
                self.advance()
            else:
                return

    def expect_name(self) -> None:
        if self.tok.kind == "id":
            self.advance()
            return
        t = self.tok
        raise _Err(f"expected a name after '{self.prev().text}' at column {t.col}", t.col,
                   f"unexpected {t.show()}")

    def primary(self) -> None:
        t = self.tok
        if t.kind in ("num", "str", "chr", "id"):
            self.advance()
            if t.kind == "id" and self.at("("):
                self.arguments()
            return
        if t.kind == "kw":
            if t.text in ("true", "false", "null", "this"):
                self.advance()
                if t.text == "this" and self.at("("):
                    self.arguments()
                return
            if t.text == "super":
                self.advance()
                self.expect(".", "'.' after 'super'")
                self.expect_name()
                if self.at("("):
                    self.arguments()
                return
            if t.text == "new":
                self.advance()
                self.creator()
                return
            if t.text in _PRIMS:  # int.class, int[].class
                self.advance()
                while self.at("["):
                    self.advance()
                    self.expect("]")
                self.expect(".", f"'.class' after '{t.text}'")
                self.expect("class", "'class'")
                return
        if self.at("("):
            self.advance()
            self.expression()
            self.expect(")")
            return
        self.fail_expr()

    def arguments(self) -> None:
        self.expect("(")
        if self.at(")"):
            self.advance()
            return
        while True:
            self.expression()
            if self.at(","):
                self.advance()
                continue
            self.expect(")", "',' or ')'")
            return

    def creator(self) -> None:
        self.type_("a type after 'new'", dims=False)
        if self.at("("):
            self.arguments()
            if self.at("{"):
                t = self.tok
                raise _Err(f"anonymous classes are not supported in expressions (at column {t.col})",
                           t.col, "class body")
            return
        if not self.at("["):
            t = self.tok
            raise _Err(f"expected '(' or '[' after the type in 'new' at column {t.col}", t.col,
                       f"unexpected {t.show()}")
        sized = False
        while self.at("["):
            self.advance()
            if self.at("]"):
                self.advance()
                continue
            sized = True
            self.expression()
            self.expect("]")
        if not sized:
            self.array_init()

    def array_init(self) -> None:
        self.expect("{", "'{' (an array initializer) or a dimension size")
        while not self.at("}"):
            if self.at("{"):
                self.array_init()
            else:
                self.expression()
            if self.at(","):
                self.advance()
                continue
            self.expect("}", "',' or '}'")
            return
        self.advance()

    def type_(self, what: str, dims: bool = True) -> None:
        t = self.tok
        if t.kind == "kw" and t.text in _PRIMS:
            self.advance()
        elif t.kind == "id":
            self.advance()
            if self.at("<"):
                self.type_args()
            while self.at(".") and self.peek().kind == "id":
                self.advance()
                self.advance()
                if self.at("<"):
                    self.type_args()
        else:
            raise _Err(f"expected {what} at column {t.col}", t.col, f"unexpected {t.show()}")
        while dims and self.at("[") and self.peek().text == "]":
            self.advance()
            self.advance()

    def type_args(self) -> None:
        self.advance()  # '<'
        depth = 1
        while depth > 0:
            t = self.tok
            if t.kind == "eof":
                raise _Err(f"unclosed '<' of type arguments at column {t.col}", t.col, "expected '>'")
            if t.text == "<":
                depth += 1
            elif t.text in (">", ">>", ">>>"):
                depth -= len(t.text)
            self.advance()
