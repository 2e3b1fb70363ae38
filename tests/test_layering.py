"""Import contracts (as Harlequin keeps them): the core and the protocol never reach a front end."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

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
