"""The specs keep the MCP contract of ../shared/DESIGN.md: every tool it names, with its main arguments
(optional arguments may be added)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracepilot.commands import by_tool

DESIGN = Path(__file__).resolve().parents[3] / "shared" / "DESIGN.md"


def _surface() -> str:
    if not DESIGN.exists():
        pytest.skip("../shared/DESIGN.md is not next to this checkout")
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index("## MCP tool surface")
    return text[start:text.index("\n## ", start + 1)]


def test_every_tool_of_the_design_is_a_spec():
    surface = _surface()
    listed = set(re.findall(r"`(\w+)`", surface[:surface.index("Main arguments")]))
    assert listed <= set(by_tool()), listed - set(by_tool())


def test_main_arguments_of_the_design_are_spec_arguments():
    specs = by_tool()
    rows = re.findall(r"^\| ([a-z_ ,/]+) \| (.+) \|$", _surface(), re.M)
    assert len(rows) > 20, "the table of main arguments was not found"
    for tools_cell, args_cell in rows:
        if tools_cell.strip() == "tool":
            continue
        tools = [t.strip() for t in re.split(r"[,/]", tools_cell) if t.strip()]
        wanted = {tool: set() for tool in tools}
        if "/" in tools_cell:  # "mark / unmark | `target`, `label` / `label`"
            for tool, args in zip(tools, args_cell.split(" / "), strict=True):
                wanted[tool] |= set(re.findall(r"`(\w+)`", args))
        else:  # "snapshot, threads, stack | `thread`; stack also `start`, ..."
            common, _, extra = args_cell.partition("; ")
            owner = re.match(r"(\w+) also ", extra)
            if owner is None:  # a ";" inside an explanation
                common, extra = args_cell, ""
            for tool in tools:
                wanted[tool] |= set(re.findall(r"`(\w+)`", common))
            if owner is not None:
                wanted[owner.group(1)] |= set(re.findall(r"`(\w+)`", extra))
        for tool, names in wanted.items():
            params = {p.name for p in specs[tool].params}
            assert names <= params, f"{tool}: {names - params}"
