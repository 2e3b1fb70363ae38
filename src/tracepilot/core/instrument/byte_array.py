"""A byte[] of the target read as bytes, undecoded: the codec would make a value object of every byte (a class
file is tens of KB, a package's classes a few MB; on Jetty that was ~30 ms of a move that holds every thread)."""

from __future__ import annotations

from typing import Any

from ...jdwp import JdwpError
from ..errors import DebuggerError

__all__ = ["ARRAY_GET_VALUES", "byte_array"]

ARRAY_GET_VALUES = (13, 2)  # ArrayReference.GetValues: set, command


async def byte_array(conn: Any, array: int, length: int) -> bytes:
    size = conn.codec.sizes.object
    body = array.to_bytes(size, "big") + (0).to_bytes(4, "big") + length.to_bytes(4, "big", signed=True)
    reply = await conn.send_raw(*ARRAY_GET_VALUES, body)
    if reply.error_code:
        raise JdwpError(reply.error_code, "ArrayReference.GetValues")
    # The region: its tag (B), its count, then the bytes themselves.
    if reply.data[0] != ord("B") or int.from_bytes(reply.data[1:5], "big") != length:
        raise DebuggerError("ArrayReference.GetValues answered a region that is not the byte[] asked for")
    return bytes(reply.data[5:5 + length])
