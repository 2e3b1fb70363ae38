"""Sharing a live session between front ends (issue 9): `tracepilot watch`, `sessions`, `--mcp --join`.

registry.py (the per-user directory of sessions), protocol.py (the JSON messages), host.py (publishes a
Debugger), client.py (`RemoteDebugger`, the same facade over the socket). See docs/share-protocol.md.
"""
