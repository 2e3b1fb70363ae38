"""Syntax error messages for expressions tree-sitter rejects: a small token-level validator that finds the
first unexpected token and says what was expected there (``expected an expression after '+' at column 4``).
It runs only when parsing failed, so a good expression never pays for it."""

from __future__ import annotations

import re

import tree_sitter

from .lexical import PREFIX_BYTES, LexError, float_literal, int_literal

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
            raise LexError(f"unclosed comment starting at column {col}", col, "comment never ends")
        if kind == "badstr":
            raise LexError(f"unclosed string literal starting at column {col}", col, "string never ends")
        if kind == "badchr":
            raise LexError(f"unclosed char literal starting at column {col}", col, "char never ends")
        if kind == "bad":
            raise LexError(f"illegal character {m.group()!r} at column {col}", col, "illegal character")
        if kind == "id" and m.group() in _KEYWORD_LITERALS | _PRIMS | _RESERVED | {"instanceof"}:
            kind = "kw"
        toks.append(_Tok(kind, m.group(), col))
    toks.append(_Tok("eof", "", len(text.rstrip())))
    return toks


def diagnose_syntax(text: str, tree: tree_sitter.Tree | None = None) -> None:
    """Find the first problem in a text tree-sitter did not accept; always raises LexError."""
    toks = _tokenize(text)
    for t in toks:
        if t.text == "->" and t.kind == "op":
            raise LexError(f"lambdas are not supported in expressions (at column {t.col})", t.col, "lambda")
        if t.text == "::" and t.kind == "op":
            raise LexError(f"method references are not supported in expressions (at column {t.col})", t.col,
                       "method reference")
        if t.text == "switch" and t.kind == "kw":
            raise LexError(f"switch expressions are not supported in expressions (at column {t.col})", t.col,
                       "switch")
    for t in toks:
        if t.kind == "num":
            low = t.text.lower()
            is_float = ("." in low or "p" in low) if low.startswith("0x") else (
                any(c in low for c in ".e") or low[-1] in "fd")
            (float_literal if is_float else int_literal)(t.text, t.col, False)
    first = toks[0]
    if (len(toks) > 2 and (first.kind == "id" or first.text in _PRIMS) and toks[1].kind == "id"
            and toks[2].text in ("=", ";", ",", "")):
        raise LexError(f"declarations are not supported: enter a single expression (at column {first.col})",
                   first.col, "a declaration, not an expression")
    if first.text in _STATEMENT_KW and (first.kind == "kw" or (len(toks) > 2 and toks[1].kind == "id")):
        raise LexError(f"statements are not supported: enter a single expression ('{first.text}' at column 0)",
                   first.col, "a statement, not an expression")
    if first.text == "{":
        raise LexError("blocks are not supported: enter a single expression (at column 0)", first.col,
                   "a block, not an expression")
    _check_brackets(toks)
    _Validator(toks).run()
    # The validator accepted what tree-sitter rejected: point at tree-sitter's first error.
    col = _first_error_column(tree, text)
    raise LexError(f"syntax error at column {col}: not a single Java expression", col, "here")


def _first_error_column(tree: tree_sitter.Tree | None, text: str) -> int:
    if tree is None:
        return 0
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            b = max(n.start_byte - PREFIX_BYTES, 0)
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
                raise LexError(f"unmatched '{t.text}' at column {t.col}", t.col, "nothing to close here")
            if _CLOSERS[stack[-1].text] != t.text:
                o = stack[-1]
                raise LexError(f"expected '{_CLOSERS[o.text]}' to close '{o.text}' at column {o.col}, "
                           f"found '{t.text}' at column {t.col}", t.col, f"unexpected '{t.text}'")
            stack.pop()
    if stack:
        o = stack[-1]
        raise LexError(f"'{o.text}' at column {o.col} is never closed: expected '{_CLOSERS[o.text]}'", o.col,
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
        raise LexError(f"expected {want}{after} at column {t.col}", t.col, f"unexpected {t.show()}")

    def fail_expr(self) -> None:
        t = self.tok
        p = self.prev()
        if p is None:
            raise LexError(f"expected an expression at column {t.col}", t.col, f"unexpected {t.show()}")
        raise LexError(f"expected an expression after '{p.text}' at column {t.col}", t.col,
                   f"unexpected {t.show()}")

    # -- grammar
    def run(self) -> None:
        self.expression()
        t = self.tok
        if t.kind != "eof":
            if t.text == ";":
                raise LexError(f"unexpected ';' at column {t.col}: enter a single expression without ';'",
                           t.col, "unexpected ';'")
            if t.text == ",":
                raise LexError(f"unexpected ',' at column {t.col}: enter a single expression", t.col,
                           "unexpected ','")
            raise LexError(f"expected an operator or the end of the expression at column {t.col}", t.col,
                       f"unexpected {t.show()}")

    def expression(self) -> None:
        self.conditional()
        if self.tok.kind == "op" and self.tok.text in _ASSIGN_OPS:
            p = self.prev()
            if p is None or not (p.kind == "id" or p.text == "]"):
                t = self.tok
                raise LexError(f"cannot assign with '{t.text}' at column {t.col}: the left side is not a variable",
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
                    raise LexError(f"expected a name after '.' at column {t.col}", t.col, f"unexpected {t.show()}")
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
        raise LexError(f"expected a name after '{self.prev().text}' at column {t.col}", t.col,
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
                raise LexError(f"anonymous classes are not supported in expressions (at column {t.col})",
                           t.col, "class body")
            return
        if not self.at("["):
            t = self.tok
            raise LexError(f"expected '(' or '[' after the type in 'new' at column {t.col}", t.col,
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
            raise LexError(f"expected {what} at column {t.col}", t.col, f"unexpected {t.show()}")
        while dims and self.at("[") and self.peek().text == "]":
            self.advance()
            self.advance()

    def type_args(self) -> None:
        self.advance()  # '<'
        depth = 1
        while depth > 0:
            t = self.tok
            if t.kind == "eof":
                raise LexError(f"unclosed '<' of type arguments at column {t.col}", t.col, "expected '>'")
            if t.text == "<":
                depth += 1
            elif t.text in (">", ">>", ">>>"):
                depth -= len(t.text)
            self.advance()
