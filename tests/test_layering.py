"""Import contracts (as Harlequin keeps them): the core and the protocol never reach a front end."""

from __future__ import annotations

import ast
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import tracepilot.core
import tracepilot.jdwp

SRC = Path(tracepilot.core.__file__).resolve().parent.parent
FRONT_END_LIBRARIES = ("textual", "prompt_toolkit", "mcp")
FRONT_END_PACKAGES = ("tracepilot.tui", "tracepilot.repl", "tracepilot.mcp", "tracepilot.share", "tracepilot.cli")


def _modules(package) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            # relative imports: resolve against the file's package
            package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[: -node.level])
            names.add(f"{package}.{node.module}" if node.module else package)
    return names


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


# -- the import graph (issue 18) ------------------------------------------------------------------------
#
# Edges are the imports a module runs when it is loaded: module level, outside `if TYPE_CHECKING:`.
# Imports inside functions are deliberate deferrals (a front end's optional library, the lazy parts of the
# command line) and are left out, as Python leaves them out until the function runs.

FRONT_ENDS = ("tui", "repl", "mcp", "dap")  # peers: none of them imports another
SHARED_SERVICE = "share"  # publishes a session and joins one: every front end may use it, it uses none
MAX_MODULE_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in SRC.rglob("*.py")}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _load_time_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The tracepilot modules `path` imports when it is loaded (a package counts only when it is the target)."""
    name = _module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                    visit(block)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules]
                found.update(submodules)
                if len(submodules) < len(node.names):  # names defined by the module itself, not submodules
                    found.add(target)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    resolved = set()
    for target in found:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def _import_graph() -> dict[str, set[str]]:
    modules = _all_modules()
    return {name: _load_time_imports(path, modules) for name, path in modules.items()}


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
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
        docstring = ast.get_docstring(ast.parse(text)) or ""
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
