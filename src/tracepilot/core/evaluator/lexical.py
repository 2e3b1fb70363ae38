"""Lexical pieces of expression parsing, shared by the converter (parse.py) and the error messages
(diagnose.py): the wrapper the text is parsed in, Java literal syntax (escapes, text blocks, char, int and
float literals with Java's range rules) and the internal error both raise."""

from __future__ import annotations

import re
from fractions import Fraction

from . import ast as A

PREFIX = "class __E{void __m(){"
SUFFIX = "\n;}}"
PREFIX_BYTES = len(PREFIX.encode())


class LexError(Exception):
    """Internal: message/column/hint, turned into ExpressionSyntaxError with the text attached."""

    def __init__(self, message: str, column: int, hint: str = "") -> None:
        super().__init__(message)
        self.message, self.column, self.hint = message, column, hint



_ESCAPE = re.compile(r"\\(?:u+([0-9a-fA-F]{4})|([btnfrs\"'\\])|([0-3][0-7]{2}|[0-7]{1,2})|(\n)|(.))", re.S)
_SIMPLE_ESC = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "s": " ", '"': '"', "'": "'", "\\": "\\"}


def unescape(body: str, col: int, text_block: bool = False) -> str:
    def sub(m: re.Match) -> str:
        if m.group(1):
            return chr(int(m.group(1), 16))
        if m.group(2):
            return _SIMPLE_ESC[m.group(2)]
        if m.group(3):
            return chr(int(m.group(3), 8))
        if m.group(4) is not None and text_block:
            return ""  # a line continuation in a text block
        raise LexError(f"illegal escape character in literal at column {col + m.start()}", col + m.start(),
                   "illegal escape")

    out = _ESCAPE.sub(sub, body)
    # join UTF-16 surrogate pairs written as two escapes
    if any("\ud800" <= ch <= "\udfff" for ch in out):
        out = out.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return out


def text_block_value(raw: str, col: int) -> str:
    body = raw[3:-3]
    nl = body.find("\n")
    if nl < 0 or body[:nl].strip():
        raise LexError("text block must start with a line break after \"\"\"", col, "here")
    lines = body[nl + 1:].split("\n")
    # the closing line counts for indentation even when blank; other blank lines don't
    sig = [ln for ln in lines[:-1] if ln.strip()] + [lines[-1]]
    indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in sig), default=0)
    if not lines[-1].strip():
        lines[-1] = ""  # closing delimiter on its own line: content ends with a line break
    stripped = [ln[indent:].rstrip(" \t") for ln in lines]
    return unescape("\n".join(stripped), col, text_block=True)


def char_literal(raw: str, col: int) -> int:
    s = unescape(raw[1:-1], col + 1)
    units = s.encode("utf-16-le", "surrogatepass")
    if len(units) != 2:
        raise LexError(f"unclosed or multi-character char literal at column {col}", col, "not one character")
    return int.from_bytes(units, "little")


def int_literal(raw: str, col: int, negated: bool) -> A.Literal:
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
            raise LexError(f"invalid octal literal at column {col}", col, "digits 8 and 9 are not octal")
        value, radix = int(s, 8), 8
    else:
        value, radix = int(s), 10
    bits = 64 if is_long else 32
    t = "long" if is_long else "int"
    if radix == 10:
        limit = (1 << (bits - 1)) if negated else (1 << (bits - 1)) - 1
        if value > limit:
            raise LexError(f"integer number too large: {raw} at column {col}", col, "too large for " + t)
    else:
        if value >= 1 << bits:
            raise LexError(f"integer number too large: {raw} at column {col}", col, "too large for " + t)
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


def float_literal(raw: str, col: int, negated: bool) -> A.Literal:
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
        raise LexError(f"floating-point number too large: {raw} at column {col}", col, "too large for " + t)
    if value == 0 and fr != 0:
        raise LexError(f"floating-point number too small: {raw} at column {col}", col, "too small for " + t)
    return A.Literal(t, -value if negated else value, column=col)
