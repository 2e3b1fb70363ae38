"""Every command of the line interfaces runs an operation an agent can reach over MCP (its own tool, or
an argument of one), or its spec says why only a person at a prompt uses it."""

from __future__ import annotations

from tracepilot.commands import SPECS, by_tool
from tracepilot.core.catalog import default_catalog


def test_every_catalog_command_names_its_operation():
    missing = [c.name for c in default_catalog().commands if c.spec is None]
    assert missing == [], "add each to the Spec.commands of the operation it runs"


def test_every_command_is_reachable_over_mcp_or_says_why_not():
    tools = by_tool()
    for command in default_catalog().commands:
        spec = command.spec
        assert spec is not None
        if spec.tool:
            assert spec.tool in tools
        elif spec.via:
            assert spec.name in [p.name for p in tools[spec.via].params], command.name
        else:
            assert spec.person_only, f"{command.name}: no MCP tool and no reason"


def test_specs_name_only_commands_that_exist():
    catalog = default_catalog()
    unknown = [(spec.name, name) for spec in SPECS for name in spec.commands if catalog.get(name) is None]
    assert unknown == []


def test_interrupt_runs_the_facade_over_mcp_and_at_the_prompt():
    spec = default_catalog().get("interrupt").spec
    assert spec.method == "interrupt" and spec.via == "resume"
    assert "interrupt" in [p.name for p in by_tool()["resume"].params]


def test_reset_help_is_written_once():
    assert default_catalog().get("reset").help == by_tool()["reset"].help
