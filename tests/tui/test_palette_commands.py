"""The palette lists every command of the command line (the catalog, bound to the operation specs) and
types the chosen one on the command line, where its arguments go."""

from __future__ import annotations

import pytest

from tracepilot.core.catalog import default_catalog

from .fake_debugger import fake_app
from .helpers import wait_for

pytestmark = pytest.mark.timeout(60)


async def test_palette_offers_each_command_and_types_it():
    app = fake_app()
    async with app.run_test(size=(140, 40)) as pilot:
        entries = {c.title: c for c in app.get_system_commands(app.screen)}
        for command in default_catalog().commands:
            if command.name not in ("help", "exit"):
                assert f"Command: {command.name}" in entries
        assert not any("_" in title for title in entries)
        entries["Command: stop at"].callback()
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "command", what="command line")
        assert app.focused.value == "stop at "
