"""The JVM-independent half of the Java expression evaluator.

* :mod:`.parse` -- ``parse_expression(text) -> Expr`` (tree-sitter-java, cached), ExpressionSyntaxError
* :mod:`.ast` -- the AST node dataclasses and ``dump(node)``
* :mod:`.semantics` -- Java primitive arithmetic, comparisons, casts, ``String.valueOf``
* :mod:`.types` -- JNI signatures <-> Java names, boxing
* :mod:`.overloads` -- JLS 15.12.2 overload resolution

The interpreter over JDWP walks the AST and calls into semantics/overloads.
"""

from . import ast, overloads, semantics, types
from .ast import dump
from .overloads import AmbiguousMethodError, Candidate, NoApplicableMethodError, resolve
from .parse import ExpressionSyntaxError, parse_expression
from .semantics import JavaArithmeticError, JavaTypeError, JType, JValue

__all__ = [
    "AmbiguousMethodError",
    "Candidate",
    "ExpressionSyntaxError",
    "JType",
    "JValue",
    "JavaArithmeticError",
    "JavaTypeError",
    "NoApplicableMethodError",
    "ast",
    "dump",
    "overloads",
    "parse_expression",
    "resolve",
    "semantics",
    "types",
]
