"""Java primitive semantics in pure Python (JLS 4.2, 5.1, 5.6, 15.15-15.24).

Representation
--------------
A value is a ``JValue(type, value)`` named tuple (plain ``(type, value)`` tuples are accepted too):

* ``type`` is a :class:`JType` (a ``StrEnum`` whose value is the Java keyword: ``JType("int")`` works);
* integral types (byte, short, char, int, long) hold a Python ``int`` *in range* of the type; a
  ``char`` is its unsigned UTF-16 code unit (0..65535) -- chars are told apart by the type tag,
  never by the Python type, so char arithmetic is plain int arithmetic after promotion;
* float and double hold a Python ``float``; a float value is always exactly representable in
  float32 (every float result goes through :func:`f32`);
* boolean holds a Python ``bool``;
* two reference pseudo-types help the interpreter: ``JType.STRING`` (value: ``str``) for string
  concatenation, and ``JType.NULL`` (value ``None``). Other references are the interpreter's job.

Errors: :class:`JavaArithmeticError` is a Java exception the program would throw
(``java.lang.ArithmeticException: / by zero``); :class:`JavaTypeError` is a compile-time error
(``bad operand types for binary operator '+'``).
"""

from __future__ import annotations

import math
import struct
from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "BOOLEAN",
    "BYTE",
    "CHAR",
    "DOUBLE",
    "FLOAT",
    "INT",
    "LONG",
    "NULL",
    "SHORT",
    "STRING",
    "JType",
    "JValue",
    "JavaArithmeticError",
    "JavaTypeError",
    "assign_convert",
    "binary",
    "binary_promotion",
    "cast",
    "compound_assign",
    "double_to_string",
    "f32",
    "float_to_string",
    "increment",
    "int_to_f32",
    "is_widening",
    "to_java_string",
    "unary",
    "unary_promotion",
]


class JType(StrEnum):
    BOOLEAN = "boolean"
    BYTE = "byte"
    CHAR = "char"
    SHORT = "short"
    INT = "int"
    LONG = "long"
    FLOAT = "float"
    DOUBLE = "double"
    STRING = "java.lang.String"
    NULL = "null"

    @property
    def is_numeric(self) -> bool:
        return self in _NUMERIC

    @property
    def is_integral(self) -> bool:
        return self in _INTEGRAL

    @property
    def is_floating(self) -> bool:
        return self is JType.FLOAT or self is JType.DOUBLE

    @property
    def is_primitive(self) -> bool:
        return self not in (JType.STRING, JType.NULL)

    @property
    def signature(self) -> str:
        """JNI signature: "I", "Z", "Ljava/lang/String;" ..."""
        return _SIGS[self]


BOOLEAN, BYTE, CHAR, SHORT = JType.BOOLEAN, JType.BYTE, JType.CHAR, JType.SHORT
INT, LONG, FLOAT, DOUBLE = JType.INT, JType.LONG, JType.FLOAT, JType.DOUBLE
STRING, NULL = JType.STRING, JType.NULL

_INTEGRAL = frozenset({BYTE, CHAR, SHORT, INT, LONG})
_NUMERIC = _INTEGRAL | {FLOAT, DOUBLE}
_SIGS = {BOOLEAN: "Z", BYTE: "B", CHAR: "C", SHORT: "S", INT: "I", LONG: "J", FLOAT: "F", DOUBLE: "D",
         STRING: "Ljava/lang/String;", NULL: "N"}
# (bits, signed) of the integral types
_RANGE = {BYTE: (8, True), SHORT: (16, True), CHAR: (16, False), INT: (32, True), LONG: (64, True)}


class JValue(NamedTuple):
    type: JType
    value: object

    def __str__(self) -> str:
        return to_java_string(self.type, self.value)


class JavaArithmeticError(Exception):
    """The Java program would throw ``java.lang.ArithmeticException`` with this message."""

    exception_class = "java.lang.ArithmeticException"

    def __init__(self, message: str = "/ by zero") -> None:
        super().__init__(message)
        self.message = message

    def describe(self) -> str:
        return f"threw {self.exception_class}: {self.message}"


class JavaTypeError(Exception):
    """A compile-time type error, worded like javac."""


# ------------------------------------------------------------------------------------- conversion


def wrap(value: int, t: JType) -> int:
    """Reduce an integer modulo 2**bits into the range of integral type ``t``."""
    bits, signed = _RANGE[t]
    value &= (1 << bits) - 1
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


_F32_OVERFLOW = 2.0**128 - 2.0**103  # values >= this (in magnitude) round to infinity


