"""A debugger attached to a fixture JVM, driven through the command catalog the way a front end drives it."""

from __future__ import annotations

import pytest

from tracepilot.core.catalog import CommandResult, Selection, default_catalog
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor


class Driver:
    """Runs command lines through `Catalog.execute` with one front end's selection."""

    def __init__(self, debugger: Debugger) -> None:
        self.debugger = debugger
        self.catalog = default_catalog()
        self.selection = Selection(wait_timeout=20.0)

    async def try_(self, line: str) -> CommandResult:
        return await self.catalog.execute(self.debugger, line, Actor.PERSON, self.selection)

    async def __call__(self, line: str) -> CommandResult:
        result = await self.try_(line)
        assert result.ok, f"{line!r} failed: {result.text}"
        return result

    async def fails(self, line: str) -> CommandResult:
        result = await self.try_(line)
        assert not result.ok, f"{line!r} should have failed: {result.text}"
        return result

    async def complete(self, line: str) -> list[str]:
        return await self.catalog.complete(self.debugger, line, self.selection)


@pytest.fixture
async def drive(jvm_factory, java_source_root):
    """`drive.attach("Playground", "50")` then `await drive("stop at ...")`."""
    debugger = Debugger(sourcepath=[str(java_source_root)])
    driver = Driver(debugger)

    async def attach(main: str, *args: str, jdk: str = "17") -> CommandResult:
        jvm = jvm_factory(main, *args, jdk=jdk)
        driver.jvm = jvm
        return await driver(f"attach {jvm.address}")

    driver.attach = attach
    try:
        yield driver
    finally:
        await debugger.close()
