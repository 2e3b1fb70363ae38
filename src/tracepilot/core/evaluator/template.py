"""Logpoint templates: ``"x={x} total={order.total()}"`` split into text and expressions.

``{{`` and ``}}`` are literal braces. Inside ``{...}`` braces nest (``{new int[]{1, 2}.length}``)
and string or char literals may hold any brace.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["TemplateError", "split_template"]


class TemplateError(ValueError):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


@lru_cache(maxsize=512)
def split_template(template: str) -> tuple[tuple[str, int] | str, ...]:
    """A tuple of literal strings and ``(expression, column)`` pairs, in order."""
    parts: list[tuple[str, int] | str] = []
    text: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c == "{" and template.startswith("{{", i):
            text.append("{")
            i += 2
            continue
        if c == "}" and template.startswith("}}", i):
            text.append("}")
            i += 2
            continue
        if c == "}":
            raise TemplateError(f"unmatched '}}' at column {i} (write '}}}}' for a literal brace)", i)
        if c != "{":
            text.append(c)
            i += 1
            continue
        start = i + 1
        depth, j, quote = 1, start, ""
        while j < n:
            d = template[j]
            if quote:
                if d == "\\":
                    j += 2
                    continue
                if d == quote:
                    quote = ""
            elif d in "\"'":
                quote = d
            elif d == "{":
                depth += 1
            elif d == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth:
            raise TemplateError(f"'{{' at column {i} is never closed (write '{{{{' for a literal brace)", i)
        if text:
            parts.append("".join(text))
            text = []
        expr = template[start:j]
        if not expr.strip():
            raise TemplateError(f"empty expression '{{}}' at column {i}", i)
        parts.append((expr, start))
        i = j + 1
    if text:
        parts.append("".join(text))
    return tuple(parts)
