"""The one place the TUI leans on how Textual lays out its package (tui/java_syntax.py): Textual's own Java
highlight query, read as package data. A Textual upgrade that moves or drops it fails here, loudly, instead of
silently turning the source pane grey."""

from __future__ import annotations

from textual.widgets.text_area import SyntaxAwareDocument

from tracepilot.tui.java_syntax import java_highlight_query, java_language


def test_textual_still_ships_the_java_highlight_query_we_read():
    query = java_highlight_query()
    assert query, "Textual no longer ships tree-sitter/highlights/java.scm: see tui/java_syntax.py"
    document = SyntaxAwareDocument("class A { int x = 1; // note\n}", java_language())
    captures = document.query_syntax_tree(document.prepare_query(query))
    assert {"keyword", "comment"} <= set(captures), "the query's capture names changed: the pane's colours would"
