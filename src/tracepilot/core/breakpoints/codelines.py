"""Which source lines hold code: the code locations of a line, and the next line with code for a line
without (blank, comment, declaration), so a breakpoint there moves where the JVM can stop."""

from __future__ import annotations

import re

from ..vm import MethodInfo


def method_line(targets: list[tuple[MethodInfo, int]]) -> int:
    """The source line of bound targets (all on one line)."""
    method, index = targets[0]
    return method.line_at(index)


def locations_of_line(methods: list[MethodInfo], line: int) -> list[tuple[MethodInfo, int]]:
    """Per method, the first code index of the line (as JDI's locationsOfLine does)."""
    found = []
    for method in methods:
        indices = [index for index, number in method.lines or () if number == line]
        if indices:
            found.append((method, min(indices)))
    return found


_NO_CODE_LINE = re.compile(
    r"^(|//.*|/?\*.*|[{}();\s]*|@\w.*|\}?\s*(else|try|finally|do)\s*\{?|[^;=]*\)\s*(throws\s+[\w.,\s]+)?\{?)$"
)
# The head of a file and declarations: package, imports, type declarations, fields without an initializer.
_DECLARATION_LINE = re.compile(
    r"^(package\s+[\w.]+\s*;|import\s+(static\s+)?[\w.*]+\s*;"
    r"|([\w@<>?,.\[\]\s]*\s)?(class|interface|enum|record|@interface)\s+[\w$]+[^;=]*"
    r"|(?!(return|break|continue|throw|yield)\b)[\w<>?,.\[\]\s]+\s[\w$]+\s*;)$"
)


def looks_code_free(text: str) -> bool:
    """Does this source line hold no code a line table could name (blank, comment, declaration, brace)?"""
    stripped = text.strip()
    return bool(_NO_CODE_LINE.match(stripped) or _DECLARATION_LINE.match(stripped))


def next_line_with_code(methods: list[MethodInfo], line: int, source: list[str] | None,
                         top_level: bool = False) -> int | None:
    """For a line without code (blank, comment, declaration, the package and imports before the class):
    the next line with code in the class.

    Lines between must look code-free in the source: a line inside an anonymous, local or inner class has
    code of its own class, which may not be loaded yet, and must stay pending. Without source, a line
    inside a method moves at most two lines, and a line before all code of a top-level class (its file's
    head: package, imports, javadoc) moves to its first code.
    """
    numbers = sorted({n for method in methods for n in method.line_numbers})
    after = [n for n in numbers if n > line]
    if not after:
        return None
    best = after[0]
    if source is None:
        inside_method = any(m.line_numbers and m.line_numbers[0] - 1 <= line <= m.line_numbers[-1] for m in methods)
        if inside_method:
            return best if best - line <= 2 else None
        return best if top_level and line < numbers[0] else None
    between = source[line - 1 : best - 1]
    return best if all(looks_code_free(text) for text in between) else None
