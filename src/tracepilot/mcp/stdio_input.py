"""The MCP server's stdin, line by line, with requests the SDK would drop unanswered turned into answerable ones.

The SDK parses each line with pydantic, which refuses a JSON string holding a lone UTF-16 surrogate
(`"\\ud800x"`, valid JSON, not valid Unicode); the SDK then logs nothing and never answers the request, so
the agent waits forever. Here such a line is parsed with Python's json (which keeps the surrogate) and
rewritten: a `tools/call` keeps its id and tool and carries one argument, `BAD_INPUT`, saying which argument
was wrong (the tool answers with that error); any other request keeps its id and asks for a method that does
not exist, so it is answered with an error too. Every other line passes through unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

from .arguments import BAD_INPUT

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
INVALID_METHOD = "tracepilot/invalid-unicode-in-request"


def _lone_surrogate_path(value: Any, path: str = "") -> str | None:
    """Where in `value` a string (or key) holds a lone surrogate, e.g. `arguments.location`; None if nowhere."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "the request"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            where = _lone_surrogate_path(key, path) or _lone_surrogate_path(item, f"{path}.{key}" if path else key)
            if where is not None:
                return where
    if isinstance(value, list):
        for index, item in enumerate(value):
            where = _lone_surrogate_path(item, f"{path}[{index}]")
            if where is not None:
                return where
    return None


def checked_line(line: str) -> str | None:
    """The line to hand to the SDK: itself, a rewritten request that gets an error answer, or None (drop a
    notification nobody could answer)."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line  # not JSON: the SDK reports it as such
    where = _lone_surrogate_path(message)
    if where is None or not isinstance(message, dict):
        return line
    if "id" not in message or _lone_surrogate_path(message.get("id")) is not None:
        return None  # a notification (or an unusable id): there is nobody to answer
    reason = (f"{where.removeprefix('params.')} holds a lone UTF-16 surrogate (e.g. \\ud800 without its pair), "
              "which is not text: send valid Unicode (escape a literal backslash as \\\\)")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    name = params.get("name")
    if message.get("method") == "tools/call" and isinstance(name, str) and _lone_surrogate_path(name) is None:
        rewritten = {"jsonrpc": "2.0", "id": message["id"], "method": "tools/call",
                     "params": {"name": name, "arguments": {BAD_INPUT: reason}}}
    else:
        rewritten = {"jsonrpc": "2.0", "id": message["id"], "method": INVALID_METHOD, "params": {"reason": reason}}
    return json.dumps(rewritten) + "\n"


class CheckedLines:
    """An async iterable of lines (what the SDK's stdio transport reads) over another one."""

    def __init__(self, lines: Any) -> None:
        self._lines = lines

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            checked = checked_line(line)
            if checked is not None:
                yield checked


async def stdin_lines(limit: int = 1 << 26) -> AsyncIterator[str]:
    """Lines of the process's stdin read by the event loop (a cancelled read returns at once, so a signal can
    end the server while it waits for the agent). File descriptor 0 is pointed at /dev/null meanwhile, as the
    SDK does: nothing else in the process can steal the agent's input."""
    import asyncio  # noqa: PLC0415
    import os  # noqa: PLC0415

    fd = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    pipe = os.fdopen(fd, "rb", buffering=0)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except ValueError:  # a regular file (`< requests.jsonl`): read it in a thread
        while line := await asyncio.to_thread(pipe.readline):
            yield line.decode("utf-8", errors="replace")
        return
    while True:
        try:
            line = await reader.readline()
        except ValueError:  # a line longer than `limit`: nobody can answer it whole; skip it
            await _skip_line(reader)
            continue
        if not line:
            return
        yield line.decode("utf-8", errors="replace")


async def _skip_line(reader: Any) -> None:
    import asyncio  # noqa: PLC0415

    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as e:
            await reader.readexactly(e.consumed)
        except asyncio.IncompleteReadError:
            return
