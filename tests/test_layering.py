"""Import contracts (as Harlequin keeps them): the core and the protocol never reach a front end."""

from __future__ import annotations

import ast
import inspect
import pkgutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import tracepilot.core
import tracepilot.jdwp

SRC = Path(tracepilot.core.__file__).resolve().parent.parent
FRONT_END_LIBRARIES = ("textual", "prompt_toolkit", "mcp")
FRONT_END_PACKAGES = ("tracepilot.tui", "tracepilot.repl", "tracepilot.mcp", "tracepilot.share", "tracepilot.cli")


@cache
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once for all the checks below (each walks every module of src/)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a source file's tree, as `ast.walk` yields them, walked once: the checks below each go
    over every node of src/ (~200,000), and `ast.walk`'s generator was most of this file's time."""
    return tuple(ast.walk(_tree(path)))


@pytest.fixture(scope="module", autouse=True)
def _forget_the_trees():
    """The trees are this file's only: freed after it, not kept (and walked by the collector) for the rest of
    the run."""
    yield
    _tree.cache_clear()
    _nodes.cache_clear()
    _imports.cache_clear()


def _modules(package) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]


@cache
def _imports(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            # relative imports: resolve against the file's package
            package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[: -node.level])
            names.add(f"{package}.{node.module}" if node.module else package)
    return frozenset(names)


def test_core_and_jdwp_import_no_front_end_at_runtime():
    modules = _modules(tracepilot.core) + _modules(tracepilot.jdwp)
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"print(','.join(m for m in {FRONT_END_LIBRARIES!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_core_or_jdwp_source_names_a_front_end():
    offenders = []
    for root in (SRC / "core", SRC / "jdwp"):
        for path in root.rglob("*.py"):
            for name in _imports(path):
                top = name.split(".")[0]
                if top in FRONT_END_LIBRARIES or name.startswith(FRONT_END_PACKAGES):
                    offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert offenders == []


def test_jdwp_knows_nothing_of_the_core():
    offenders = [f"{p.relative_to(SRC)} imports {n}" for p in (SRC / "jdwp").rglob("*.py")
                 for n in _imports(p) if n.startswith("tracepilot.core")]
    assert offenders == []


# -- the import graph (issues 18 and 27) -------------------------------------------------------------
#
# Edges are every import statement of ours, wherever it stands: module level, inside a function, under
# `if TYPE_CHECKING:`. A deferred import is still a dependency: the layer below must not know the one above,
# lazily or not. A lower piece is handed what it needs (a Protocol, a callback) by the one that composes it.

FRONT_ENDS = ("tui", "repl", "mcp", "dap")  # peers: none of them imports another
SHARED_SERVICE = "share"  # publishes a session and joins one: every front end may use it, it uses none
MAX_MODULE_LINES = 600


# Libraries whose underscore-named modules and names are theirs to change in any release.
DEPENDENCIES_WITH_PRIVATE_PARTS = ("textual", "rich", "prompt_toolkit", "mcp")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in SRC.rglob("*.py")}


def _package_of(path: Path) -> list[str]:
    name = _module_name(path)
    return name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module an `ImportFrom` names, relative imports resolved against the file's package."""
    if not node.level:
        return node.module or ""
    package = _package_of(path)
    return ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))


