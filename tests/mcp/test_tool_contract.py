"""The MCP tool list is a contract: names, argument names, which are required, and each description's
first line, compared with tests/mcp/tool_contract.json (written from the server before the tools were
bound from command specs). A deliberate change to the contract edits that file in the same commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

CONTRACT_FILE = Path(__file__).with_name("tool_contract.json")


def _listed(tools) -> dict[str, dict]:  # noqa: ANN001
    return {t.name: {"arguments": list(t.input_schema.get("properties", {})),
                     "required": sorted(t.input_schema.get("required", [])),
                     "description": (t.description or "").splitlines()[0],
                     # an argument a tool does not have is refused (issue 25.10), and the schema says so
                     "additional_arguments": t.input_schema.get("additionalProperties", True)}
            for t in sorted(tools, key=lambda t: t.name)}


async def test_tool_list_matches_the_checked_in_contract(mcp_session):
    async with mcp_session("memory") as s:
        listed = _listed((await s.client.list_tools()).tools)
    contract = json.loads(CONTRACT_FILE.read_text())
    assert sorted(listed) == sorted(contract), "tools added or removed"
    for name, expected in contract.items():
        assert listed[name] == expected, name


async def test_tool_list_is_the_specs_with_a_tool_name(mcp_session):
    from tracepilot.commands import by_tool  # noqa: PLC0415

    async with mcp_session("memory") as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
    specs = by_tool()
    assert sorted(tools) == sorted(specs)
    for name, spec in specs.items():
        assert list(tools[name].input_schema.get("properties", {})) == [p.name for p in spec.params], name
        assert tools[name].description == spec.help, name
        assert tools[name].annotations.read_only_hint is spec.read_only, name
