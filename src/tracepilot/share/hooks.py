"""What the composer (the command line) adds beside every published session without share knowing it, e.g. the
JDWP front end. No imports: registering costs a front end's start path nothing.

- `PUBLISH_HOOKS`: hook(host) is called with each `SessionHost` as it is published; it may append async
  closers to `host.on_close`.
- `STREAM_HANDLERS`: by message type, handler(host, first message, reader, writer) for connections whose first
  message opens a stream of another protocol; the handler then owns the connection.
- `WARM_UPS`: warm_up() loads what a hook loads lazily on its first publish; a front end that warms up in the
  background (mcp/warm_start.py) runs them, so the first published session pays no import.
"""

from __future__ import annotations

from typing import Any

PUBLISH_HOOKS: list[Any] = []
STREAM_HANDLERS: dict[str, Any] = {}
WARM_UPS: list[Any] = []