def _every_module_import(path: Path, modules: dict[str, Path]) -> set[str]:
    """The tracepilot modules `path` imports, every import statement counted (a package counts only when it is
    the target: `from .a import b` with `b` a submodule is an edge to `a.b`)."""
    name = _module_name(path)
    found: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(path, node)
            submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules]
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined by the module itself, not submodules
                found.add(target)
    resolved = set()
    for target in found:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def _import_graph() -> dict[str, set[str]]:
    modules = _all_modules()
    return {name: _every_module_import(path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles():
    assert _circles(_import_graph()) == []


def test_an_import_inside_a_function_counts(tmp_path, monkeypatch):
    package = tmp_path / "tracepilot"
    package.mkdir()
    (package / "low.py").write_text("def f():\n    from .high import g  # lazily\n")
    (package / "high.py").write_text("from .low import f\n")
    modules = {"tracepilot.low": package / "low.py", "tracepilot.high": package / "high.py"}
    monkeypatch.setitem(globals(), "SRC", package)
    graph = {name: _every_module_import(path, modules) for name, path in modules.items()}
    assert _circles(graph) == [["tracepilot.high", "tracepilot.low"]]


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _front_end_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in (*FRONT_ENDS, SHARED_SERVICE) else None


def _every_import(path: Path) -> set[str]:
    """Every tracepilot module a file names in an import, wherever the import is (deferred ones too)."""
    return {name for name in _imports(path) if name.startswith("tracepilot")}


def test_front_ends_never_import_each_other():
    offenders = []
    for path in SRC.rglob("*.py"):
        own = _front_end_of(_module_name(path))
        if own is None:
            continue
        for name in _every_import(path):
            other = _front_end_of(name)
            if other is not None and other != own and other != SHARED_SERVICE:
                offenders.append(f"{path.relative_to(SRC)} imports {name}")
            if own == SHARED_SERVICE and other not in (None, SHARED_SERVICE):
                offenders.append(f"{path.relative_to(SRC)} imports {name} (share serves the front ends)")
    assert offenders == []


def test_nothing_imports_the_command_line():
    offenders = [f"{path.relative_to(SRC)} imports {name}" for path in SRC.rglob("*.py")
                 if path.name != "__main__.py"  # `python -m tracepilot` runs it
                 for name in _every_import(path) if name == "tracepilot.cli" or name.startswith("tracepilot.cli.")]
    assert offenders == []


# `.session` that is not a debugger's: the MCP request context's session, the command line's --session option,
# and the share client's mirror of the host's state (RemoteDebugger implements the facade over it).
NOT_A_DEBUGGER_SESSION = {"ctx.session", "ns.session", "args.session", "self.session"}


def test_no_front_end_reads_the_debugger_session():
    offenders = []
    for package in (*FRONT_ENDS, SHARED_SERVICE):
        for path in (SRC / package).rglob("*.py"):
            for node in _nodes(path):
                if isinstance(node, ast.Attribute) and node.attr == "session":
                    text = ast.unparse(node)
                    if text not in NOT_A_DEBUGGER_SESSION or (text == "self.session" and package != SHARED_SERVICE):
                        offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {text}")
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                      and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "session"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
    assert offenders == []


def test_no_module_is_a_god_file():
    """Over ~600 lines a module must say in its docstring why it is one piece ("One piece: ...")."""
    offenders = []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        docstring = ast.get_docstring(_tree(path)) or ""
        if lines > MAX_MODULE_LINES and "one piece:" not in docstring.lower():
            offenders.append(f"{path.relative_to(SRC)} ({lines} lines)")
    assert offenders == []


def _public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(member) for name, member in inspect.getmembers(cls)
            if not name.startswith("_") and inspect.iscoroutinefunction(member)}


def _shape(signature: inspect.Signature) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def _implementations() -> list[type]:
    sys.path.insert(0, str(Path(__file__).parent))  # tests/tui/fake_debugger.py imports `support`
    from tracepilot.core.debugger import Debugger
    from tracepilot.share.client import RemoteDebugger
    from tui.fake_debugger import FakeDebugger

    return [Debugger, RemoteDebugger, FakeDebugger]


# The TUI asks whether a debugger has these (hasattr) and takes a simpler path without: its test fake, which
# scripts that simpler path, leaves them out.
PROBED_BY_THE_TUI = {"snapshot", "restart"}


def test_every_debugger_implements_the_facade():
    from tracepilot.core.api import DebuggerApi

    wanted = {name: _shape(sig) for name, sig in _public_methods(DebuggerApi).items()}
    readable = [name for name in DebuggerApi.__annotations__]
    for cls in _implementations():
        methods = _public_methods(cls)
        missing = sorted(set(wanted) - set(methods) - (PROBED_BY_THE_TUI if cls.__name__ == "FakeDebugger" else set()))
        unlike = sorted(name for name in wanted if name in methods and _shape(methods[name]) != wanted[name])
        assert (cls.__name__, missing, unlike) == (cls.__name__, [], [])
        unreadable = [name for name in readable if not hasattr(cls, name) and name not in cls.__init__.__code__.co_names]
        assert (cls.__name__, unreadable) == (cls.__name__, [])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_of_a_dependency():
    """`textual._x`, `from textual.x import _y`: a release may rename them without notice. (Textual's Java
    highlight query, which has no public name, is read as package data in tui/java_syntax.py.)"""
    offenders = []
    for path in SRC.rglob("*.py"):
        for node in _nodes(path):
            if isinstance(node, ast.Import):
                modules, names = [alias.name for alias in node.names], []
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                modules, names = [node.module], [alias.name for alias in node.names]
            else:
                continue
            for module in modules:
                if module.split(".")[0] in DEPENDENCIES_WITH_PRIVATE_PARTS and (
                        any(_private(part) for part in module.split(".")) or any(_private(n) for n in names)):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
    assert offenders == []


def test_no_underscore_name_of_ours_is_imported_by_another_module():
    """A name another module needs is part of its module's face: it has no underscore."""
    offenders = []
    for path in SRC.rglob("*.py"):
        for node in _nodes(path):
            if isinstance(node, ast.Import):
                wanted = [(alias.name, alias.name) for alias in node.names if alias.name.startswith("tracepilot")]
                bad = [full for full, _ in wanted if any(_private(part) for part in full.split("."))]
                source = ""
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(path, node)
                if not source.startswith("tracepilot"):
                    continue
                bad = [alias.name for alias in node.names if _private(alias.name)
                       or any(_private(part) for part in source.split("."))]
            else:
                continue
            if bad:
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
    assert offenders == []


def test_the_tui_is_widgets_and_plain_objects_not_mixins():
    """Each TUI class has one base (a Textual class, or none) and no metaclass: a pane is a widget that owns its
    keys, rendering and messages; the App composes widgets and plain objects (issue 27)."""
    offenders = []
    for path in (SRC / "tui").rglob("*.py"):
        for node in _nodes(path):
            if isinstance(node, ast.ClassDef) and (len(node.bases) > 1 or node.keywords):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno} class {node.name}")
    assert offenders == []
