"""Parse table: expression text -> dump() of the AST (pure, no JVM)."""

import pytest

from tracepilot.core.evaluator import ast as A
from tracepilot.core.evaluator.parse import parse_expression

CASES = [
    # literals
    ("1", "int:1"),
    ("0", "int:0"),
    ("2147483647", "int:2147483647"),
    ("-2147483648", "int:-2147483648"),
    ("-9223372036854775808L", "long:-9223372036854775808"),
    ("9223372036854775807L", "long:9223372036854775807"),
    ("1_000_000", "int:1000000"),
    ("10l", "long:10"),
    ("0x1F", "int:31"),
    ("0XfF", "int:255"),
    ("0x7fffffff", "int:2147483647"),
    ("0xFFFFFFFF", "int:-1"),
    ("0x8000_0000", "int:-2147483648"),
    ("0xFFFFFFFFFFFFFFFFL", "long:-1"),
    ("017", "int:15"),
    ("0b101", "int:5"),
    ("0B1111_0000", "int:240"),
    ("0b11111111111111111111111111111111", "int:-1"),
    ("1.5", "double:1.5"),
    ("1.", "double:1.0"),
    (".5", "double:0.5"),
    ("1e3", "double:1000.0"),
    ("1E-2", "double:0.01"),
    ("2d", "double:2.0"),
    ("2D", "double:2.0"),
    ("1.5f", "float:1.5"),
    ("0.1f", "float:0.10000000149011612"),
    ("3F", "float:3.0"),
    ("1_0.2_5", "double:10.25"),
    ("0x1.8p1", "double:3.0"),
    ("0x1p-2f", "float:0.25"),
    ("-0.0", "double:-0.0"),
    ("-1.5f", "float:-1.5"),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("'a'", "char:97"),
    ("'\\n'", "char:10"),
    ("'\\''", "char:39"),
    ("'\\\\'", "char:92"),
    ("'\\u0041'", "char:65"),
    ("'\\uuu0041'", "char:65"),
    ("'\\0'", "char:0"),
    ("'\\101'", "char:65"),
    ("'\\s'", "char:32"),
    ("'é'", "char:233"),
    ('"abc"', '"abc"'),
    ('""', '""'),
    ('"a\\tb"', '"a\tb"'),
    ('"q\\"q"', '"q\\"q"'),
    ('"\\u0048i"', '"Hi"'),
    ('"\\uD83D\\uDE00"', '"\U0001F600"'),
    ('"""\n    hi\n      there\n    """', '"hi\\n  there\\n"'),
    # names
    ("x", "x"),
    ("$order", "$order"),
    ("$exception", "$exception"),
    ("$return", "$return"),
    ("$old", "$old"),
    ("a$b", "a$b"),
    ("_x1", "_x1"),
    ("a.b", "a.b"),
    ("a.b.c", "a.b.c"),
    ("java.lang.Integer.MAX_VALUE", "java.lang.Integer.MAX_VALUE"),
    ("$m.field", "$m.field"),
    ("(a).b", "(. a b)"),
    ("this", "this"),
    ("this.x", "(. this x)"),
    ("Outer.this", "Outer.this"),
    ("Outer.this.x", "(. Outer.this x)"),
    ("super.x", "(. super x)"),
    ("Outer.super.x", "(. Outer.super x)"),
    ("a().b", "(. (call _ a) b)"),
    ("a.b().c.d", "(. (. (call a b) c) d)"),
    # arrays
    ("a[0]", "([] a int:0)"),
    ("a[i][j]", "([] ([] a i) j)"),
    ("a.b[1]", "([] a.b int:1)"),
    ("a.b.c[1].d", "(. ([] a.b.c int:1) d)"),
    ("f()[2]", "([] (call _ f) int:2)"),
    # calls
    ("foo()", "(call _ foo)"),
    ("foo(1, x)", "(call _ foo int:1 x)"),
    ("a.foo()", "(call a foo)"),
    ("a.b.foo(c)", "(call a.b foo c)"),
    ("this.foo()", "(call this foo)"),
    ("super.foo(1)", "(call super foo int:1)"),
    ("Outer.super.foo()", "(call Outer.super foo)"),
    ("java.util.List.of(1, 2)", "(call java.util.List of int:1 int:2)"),
    ("List.<String>of()", "(call List of)"),
    ("s.length() > 0", "(> (call s length) int:0)"),
    ("a.b().c()", "(call (call a b) c)"),
    ("$m.size()", "(call $m size)"),
    ('"abc".length()', '(call "abc" length)'),
    ("(x).foo()", "(call x foo)"),
    # new
    ("new Foo()", "(new Foo)"),
    ("new Foo(1, b)", "(new Foo int:1 b)"),
    ("new java.util.ArrayList<String>(3)", "(new java.util.ArrayList int:3)"),
    ("new java.util.HashMap<>()", "(new java.util.HashMap)"),
    ("new Outer.Inner()", "(new Outer.Inner)"),
    ("new int[3]", "(new-array int[] [int:3])"),
    ("new int[3][]", "(new-array int[][] [int:3])"),
    ("new int[2][n]", "(new-array int[][] [int:2] [n])"),
    ("new String[]{\"a\", null}", '(new-array String[] {"a" null})'),
    ("new int[][]{{1}, {2, 3}}", "(new-array int[][] {{int:1} {int:2 int:3}})"),
    ("new int[]{}", "(new-array int[] {})"),
    # unary
    ("-x", "(- x)"),
    ("+x", "(+ x)"),
    ("!b", "(! b)"),
    ("~x", "(~ x)"),
    ("- -1", "(- int:-1)"),
    ("-(1)", "(- int:1)"),
    ("i++", "(post++ i)"),
    ("i--", "(post-- i)"),
    ("++i", "(pre++ i)"),
    ("--a[0]", "(pre-- ([] a int:0))"),
    ("this.n++", "(post++ (. this n))"),
    # binary and precedence
    ("a + b", "(+ a b)"),
    ("a + b * c", "(+ a (* b c))"),
    ("(a + b) * c", "(* (+ a b) c)"),
    ("a - b - c", "(- (- a b) c)"),
    ("a / b % c", "(% (/ a b) c)"),
    ("a << 2 + 1", "(<< a (+ int:2 int:1))"),
    ("a >> b", "(>> a b)"),
    ("a >>> b", "(>>> a b)"),
    ("a < b == c > d", "(== (< a b) (> c d))"),
    ("a <= b && c >= d", "(&& (<= a b) (>= c d))"),
    ("a & b | c ^ d", "(| (& a b) (^ c d))"),
    ("a || b && c", "(|| a (&& b c))"),
    ("x != null && x.y > 0", "(&& (!= x null) (> x.y int:0))"),
    ('"n=" + n + 1', '(+ (+ "n=" n) int:1)'),
    ("-a * b", "(* (- a) b)"),
    ("a == b ? c : d", "(? (== a b) c d)"),
    ("a ? b : c ? d : e", "(? a b (? c d e))"),
    ("a ? b ? c : d : e", "(? a (? b c d) e)"),
    # instanceof / casts / class literals
    ("o instanceof String", "(instanceof o String)"),
    ("o instanceof String s", "(instanceof o String s)"),
    ("o instanceof final String s", "(instanceof o String s)"),
    ("o instanceof java.util.List<?>", "(instanceof o java.util.List)"),
    ("o instanceof int[]", "(instanceof o int[])"),
    ("o instanceof String s && s.isEmpty()", "(&& (instanceof o String s) (call s isEmpty))"),
    ("(int) x", "(cast int x)"),
    ("(long) x * 2", "(* (cast long x) int:2)"),
    ("(byte) -1", "(cast byte int:-1)"),
    ("(String) o", "(cast String o)"),
    ("(String) a + b", "(+ (cast String a) b)"),
    ("(java.util.List<String>) o", "(cast java.util.List o)"),
    ("(int[]) o", "(cast int[] o)"),
    ("(char) (c + 1)", "(cast char (+ c int:1))"),
    ("(a) - b", "(- a b)"),
    ("Foo.class", "(class Foo)"),
    ("int.class", "(class int)"),
    ("void.class", "(class void)"),
    ("int[].class", "(class int[])"),
    ("String[][].class", "(class String[][])"),
    ("java.util.List.class", "(class java.util.List)"),
    ("Foo.class.getName()", "(call (class Foo) getName)"),
    # assignment
    ("x = 5", "(= x int:5)"),
    ("x = y = 0", "(= x (= y int:0))"),
    ("this.count = 0", "(= (. this count) int:0)"),
    ("a.b = c", "(= a.b c)"),
    ("arr[3] = 7", "(= ([] arr int:3) int:7)"),
    ("$m.f = null", "(= $m.f null)"),
    ("x += 1", "(+= x int:1)"),
    ("x -= 1", "(-= x int:1)"),
    ("x *= 2", "(*= x int:2)"),
    ("x /= 2", "(/= x int:2)"),
    ("x %= 2", "(%= x int:2)"),
    ("x &= m", "(&= x m)"),
    ("x |= m", "(|= x m)"),
    ("x ^= m", "(^= x m)"),
    ("x <<= 1", "(<<= x int:1)"),
    ("x >>= 1", "(>>= x int:1)"),
    ("x >>>= 1", "(>>>= x int:1)"),
    # whitespace and comments
    ("  a  +  b  ", "(+ a b)"),
    ("a + b // trailing comment", "(+ a b)"),
    ("a /* c */ + b", "(+ a b)"),
    ("a +\n b", "(+ a b)"),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_parse_table(text, expected):
    assert A.dump(parse_expression(text)) == expected


def test_table_is_large():
    assert len(CASES) >= 100


def test_columns_point_into_user_text():
    e = parse_expression("a + foo(b, c[1])")
    assert isinstance(e, A.Binary)
    assert (e.column, e.op_column) == (0, 2)
    call = e.right
    assert isinstance(call, A.MethodCall)
    assert (call.column, call.name_column) == (4, 4)
    assert [a.column for a in call.args] == [8, 11]
    idx = call.args[1]
    assert isinstance(idx, A.ArrayAccess) and idx.index.column == 13


def test_columns_with_non_ascii_text():
    e = parse_expression('"héllo" + x')
    assert isinstance(e, A.Binary)
    assert e.right.column == 10 and e.op_column == 8


def test_columns_multiline():
    e = parse_expression("a\n  + b")
    assert isinstance(e, A.Binary) and e.right.column == 6


def test_negative_literal_column_is_the_minus():
    e = parse_expression("x == -1")
    assert isinstance(e, A.Binary) and e.right == A.Literal("int", -1) and e.right.column == 5


def test_nodes_are_frozen_slotted_and_compare_without_columns():
    a = parse_expression("x + 1")
    b = parse_expression(" x  +  1")
    assert a == b
    assert a.column == 0 and b.column == 1
    assert not hasattr(a, "__dict__")
    with pytest.raises(AttributeError):
        a.op = "-"  # type: ignore[misc]


def test_shapes():
    e = parse_expression("super.foo(1)")
    assert isinstance(e, A.MethodCall) and e.is_super and isinstance(e.target, A.Super)
    e = parse_expression("new int[2][]")
    assert isinstance(e, A.NewArray) and e.type == A.TypeRef("int", 2) and len(e.dims) == 1
    e = parse_expression("x += 1")
    assert isinstance(e, A.Assign) and e.binary_op == "+"
    e = parse_expression("(java.util.List<String>) o")
    assert isinstance(e, A.Cast) and e.type.name == "java.util.List" and not e.type.is_primitive
    e = parse_expression("$exception")
    assert isinstance(e, A.Name) and e.is_dollar


def test_cache_returns_same_object():
    assert parse_expression("a.b + 1") is parse_expression("a.b + 1")


def test_parse_is_fast():
    import time

    from tracepilot.core.evaluator.parse import _parse

    text = 'this.count > 10 && name.equals("x") || arr[i] != null'
    _parse(text)
    t0 = time.perf_counter()
    for _ in range(200):
        _parse(text)
    per_call = (time.perf_counter() - t0) / 200
    assert per_call < 0.002  # typically ~0.1 ms; generous for slow CI machines
