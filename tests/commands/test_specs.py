"""The operation specs (tracepilot/commands): plain data that loads nothing of the core, one spec per
MCP tool, each argument declared once."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import tracepilot.commands
from tracepilot.commands import SPECS, by_tool

PACKAGE = Path(tracepilot.commands.__file__).resolve().parent


def test_specs_load_without_the_core_or_a_front_end():
    code = ("import sys, tracepilot.commands; print([m for m in sys.modules if m.startswith(("
            "'tracepilot.core', 'tracepilot.jdwp', 'tracepilot.mcp', 'tracepilot.tui', 'tracepilot.repl', "
            "'tracepilot.share', 'textual', 'prompt_toolkit', 'mcp', 'pydantic'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_spec_sources_import_only_the_standard_library_and_each_other():
    offenders = []
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("tracepilot"):
                offenders.append(f"{path.name} imports {node.module}")
            if isinstance(node, ast.ImportFrom) and node.level > 1:
                offenders.append(f"{path.name} imports from outside tracepilot.commands")
    assert offenders == []


def test_names_are_unique():
    names = [spec.name for spec in SPECS]
    assert len(names) == len(set(names))
    commands = [command for spec in SPECS for command in spec.commands]
    assert len(commands) == len(set(commands)), "a catalog command runs one operation"


def test_every_tool_spec_says_how_it_runs_and_every_other_spec_says_why_not():
    for spec in SPECS:
        if spec.tool:
            assert spec.call is not None and spec.method and spec.help, spec.name
            assert not spec.person_only, spec.name
            params = [p.name for p in spec.params]
            assert len(params) == len(set(params)), spec.name
            if spec.waits_on:
                assert spec.waits_on in params, spec.name
        elif spec.via:
            tool = by_tool()[spec.via]
            assert spec.name in [p.name for p in tool.params], f"{spec.name}: {spec.via} has no such argument"
            assert spec.call is not None and spec.method, spec.name
        else:
            assert spec.person_only, f"{spec.name}: no tool and no reason"


def test_tool_specs_name_debugger_methods_that_exist():
    from tracepilot.core.debugger import Debugger  # noqa: PLC0415

    for spec in SPECS:
        if not spec.method:
            continue
        assert callable(getattr(Debugger, spec.method, None)), f"{spec.name}: Debugger.{spec.method}"


def test_renderers_exist():
    from tracepilot.core import render  # noqa: PLC0415

    for spec in by_tool().values():
        assert callable(getattr(render, spec.render, None)), f"{spec.name}: render.{spec.render}"
