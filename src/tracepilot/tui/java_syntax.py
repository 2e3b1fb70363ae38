"""Java for the source pane's highlighting: the tree-sitter language and the highlight query.

The language comes from the `tree-sitter-java` grammar directly. The highlight query is the one Textual's
TextArea uses for "java": its capture names are the ones Textual's TextArea themes give colours to, so the
pane looks exactly like a TextArea with `language="java"`. Textual has no public name for it (only the private
`TextArea._get_builtin_highlight_query`); it ships the query as package data (`textual/tree-sitter/highlights/
java.scm`), read here through importlib.resources. This is the one place that leans on how Textual lays out
its package; tests/tui/test_java_syntax.py fails loudly if a Textual upgrade moves it (pyproject pins Textual
to the major version it was checked against)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

QUERY_PACKAGE = "textual"
QUERY_PATH = ("tree-sitter", "highlights", "java.scm")


@functools.cache
def java_language() -> Any:
    """The tree-sitter Language for Java (None without tree-sitter: sources are then shown as plain text)."""
    try:
        import tree_sitter_java  # noqa: PLC0415 - optional: Textual's `syntax` extra brings it
        from tree_sitter import Language  # noqa: PLC0415
    except ImportError:  # pragma: no cover - depends on the installed extras
        return None
    return Language(tree_sitter_java.language())


@functools.cache
def java_highlight_query() -> str:
    """The text of Textual's Java highlight query ('' if this Textual has none: no colours, still readable)."""
    try:
        return resources.files(QUERY_PACKAGE).joinpath(*QUERY_PATH).read_text(encoding="utf-8")
    except OSError:
        return ""
