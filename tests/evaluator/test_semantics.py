"""Java primitive semantics, checked against outputs Java is known to produce."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracepilot.core.evaluator import semantics as S
from tracepilot.core.evaluator.semantics import (
    BOOLEAN,
    BYTE,
    CHAR,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    NULL,
    SHORT,
    STRING,
    JavaArithmeticError,
    JavaTypeError,
)

IMAX, IMIN = 2**31 - 1, -(2**31)
LMAX, LMIN = 2**63 - 1, -(2**63)
NAN, INF = math.nan, math.inf


def f(x):  # a float literal
    return (FLOAT, S.f32(x))


def i(x):
    return (INT, x)


def j(x):
    return (LONG, x)


def d(x):
    return (DOUBLE, x)


def c(ch):
    return (CHAR, ord(ch))


# (op, left, right, expected JValue, or expected Java string of the result)
BINARY = [
    # promotion
    ("+", i(1), i(2), (INT, 3)),
    ("+", i(1), j(2), (LONG, 3)),
    ("+", i(1), f(2.0), (FLOAT, 3.0)),
    ("+", j(1), f(2.0), (FLOAT, 3.0)),
    ("+", f(1.0), d(2.0), (DOUBLE, 3.0)),
    ("+", (BYTE, 1), (BYTE, 2), (INT, 3)),
    ("+", (SHORT, 1), (CHAR, 2), (INT, 3)),
    ("+", c("a"), i(1), (INT, 98)),
    ("+", c("a"), c("b"), (INT, 195)),
    ("-", c("b"), c("a"), (INT, 1)),
    ("*", (BYTE, 100), (BYTE, 100), (INT, 10000)),
    # int/long overflow
    ("+", i(IMAX), i(1), (INT, IMIN)),
    ("-", i(IMIN), i(1), (INT, IMAX)),
    ("*", i(IMAX), i(2), (INT, -2)),
    ("*", i(65536), i(65536), (INT, 0)),
    ("*", i(46341), i(46341), (INT, -2147479015)),
    ("+", j(LMAX), j(1), (LONG, LMIN)),
    ("*", j(LMAX), j(2), (LONG, -2)),
    ("+", i(IMAX), j(1), (LONG, 2**31)),
    ("/", i(IMIN), i(-1), (INT, IMIN)),
    ("%", i(IMIN), i(-1), (INT, 0)),
    ("/", j(LMIN), j(-1), (LONG, LMIN)),
    # division truncates toward zero, remainder has the dividend's sign
    ("/", i(7), i(2), (INT, 3)),
    ("/", i(-7), i(2), (INT, -3)),
    ("/", i(7), i(-2), (INT, -3)),
    ("/", i(-7), i(-2), (INT, 3)),
    ("%", i(7), i(2), (INT, 1)),
    ("%", i(-7), i(2), (INT, -1)),
    ("%", i(7), i(-2), (INT, 1)),
    ("%", i(-7), i(-2), (INT, -1)),
    ("/", j(-9), i(4), (LONG, -2)),
    ("%", j(-9), i(4), (LONG, -1)),
    ("/", c("z"), i(2), (INT, 61)),
    # floating arithmetic
    ("+", d(0.1), d(0.2), "0.30000000000000004"),
    ("/", d(1.0), i(3), "0.3333333333333333"),
    ("/", f(1.0), i(3), "0.33333334"),
    ("+", f(0.1), f(0.2), "0.3"),
    ("*", f(0.1), f(3.0), "0.3"),
    ("+", f(16777216.0), f(1.0), "1.6777216E7"),
    ("+", d(16777216.0), d(1.0), "1.6777217E7"),
    ("/", d(1.0), i(0), "Infinity"),
    ("/", d(-1.0), i(0), "-Infinity"),
    ("/", d(1.0), d(-0.0), "-Infinity"),
    ("/", d(0.0), i(0), "NaN"),
    ("/", f(1.0), f(0.0), "Infinity"),
    ("*", d(1e300), d(1e10), "Infinity"),
    ("*", f(1e30), f(1e30), "Infinity"),
    ("-", d(INF), d(INF), "NaN"),
    ("*", d(0.0), d(-1.0), "-0.0"),
    ("%", d(5.5), i(2), "1.5"),
    ("%", d(-5.5), i(2), "-1.5"),
    ("%", d(5.5), i(-2), "1.5"),
    ("%", d(1.0), d(0.0), "NaN"),
    ("%", d(INF), d(1.0), "NaN"),
    ("%", d(3.0), d(INF), "3.0"),
    ("%", f(7.5), f(2.0), "1.5"),
    ("/", i(1), d(2), "0.5"),
    ("/", i(1), i(2), "0"),
    # shifts
    ("<<", i(1), i(31), (INT, IMIN)),
    ("<<", i(1), i(32), (INT, 1)),
    ("<<", i(1), i(33), (INT, 2)),
    ("<<", i(1), i(-1), (INT, IMIN)),
    ("<<", j(1), i(63), (LONG, LMIN)),
    ("<<", j(1), i(64), (LONG, 1)),
    ("<<", i(1), j(32), (INT, 1)),
    (">>", i(-1), i(1), (INT, -1)),
    (">>", i(-8), i(1), (INT, -4)),
    (">>>", i(-1), i(28), (INT, 15)),
    (">>>", i(-1), i(0), (INT, -1)),
    (">>>", i(-1), i(32), (INT, -1)),
    (">>>", j(-1), i(60), (LONG, 15)),
    (">>>", (BYTE, -1), i(28), (INT, 15)),
    ("<<", c("a"), i(1), (INT, 194)),
    # bitwise
    ("&", i(5), i(3), (INT, 1)),
    ("|", i(5), i(3), (INT, 7)),
    ("^", i(5), i(3), (INT, 6)),
    ("&", i(-1), j(0xFF), (LONG, 255)),
    ("&", (BOOLEAN, True), (BOOLEAN, False), (BOOLEAN, False)),
    ("|", (BOOLEAN, True), (BOOLEAN, False), (BOOLEAN, True)),
    ("^", (BOOLEAN, True), (BOOLEAN, True), (BOOLEAN, False)),
    ("&&", (BOOLEAN, True), (BOOLEAN, True), (BOOLEAN, True)),
    ("||", (BOOLEAN, False), (BOOLEAN, False), (BOOLEAN, False)),
    # comparisons, NaN rules, mixed types
    ("<", i(1), i(2), (BOOLEAN, True)),
    ("<", i(1), d(0.5), (BOOLEAN, False)),
    ("==", i(1), d(1.0), (BOOLEAN, True)),
    ("==", c("a"), i(97), (BOOLEAN, True)),
    ("==", d(0.0), d(-0.0), (BOOLEAN, True)),
    ("==", d(NAN), d(NAN), (BOOLEAN, False)),
    ("!=", d(NAN), d(NAN), (BOOLEAN, True)),
    ("<", d(NAN), i(1), (BOOLEAN, False)),
    (">", d(NAN), i(1), (BOOLEAN, False)),
    ("<=", d(NAN), d(NAN), (BOOLEAN, False)),
    (">=", f(NAN), f(1.0), (BOOLEAN, False)),
    ("<", d(-INF), d(INF), (BOOLEAN, True)),
    ("==", f(0.1), d(0.1), (BOOLEAN, False)),
    ("==", j(16777217), f(16777216.0), (BOOLEAN, True)),  # long promoted to float
    ("==", j(16777217), d(16777216.0), (BOOLEAN, False)),
    ("==", i(16777217), f(16777216.0), (BOOLEAN, True)),
    (">=", j(LMAX), j(LMIN), (BOOLEAN, True)),
    ("==", (BOOLEAN, True), (BOOLEAN, True), (BOOLEAN, True)),
    ("!=", (BOOLEAN, True), (BOOLEAN, False), (BOOLEAN, True)),
    ("==", (NULL, None), (NULL, None), (BOOLEAN, True)),
    # string concatenation
    ("+", (STRING, "a"), i(1), (STRING, "a1")),
    ("+", i(1), (STRING, "a"), (STRING, "1a")),
    ("+", (STRING, "x="), d(1.0), (STRING, "x=1.0")),
    ("+", (STRING, ""), c("a"), (STRING, "a")),
    ("+", (STRING, ""), f(0.1), (STRING, "0.1")),
    ("+", (STRING, "b="), (BOOLEAN, True), (STRING, "b=true")),
    ("+", (STRING, "n="), (NULL, None), (STRING, "n=null")),
    ("+", (STRING, "v"), j(LMIN), (STRING, "v-9223372036854775808")),
]


@pytest.mark.parametrize(("op", "left", "right", "expected"), BINARY,
                         ids=[f"{b[1]}{b[0]}{b[2]}" for b in BINARY])
def test_binary(op, left, right, expected):
    result = S.binary(op, left, right)
    if isinstance(expected, str):
        assert S.to_java_string(*result) == expected
    else:
        assert result == expected
        assert type(result.value) is type(expected[1])


CASTS = [
    (INT, d(3.99), 3),
    (INT, d(-3.99), -3),
    (INT, d(NAN), 0),
    (INT, f(NAN), 0),
    (INT, d(1e20), IMAX),
    (INT, d(-1e20), IMIN),
    (INT, d(INF), IMAX),
    (LONG, d(1e20), LMAX),
    (LONG, d(-INF), LMIN),
    (LONG, d(-0.9), 0),
    (INT, j(2**32 + 5), 5),
    (INT, j(2**31), IMIN),
    (INT, j(-1), -1),
    (BYTE, i(200), -56),
    (BYTE, i(128), -128),
    (BYTE, i(-129), 127),
    (BYTE, d(300.5), 44),
    (BYTE, d(1e10), -1),
    (SHORT, i(65535), -1),
    (SHORT, i(32768), -32768),
    (SHORT, d(1e10), -1),
    (CHAR, i(-1), 65535),
    (CHAR, i(65), 65),
    (CHAR, i(65536 + 66), 66),
    (CHAR, d(65.7), 65),
    (CHAR, d(-1.0), 65535),
    (CHAR, (BYTE, -1), 65535),
    (INT, c("A"), 65),
    (SHORT, (CHAR, 65535), -1),
    (BYTE, (CHAR, 0x1FF), -1),
    (LONG, i(-5), -5),
    (DOUBLE, i(7), 7.0),
    (DOUBLE, j(2**53 + 1), 9007199254740992.0),
    (FLOAT, i(16777217), 16777216.0),
    (FLOAT, j(LMAX), 9.223372036854775807e18),
    (FLOAT, d(0.1), 0.10000000149011612),
    (FLOAT, d(1e40), INF),
    (FLOAT, d(-1e40), -INF),
    (FLOAT, d(1e-50), 0.0),
    (DOUBLE, f(0.1), 0.10000000149011612),
    (BOOLEAN, (BOOLEAN, True), True),
]


@pytest.mark.parametrize(("target", "value", "expected"), CASTS, ids=[f"({c[0]}){c[1]}" for c in CASTS])
def test_cast(target, value, expected):
    r = S.cast(target, value)
    assert r.type is target
    assert r.value == expected


def test_cast_float_to_string():
    assert S.to_java_string(*S.cast(FLOAT, j(LMAX))) == "9.223372E18"
    assert S.to_java_string(*S.cast(DOUBLE, f(0.1))) == "0.10000000149011612"


def test_long_to_float_avoids_double_rounding():
    # 2**60 + 2**36 + 1: exactly representable as double? no; rounding via double would give a tie
    n = 2**60 + 2**36 + 1
    assert S.int_to_f32(n) == float(2**60 + 2**37)
    assert S.int_to_f32(2**60 + 2**36) == float(2**60)  # tie -> even


@pytest.mark.parametrize(("target", "value"), [(BOOLEAN, i(1)), (INT, (BOOLEAN, True)), (INT, (STRING, "1"))])
def test_bad_casts(target, value):
    with pytest.raises(JavaTypeError, match="incompatible types"):
        S.cast(target, value)


DOUBLE_STRINGS = [
    (1.0, "1.0"),
    (0.0, "0.0"),
    (-0.0, "-0.0"),
    (100.0, "100.0"),
    (-1.5, "-1.5"),
    (3.141592653589793, "3.141592653589793"),
    (0.1, "0.1"),
    (0.001, "0.001"),
    (0.00123, "0.00123"),
    (1e-4, "1.0E-4"),
    (1e-5, "1.0E-5"),
    (1234567.0, "1234567.0"),
    (9999999.0, "9999999.0"),
    (1e7, "1.0E7"),
    (1e10, "1.0E10"),
    (123456789.0, "1.23456789E8"),
    (1e21, "1.0E21"),
    (2e23, "2.0E23"),
    (1.7976931348623157e308, "1.7976931348623157E308"),
    (5e-324, "4.9E-324"),
    (2.2250738585072014e-308, "2.2250738585072014E-308"),
    (NAN, "NaN"),
    (INF, "Infinity"),
    (-INF, "-Infinity"),
    (9007199254740993.0, "9.007199254740992E15"),
    (-1e-3, "-0.001"),
]


@pytest.mark.parametrize(("value", "expected"), DOUBLE_STRINGS, ids=[e for _, e in DOUBLE_STRINGS])
def test_double_to_string(value, expected):
    assert S.to_java_string(DOUBLE, value) == expected


FLOAT_STRINGS = [
    (1.0, "1.0"),
    (0.1, "0.1"),
    (3.14, "3.14"),
    (-2.5, "-2.5"),
    (1e10, "1.0E10"),
    (1.0 / 3, "0.33333334"),
    (16777216.0, "1.6777216E7"),
    (3.4028234663852886e38, "3.4028235E38"),
    (1.401298464324817e-45, "1.4E-45"),
    (1e-3, "0.001"),
    (1e-4, "1.0E-4"),
    (123456.79, "123456.79"),
    (-0.0, "-0.0"),
    (NAN, "NaN"),
    (-INF, "-Infinity"),
]


@pytest.mark.parametrize(("value", "expected"), FLOAT_STRINGS, ids=[e for _, e in FLOAT_STRINGS])
def test_float_to_string(value, expected):
    assert S.to_java_string(FLOAT, S.f32(value)) == expected


@pytest.mark.parametrize(("v", "expected"), [
    ((BOOLEAN, True), "true"), ((BOOLEAN, False), "false"), (c("x"), "x"), ((CHAR, 0x263A), "\u263a"),
    (i(-5), "-5"), (j(LMIN), "-9223372036854775808"), ((BYTE, -128), "-128"), ((NULL, None), "null"),
    ((STRING, "s"), "s"),
])
def test_to_java_string_others(v, expected):
    assert S.to_java_string(*v) == expected


def test_integer_division_by_zero_throws():
    for op in ("/", "%"):
        for left, right in [(i(1), i(0)), (j(1), j(0)), (i(0), (BYTE, 0)), (c("a"), j(0))]:
            with pytest.raises(JavaArithmeticError) as info:
                S.binary(op, left, right)
            assert info.value.describe() == "threw java.lang.ArithmeticException: / by zero"


UNARY = [
    ("-", i(5), (INT, -5)),
    ("-", i(IMIN), (INT, IMIN)),
    ("-", j(LMIN), (LONG, LMIN)),
    ("-", (BYTE, -128), (INT, 128)),
    ("-", c("a"), (INT, -97)),
    ("+", c("a"), (INT, 97)),
    ("-", d(0.0), (DOUBLE, -0.0)),
    ("~", i(0), (INT, -1)),
    ("~", j(5), (LONG, -6)),
    ("~", (CHAR, 0), (INT, -1)),
    ("!", (BOOLEAN, True), (BOOLEAN, False)),
]


@pytest.mark.parametrize(("op", "v", "expected"), UNARY)
def test_unary(op, v, expected):
    assert S.unary(op, v) == expected


def test_negative_zero_from_unary():
    assert S.to_java_string(*S.unary("-", d(0.0))) == "-0.0"


def test_increment_keeps_type():
    assert S.increment((BYTE, 127)) == (BYTE, -128)
    assert S.increment((CHAR, ord("a"))) == (CHAR, ord("b"))
    assert S.increment((CHAR, 0), -1) == (CHAR, 65535)
    assert S.increment(i(IMAX)) == (INT, IMIN)
    assert S.increment(d(0.5)) == (DOUBLE, 1.5)
    assert S.increment(f(16777216.0)) == (FLOAT, 16777216.0)


def test_compound_assign_narrows():
    assert S.compound_assign("+=", (BYTE, 100), i(100)) == (BYTE, -56)
    assert S.compound_assign("+=", (CHAR, 97), i(1)) == (CHAR, 98)
    assert S.compound_assign("*=", i(10), d(1.5)) == (INT, 15)
    assert S.compound_assign("-=", (SHORT, 0), d(1e10)) == (SHORT, 0)  # (short)(int)(-1e10) = 0
    assert S.compound_assign(">>>=", (BYTE, -1), i(1)) == (BYTE, -1)
    assert S.compound_assign("+=", (STRING, "a"), i(1)) == (STRING, "a1")
    assert S.compound_assign("&=", (BOOLEAN, True), (BOOLEAN, False)) == (BOOLEAN, False)


def test_assign_convert():
    assert S.assign_convert(LONG, i(5)) == (LONG, 5)
    assert S.assign_convert(DOUBLE, c("a")) == (DOUBLE, 97.0)
    assert S.assign_convert(BYTE, i(5), constant=True) == (BYTE, 5)
    assert S.assign_convert(CHAR, i(65), constant=True) == (CHAR, 65)
    with pytest.raises(JavaTypeError, match="lossy"):
        S.assign_convert(BYTE, i(200), constant=True)
    with pytest.raises(JavaTypeError, match="lossy"):
        S.assign_convert(INT, j(1))
    with pytest.raises(JavaTypeError, match="lossy"):
        S.assign_convert(INT, (DOUBLE, 1.0))
    with pytest.raises(JavaTypeError):
        S.assign_convert(BOOLEAN, i(1))


@pytest.mark.parametrize(("op", "left", "right"), [
    ("+", (BOOLEAN, True), i(1)), ("<", (BOOLEAN, True), (BOOLEAN, False)), ("&&", i(1), i(1)),
    ("<<", d(1.0), i(1)), ("&", d(1.0), i(1)), ("==", (BOOLEAN, True), i(1)), ("-", (STRING, "a"), i(1)),
])
def test_bad_operand_types(op, left, right):
    with pytest.raises(JavaTypeError, match="bad operand types"):
        S.binary(op, left, right)


def test_promotions():
    assert S.binary_promotion(BYTE, SHORT) is INT
    assert S.binary_promotion(CHAR, LONG) is LONG
    assert S.binary_promotion(LONG, FLOAT) is FLOAT
    assert S.binary_promotion(FLOAT, DOUBLE) is DOUBLE
    assert S.unary_promotion(CHAR) is INT
    assert S.unary_promotion("long") is LONG
    assert S.is_widening(INT, FLOAT) and S.is_widening(CHAR, INT) and not S.is_widening(BYTE, CHAR)
    assert not S.is_widening(SHORT, CHAR) and not S.is_widening(LONG, INT)


def test_jtype_accepts_strings():
    assert S.binary("+", ("int", 1), ("long", 2)) == (LONG, 3)
    assert S.JType("char").signature == "C"
    assert str(S.JValue(DOUBLE, 1e10)) == "1.0E10"


def test_table_sizes():
    total = len(BINARY) + len(CASTS) + len(DOUBLE_STRINGS) + len(FLOAT_STRINGS) + len(UNARY)
    assert total >= 120


# ---------------------------------------------------------------------------------------- properties

ints = st.integers(IMIN, IMAX)
longs = st.integers(LMIN, LMAX)


def wrap32(x):
    return ((x + 2**31) % 2**32) - 2**31


def wrap64(x):
    return ((x + 2**63) % 2**64) - 2**63


@given(ints, ints)
def test_int_add_sub_mul_wrap(a, b):
    assert S.binary("+", i(a), i(b)).value == wrap32(a + b)
    assert S.binary("-", i(a), i(b)).value == wrap32(a - b)
    assert S.binary("*", i(a), i(b)).value == wrap32(a * b)


@given(longs, longs)
def test_long_add_mul_wrap(a, b):
    assert S.binary("+", j(a), j(b)).value == wrap64(a + b)
    assert S.binary("*", j(a), j(b)).value == wrap64(a * b)


@given(ints, ints.filter(lambda x: x != 0))
def test_div_rem_identity(a, b):
    q = S.binary("/", i(a), i(b)).value
    r = S.binary("%", i(a), i(b)).value
    assert wrap32(q * b + r) == a
    assert abs(r) < abs(b)
    assert r == 0 or (r < 0) == (a < 0)
    if not (a == IMIN and b == -1):
        assert q == int(a / b) if abs(a) < 2**52 else True


@given(ints, st.integers(-1000, 1000))
def test_shift_distance_masked(a, n):
    assert S.binary("<<", i(a), i(n)) == S.binary("<<", i(a), i(n & 31))
    assert S.binary(">>>", i(a), i(n)).value == wrap32((a % 2**32) >> (n & 31))
    assert S.binary(">>", i(a), i(n)).value == a >> (n & 31)


@given(longs)
def test_long_to_int_keeps_low_bits(a):
    assert S.cast(INT, j(a)).value == wrap32(a)
    assert S.cast(CHAR, j(a)).value == a % 65536


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_double_to_int_is_saturating_truncation(x):
    r = S.cast(INT, d(x)).value
    if math.isnan(x):
        assert r == 0
    else:
        assert IMIN <= r <= IMAX
        if IMIN < x < IMAX:
            assert r == math.trunc(x)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_string_round_trips(x):
    s = S.to_java_string(DOUBLE, x)
    assert float(s) == x
    assert ("E" in s) == (not (1e-3 <= abs(x) < 1e7) and x != 0)


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float_string_round_trips(x):
    s = S.to_java_string(FLOAT, x)
    assert S.f32(float(s)) == x
    assert len(s.replace("-", "").replace(".", "").split("E")[0].lstrip("0")) <= 10


@given(st.floats(allow_nan=False))
def test_f32_idempotent(x):
    y = S.f32(x)
    assert S.f32(y) == y or math.isnan(y)
