"""Malformed and unsupported expressions: message, column and caret line."""

import pytest

from tracepilot.core.evaluator.parse import ExpressionSyntaxError, parse_expression

ERRORS = [
    # text, column, fragment of the message
    ("a + * b", 4, "expected an expression after '+' at column 4"),
    ("a +", 3, "expected an expression after '+' at column 3"),
    ("(a + )", 5, "expected an expression after '+'"),
    ("x = ", 3, "expected an expression after '='"),
    ("f(a,)", 4, "expected an expression after ','"),
    ("3 = = 4", 2, "left side is not a variable"),
    ("a = = 4", 4, "expected an expression after '='"),
    ("a b c", 2, "expected an operator or the end of the expression at column 2"),
    ("a b", 0, "declarations are not supported"),
    ("foo(a)(b)", 6, "expected an operator or the end of the expression"),
    ("a.", 2, "expected a name after '.'"),
    ("a..b", 2, "expected a name after '.'"),
    ("a ? b", 5, "expected ':'"),
    ("new", 3, "expected a type after 'new'"),
    ("new int[]", 9, "array initializer"),
    ("a instanceof", 12, "expected a type after 'instanceof'"),
    ("f(a b)", 4, "expected ',' or ')'"),
    ("a[1", 1, "'[' at column 1 is never closed"),
    ("(a", 0, "'(' at column 0 is never closed"),
    ("a)", 1, "unmatched ')' at column 1"),
    ("(a]", 2, "expected ')' to close '('"),
    ("x -> x + 1", 0, "lambdas are not supported in expressions"),
    ("(a, b) -> a", 0, "lambdas are not supported"),
    ("String::valueOf", 0, "method references are not supported"),
    ("switch (x) { default -> 1; }", 0, "switch expressions are not supported"),
    ("return 5", 0, "statements are not supported"),
    ("if (a) b", 0, "statements are not supported"),
    ("int x = 3", 0, "declarations are not supported"),
    ("String s", 0, "declarations are not supported"),
    ("{ a }", 0, "blocks are not supported"),
    ("a; b", 1, "unexpected ';'"),
    ("new Foo() { }", 0, "anonymous classes are not supported"),
    ("1 = 2", 2, "left side is not a variable"),
    ("", 0, "empty expression"),
    ("   ", 0, "empty expression"),
    ('"abc', 0, "unclosed string literal"),
    ("'a", 0, "unclosed char literal"),
    ("a /* b", 2, "unclosed comment"),
    ("a # b", 2, "illegal character '#'"),
    ("2147483648", 0, "integer number too large"),
    ("x + 9223372036854775808L", 4, "integer number too large"),
    ("0x1_0000_0000", 0, "integer number too large"),
    ("09", 0, "invalid octal literal"),
    ("1e999", 0, "floating-point number too large"),
    ("1e-999", 0, "floating-point number too small"),
    ("1e40f", 0, "floating-point number too large"),
    ("'ab'", 0, "char literal"),
    ("o instanceof Point(int x, int y)", 13, "record patterns are not supported"),
    ("super", 5, "expected '.' after 'super'"),
    ("x = super", 9, "expected '.' after 'super'"),
]


@pytest.mark.parametrize(("text", "column", "message"), ERRORS, ids=[e[0] or "<empty>" for e in ERRORS])
def test_error(text, column, message):
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression(text)
    err = info.value
    assert message in err.message
    assert err.column == column, err.message
    assert isinstance(err, ValueError)


def test_caret_rendering():
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("a + * b")
    assert str(info.value) == (
        "expected an expression after '+' at column 4\n"
        "a + * b\n"
        "    ^ unexpected '*'"
    )


def test_caret_at_end_of_input():
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("a +")
    assert info.value.caret == "a +\n   ^ unexpected end of expression"


def test_caret_on_second_line():
    with pytest.raises(ExpressionSyntaxError) as info:
        parse_expression("a +\n * b")
    err = info.value
    assert err.column == 5
    assert err.caret == " * b\n ^ unexpected '*'"


def test_errors_are_not_cached_as_results():
    for _ in range(2):
        with pytest.raises(ExpressionSyntaxError):
            parse_expression("a +")
