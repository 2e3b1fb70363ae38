"""The TUI uses public Textual names only: a private one (`_bindings`, `_nodes`, `_on_key`...) can change in any
Textual release without notice. Textual's private names are read from its own sources: every `self._x` its
classes use and every `_x` they define. In src/, a class built on a Textual class may neither use (`self._x`,
`super()._x`) nor define such a name of its bases, and no object may be asked for one (`pane._bindings`)."""

from __future__ import annotations

import ast
import importlib
import inspect
from functools import cache
from pathlib import Path

import textual

import tracepilot

SRC = Path(tracepilot.__file__).resolve().parent
TEXTUAL = Path(textual.__file__).resolve().parent
# Known uses left, each with why (a new one fails the test; one fixed must leave this list).
ALLOWED = {
    # SourceView swaps in a document prepared off the event loop (parsed, highlighted and laid out once per
    # file, tui/sources.py): what TextArea.load_text does on the event loop. TextArea has no public way to
    # hand it highlights made elsewhere.
    ("tui/widgets/source.py", "SourceView", "_highlight_query"),
    ("tui/widgets/source.py", "SourceView", "_highlights"),
    ("tui/widgets/source.py", "SourceView", "_refresh_scrollbars"),
    # The gutter and current-line colours of the theme in use: TextArea builds its theme object from CSS
    # privately and has no public accessor for it.
    ("tui/widgets/source.py", "SourceView", "_theme"),
    # The command line drops the layout request Input makes on every key (tests/tui/test_typing_cost.py): the
    # flag must be up exactly while Input's own watcher runs, which only wrapping that watcher gives.
    ("tui/widgets/command_line.py", "CommandLine", "_watch_value"),
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def textual_private_names() -> dict[tuple[str, str], frozenset[str]]:
    """(module, class) -> the private names that Textual class defines or uses on self."""
    found: dict[tuple[str, str], frozenset[str]] = {}
    for path in TEXTUAL.rglob("*.py"):
        module = ".".join(("textual", *path.relative_to(TEXTUAL).with_suffix("").parts)).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            names = set()
            for node in cls.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
                    names.add(node.name)
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
                names.update(t.id for t in targets if isinstance(t, ast.Name) and _private(t.id))
            for node in ast.walk(cls):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                        and _private(node.attr)):
                    names.add(node.attr)
            found[(module, cls.name)] = frozenset(names)
    return found


def _uses(path: Path) -> list[tuple[str, str, str, int]]:
    """(class or '', name, how, line) of each Textual private name this module uses."""
    per_class = textual_private_names()
    every = frozenset().union(*per_class.values())
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    module = importlib.import_module(".".join(("tracepilot", *path.relative_to(SRC).with_suffix("").parts))
                                     .removesuffix(".__init__"))
    found = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        obj = getattr(module, cls.name, None)
        if not inspect.isclass(obj):
            continue
        inherited = frozenset().union(*(per_class.get((b.__module__, b.__name__), frozenset())
                                        for b in obj.__mro__[1:] if b.__module__.startswith("textual")))
        for node in ast.walk(cls):
            if (isinstance(node, ast.Attribute) and node.attr in inherited
                    and ast.unparse(node.value) in ("self", "super()")):
                found.append((cls.name, node.attr, f"{ast.unparse(node.value)}.{node.attr}", node.lineno))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in cls.body and node.name in inherited:
                found.append((cls.name, node.name, f"def {node.name}", node.lineno))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in every
                and ast.unparse(node.value) not in ("self", "super()", "cls")):
            found.append(("", node.attr, f"{ast.unparse(node.value)}.{node.attr}", node.lineno))
    return found


def test_textual_private_names_are_known_to_the_check():
    names = textual_private_names()
    app = names[("textual.app", "App")]
    assert {"_bindings", "_check_bindings"} <= app and "_nodes" in names[("textual.dom", "DOMNode")]


def test_src_uses_no_private_textual_name_beyond_the_known_ones():
    found, used = [], set()
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "textual" not in text:
            continue
        relative = path.relative_to(SRC).as_posix()
        for cls, name, how, line in _uses(path):
            if (relative, cls, name) in ALLOWED:
                used.add((relative, cls, name))
            else:
                found.append(f"{relative}:{line}: {how}")
    assert not found, "private Textual names (use the public API: check_action, refresh_bindings, ...):\n" + \
        "\n".join(found)
    assert used == ALLOWED, f"no longer used, drop from ALLOWED: {sorted(ALLOWED - used)}"
