"""tracepilot: a Java debugger speaking JDWP, for people (TUI, REPL) and agents (MCP) on one core."""

__version__ = "0.1.0"
