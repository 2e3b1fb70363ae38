"""DAP's wire format: a `Content-Length: N` header block, a blank line, then N bytes of UTF-8 JSON.

A header that breaks the framing (no or a negative Content-Length, a line over the reader's limit, a body
over MAX_BODY) raises `FramingError`: the connection ends, since where the next message starts is guesswork.
A well-framed body that is not a usable JSON object (not JSON, not UTF-8, nested too deep) raises
`BadMessage`: the framing is intact, so the server says what was wrong and reads on.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_BODY = 64 * 1024 * 1024  # bytes of one message body (the largest DAP messages are a few MB of source text)
MAX_HEADER_LINES = 32


class FramingError(Exception):
    """The peer sent something that is not a DAP message (we close the connection: resyncing is guesswork)."""


class BadMessage(Exception):
    """A correctly framed message whose body is not a JSON object (the next message can still be read)."""


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at end of stream."""
    length: int | None = None
    headers = 0
    while True:
        try:
            line = await reader.readline()
        except (ValueError, asyncio.LimitOverrunError):  # readline reports a line over the limit as ValueError
            raise FramingError(f"a header line is longer than {reader._limit} bytes: "  # noqa: SLF001
                               "not a DAP message") from None
        if not line:
            return None
        line = line.strip()
        if not line:
            if headers == 0:
                continue  # stray blank line between messages
            break
        headers += 1
        if headers > MAX_HEADER_LINES:
            raise FramingError(f"more than {MAX_HEADER_LINES} header lines without the blank line that ends them")
        name, colon, value = line.decode("ascii", errors="replace").partition(":")
        if not colon:
            raise FramingError(f"expected a `Content-Length: N` header, got {line[:80]!r}")
        if name.strip().lower() == "content-length":
            text = value.strip()
            if not text.isdigit():
                raise FramingError(f"bad Content-Length header: {line[:80]!r} (a byte count is a number >= 0)")
            length = int(text)
            if length > MAX_BODY:
                raise FramingError(f"Content-Length {length} is over the {MAX_BODY} bytes a message may have")
    if length is None:
        raise FramingError("a message without a Content-Length header (DAP frames every message with one)")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        return None
    try:
        message = json.loads(body)
    except RecursionError:
        raise BadMessage("the message body nests too deeply to read") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise BadMessage(f"the message body is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise BadMessage("a DAP message must be a JSON object")
    return message


def encode_message(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8", errors="replace")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