def f32(x: float) -> float:
    """Round a double to the nearest float32 (ties to even), returned as a Python float."""
    if math.isnan(x) or math.isinf(x):
        return x
    if abs(x) >= _F32_OVERFLOW:
        return math.copysign(math.inf, x)
    return struct.unpack("<f", struct.pack("<f", x))[0]


def int_to_f32(n: int) -> float:
    """Exact int/long -> float conversion (round to nearest even at 24 bits, no double rounding)."""
    if -(1 << 53) <= n <= (1 << 53):
        return f32(float(n))
    sign = -1 if n < 0 else 1
    m = abs(n)
    shift = m.bit_length() - 24
    q, r = divmod(m, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return sign * float(q << shift)


def _to_int_saturating(x: float, t: JType) -> int:
    if math.isnan(x):
        return 0
    bits = 64 if t is LONG else 32
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if x <= lo:
        return lo
    if x >= hi:
        return hi
    return int(x)  # truncates toward zero


def _coerce(v: tuple) -> JValue:
    t, val = v
    if not isinstance(t, JType):
        t = JType(t)
    return JValue(t, val)


def cast(target: JType | str, v: tuple) -> JValue:
    """Casting conversion between primitive types (JLS 5.5): widening and narrowing with Java's
    rules -- NaN -> 0, saturation for float/double -> int/long, float/double -> byte/short/char go
    through int, integral narrowing keeps the low bits. boolean only casts to boolean; String and
    null only to themselves (null to String too)."""
    t = JType(target)
    src, val = _coerce(v)
    if t is src:
        return JValue(t, val)
    if t is BOOLEAN or src is BOOLEAN or not t.is_primitive or not src.is_primitive:
        if t is STRING and src is NULL:
            return JValue(STRING, None)
        raise JavaTypeError(f"incompatible types: {src.value} cannot be converted to {t.value}")
    if t is DOUBLE:
        return JValue(t, float(val))
    if t is FLOAT:
        return JValue(t, f32(val) if src.is_floating else int_to_f32(val))
    # integral target
    if src.is_floating:
        if t is LONG:
            return JValue(t, _to_int_saturating(val, LONG))
        return JValue(t, wrap(_to_int_saturating(val, INT), t))
    return JValue(t, wrap(val, t))


def is_widening(src: JType | str, dst: JType | str) -> bool:
    """Identity or widening primitive conversion (JLS 5.1.2); also primitive subtyping (4.10.1)."""
    s, d = JType(src), JType(dst)
    if s is d:
        return True
    return d in _WIDENING.get(s, ())


_WIDENING = {
    BYTE: {SHORT, INT, LONG, FLOAT, DOUBLE},
    SHORT: {INT, LONG, FLOAT, DOUBLE},
    CHAR: {INT, LONG, FLOAT, DOUBLE},
    INT: {LONG, FLOAT, DOUBLE},
    LONG: {FLOAT, DOUBLE},
    FLOAT: {DOUBLE},
}


def assign_convert(target: JType | str, v: tuple, constant: bool = False) -> JValue:
    """Assignment conversion (JLS 5.2) of a primitive value to a variable of type ``target``:
    identity/widening always; narrowing of an int (or char/short/byte) constant to byte/short/char
    only when ``constant`` and the value fits. Raises JavaTypeError otherwise."""
    t = JType(target)
    src, val = _coerce(v)
    if is_widening(src, t) or (t is STRING and src in (STRING, NULL)):
        return cast(t, (src, val))
    if constant and src in (BYTE, SHORT, CHAR, INT) and t in (BYTE, SHORT, CHAR) and wrap(val, t) == val:
        return JValue(t, val)
    raise JavaTypeError(f"incompatible types: possible lossy conversion from {src.value} to {t.value}"
                        if src.is_numeric and t.is_numeric else
                        f"incompatible types: {src.value} cannot be converted to {t.value}")


def unary_promotion(t: JType | str) -> JType:
    """JLS 5.6: byte/short/char -> int; others unchanged (numeric only)."""
    t = JType(t)
    if not t.is_numeric:
        raise JavaTypeError(f"bad operand type {t.value}")
    return INT if t in (BYTE, SHORT, CHAR) else t


def binary_promotion(a: JType | str, b: JType | str) -> JType:
    """JLS 5.6: double > float > long > int."""
    a, b = JType(a), JType(b)
    if not (a.is_numeric and b.is_numeric):
        raise JavaTypeError("bad operand types")
    for t in (DOUBLE, FLOAT, LONG):
        if a is t or b is t:
            return t
    return INT


# ------------------------------------------------------------------------------------- operations


def _arith(op: str, t: JType, x, y):
    if t.is_floating:
        r = _float_arith(op, x, y)
        return f32(r) if t is FLOAT else r
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op in ("/", "%"):
        if y == 0:
            raise JavaArithmeticError("/ by zero")
        q = abs(x) // abs(y)
        if (x < 0) != (y < 0):
            q = -q
        r = q if op == "/" else x - y * q
    else:  # pragma: no cover - guarded by caller
        raise AssertionError(op)
    return wrap(r, t)


def _float_arith(op: str, x: float, y: float) -> float:
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "/":
        if y == 0.0:
            if math.isnan(x) or x == 0.0:
                return math.nan
            neg = (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)
            return -math.inf if neg else math.inf
        return x / y
    # % : fmod, result has the sign of the dividend
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0.0:
        return math.nan
    if math.isinf(y):
        return x
    return math.fmod(x, y)


def _compare(op: str, x, y) -> bool:
    if op == "<":
        return x < y
    if op == ">":
        return x > y
    if op == "<=":
        return x <= y
    if op == ">=":
        return x >= y
    if op == "==":
        return x == y
    return x != y


_ARITH = frozenset({"+", "-", "*", "/", "%"})
_SHIFT = frozenset({"<<", ">>", ">>>"})
_REL = frozenset({"<", ">", "<=", ">="})
_EQ = frozenset({"==", "!="})
_BIT = frozenset({"&", "|", "^"})
_LOGIC = frozenset({"&&", "||"})


def _bad(op: str, a: JType, b: JType) -> JavaTypeError:
    return JavaTypeError(f"bad operand types for binary operator '{op}' (first type: {a.value}, "
                         f"second type: {b.value})")


def binary(op: str, left: tuple, right: tuple) -> JValue:
    """Evaluate ``left op right`` with Java semantics. ``&&``/``||`` here are the non-short-circuit
    boolean results (the interpreter short-circuits before calling). String ``+`` concatenates when
    either side is STRING (use to_java_string on references first)."""
    a, x = _coerce(left)
    b, y = _coerce(right)
    if op == "+" and (a is STRING or b is STRING):
        return JValue(STRING, to_java_string(a, x) + to_java_string(b, y))
    if op in _ARITH:
        if not (a.is_numeric and b.is_numeric):
            raise _bad(op, a, b)
        t = binary_promotion(a, b)
        return JValue(t, _arith(op, t, cast(t, (a, x)).value, cast(t, (b, y)).value))
    if op in _SHIFT:
        if not (a.is_integral and b.is_integral):
            raise _bad(op, a, b)
        t = unary_promotion(a)
        bits = 64 if t is LONG else 32
        n = y & (bits - 1)
        v = cast(t, (a, x)).value
        if op == "<<":
            r = v << n
        elif op == ">>":
            r = v >> n
        else:
            r = (v & ((1 << bits) - 1)) >> n
        return JValue(t, wrap(r, t))
    if op in _REL or op in _EQ:
        if a.is_numeric and b.is_numeric:
            t = binary_promotion(a, b)
            return JValue(BOOLEAN, _compare(op, cast(t, (a, x)).value, cast(t, (b, y)).value))
        if op in _EQ and a is BOOLEAN and b is BOOLEAN:
            return JValue(BOOLEAN, _compare(op, bool(x), bool(y)))
        if op in _EQ and a is NULL and b is NULL:
            return JValue(BOOLEAN, op == "==")
        raise _bad(op, a, b)
    if op in _BIT:
        if a is BOOLEAN and b is BOOLEAN:
            x, y = bool(x), bool(y)
            r = (x and y) if op == "&" else (x or y) if op == "|" else (x != y)
            return JValue(BOOLEAN, r)
        if a.is_integral and b.is_integral:
            t = binary_promotion(a, b)
            x, y = cast(t, (a, x)).value, cast(t, (b, y)).value
            r = (x & y) if op == "&" else (x | y) if op == "|" else (x ^ y)
            return JValue(t, wrap(r, t))
        raise _bad(op, a, b)
    if op in _LOGIC:
        if a is BOOLEAN and b is BOOLEAN:
            return JValue(BOOLEAN, (bool(x) and bool(y)) if op == "&&" else (bool(x) or bool(y)))
        raise _bad(op, a, b)
    raise ValueError(f"unknown binary operator {op!r}")


def unary(op: str, operand: tuple) -> JValue:
    """``+x``, ``-x``, ``~x``, ``!x``."""
    t, x = _coerce(operand)
    if op == "!":
        if t is not BOOLEAN:
            raise JavaTypeError(f"bad operand type {t.value} for unary operator '!'")
        return JValue(BOOLEAN, not x)
    if op == "~":
        if not t.is_integral:
            raise JavaTypeError(f"bad operand type {t.value} for unary operator '~'")
        p = unary_promotion(t)
        return JValue(p, wrap(~x, p))
    if op in ("+", "-"):
        if not t.is_numeric:
            raise JavaTypeError(f"bad operand type {t.value} for unary operator '{op}'")
        p = unary_promotion(t)
        if op == "+":
            return JValue(p, x)
        if p.is_floating:
            return JValue(p, -x)
        return JValue(p, wrap(-x, p))
    raise ValueError(f"unknown unary operator {op!r}")


def increment(v: tuple, delta: int = 1) -> JValue:
    """The new value of ``x++``/``++x`` (delta=1) or ``--`` (delta=-1): computed in the promoted
    type and narrowed back to x's type (``byte b = 127; b++`` -> -128; ``char c = 'a'; c++`` -> 'b')."""
    t, x = _coerce(v)
    if not t.is_numeric:
        raise JavaTypeError(f"bad operand type {t.value} for unary operator '{'++' if delta > 0 else '--'}'")
    r = binary("+", (t, x), (INT, delta))
    return cast(t, r)


def compound_assign(op: str, target: tuple, value: tuple) -> JValue:
    """``target op= value`` == ``(T)(target op value)`` (JLS 15.26.2); op is "+", "<<", ... or
    "+=", "<<=", ... For ``String s; s += x`` the result is a STRING."""
    if op.endswith("=") and op not in ("==", "!=", "<=", ">="):
        op = op[:-1]
    t, _ = _coerce(target)
    r = binary(op, target, value)
    if t is STRING:
        return r
    if t is BOOLEAN:
        if r.type is not BOOLEAN:
            raise JavaTypeError(f"bad operand types for binary operator '{op}'")
        return r
    return cast(t, r)


# ------------------------------------------------------------------------------ string conversion


def _java_layout(digits: str, exp: int) -> str:
    """Java's Double.toString layout for the decimal 0.d1d2... (as d1.d2... x 10**exp)."""
    digits = digits.rstrip("0") or "0"
    if -3 <= exp < 7:
        if exp >= 0:
            whole = digits[: exp + 1].ljust(exp + 1, "0")
            frac = digits[exp + 1:] or "0"
            return f"{whole}.{frac}"
        return "0." + "0" * (-exp - 1) + digits
    return f"{digits[0]}.{digits[1:] or '0'}E{exp}"


def _digits(s: str) -> tuple[str, int]:
    """'1.25e-05' -> ('125', -5)"""
    mant, _, e = s.partition("e")
    whole, _, frac = mant.partition(".")
    return whole + frac, int(e)


def _special(x: float) -> str | None:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    return None


def _shortest(x: float, roundtrip) -> tuple[str, int]:
    """Shortest decimal (>= 2 digits, closest to x among those) that rounds back to x, as Java 19+
    Double.toString/Float.toString choose it."""
    ax = abs(x)
    for p in range(2, 18):
        s = format(ax, f".{p - 1}e")
        if roundtrip(float(s)) == ax:
            return _digits(s)
    return _digits(format(ax, ".16e"))  # pragma: no cover


def double_to_string(x: float) -> str:
    """``Double.toString(x)`` (JDK 19+ shortest-repr algorithm, which is what modern JVMs print)."""
    sp = _special(x)
    if sp is not None:
        return sp
    digits, exp = _shortest(x, lambda y: y)
    return ("-" if x < 0 else "") + _java_layout(digits, exp)


def float_to_string(x: float) -> str:
    """``Float.toString(x)`` for a float32 value held in a Python float."""
    sp = _special(x)
    if sp is not None:
        return sp
    digits, exp = _shortest(x, f32)
    return ("-" if x < 0 else "") + _java_layout(digits, exp)


def to_java_string(t: JType | str, value: object) -> str:
    """``String.valueOf`` of a primitive (or STRING/NULL pseudo-value)."""
    t = JType(t)
    if t is BOOLEAN:
        return "true" if value else "false"
    if t is CHAR:
        return chr(value)  # a lone surrogate stays a lone surrogate, as in Java
    if t is DOUBLE:
        return double_to_string(value)
    if t is FLOAT:
        return float_to_string(value)
    if t is NULL or value is None:
        return "null"
    if t is STRING:
        return value  # type: ignore[return-value]
    return str(value)
