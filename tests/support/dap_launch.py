"""A JVM launched through a DAP adapter (tests/dap/raw_dap.py's RawDap, stdio or TCP), the way an editor
does: initialize, launch Playground, read the JVM's pid from the `process` event. The JVM is killed on the way
out if the adapter left it alive, and the connection closed."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from .processes import kill_if_alive


@contextlib.asynccontextmanager
async def launched_playground(dap: Any, java_classes: Path, java: str, *, sources: Path | None = None,
                              token: str | None = None, args: tuple[str, ...] = ("100000",)) -> AsyncIterator[int]:
    """Yields the launched JVM's pid (Playground, `args`), configurationDone not sent yet."""
    pid = None
    try:
        await dap.request("initialize", {"adapterID": "java", "linesStartAt1": True, "pathFormat": "path"})
        launch: dict[str, Any] = {"mainClass": "fixtures.Playground", "classPaths": [str(java_classes)],
                                  "args": list(args), "javaExec": java}
        if sources is not None:
            launch["sourcePaths"] = [str(sources)]
        if token is not None:
            launch["token"] = token
        reply = await dap.request("launch", launch)
        assert reply["success"], reply
        pid = (await dap.event("process"))["body"]["systemProcessId"]
        yield pid
    finally:
        kill_if_alive(pid)
        await dap.close()
