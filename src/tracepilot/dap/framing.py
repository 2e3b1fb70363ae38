"""DAP's wire format: a `Content-Length: N` header block, a blank line, then N bytes of UTF-8 JSON."""

from __future__ import annotations

import asyncio
import json
from typing import Any


class FramingError(Exception):
    """The peer sent something that is not a DAP message (we close the connection: resyncing is guesswork)."""


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at end of stream."""
    length: int | None = None
    while True:
        line = await reader.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is None:
                continue  # stray blank line between messages
            break
        name, _, value = line.decode("ascii", errors="replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"bad Content-Length header: {line!r}") from None
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None
    try:
        message = json.loads(body)
    except json.JSONDecodeError as exc:
        raise FramingError(f"the message body is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise FramingError("a DAP message must be a JSON object")
    return message


def encode_message(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
