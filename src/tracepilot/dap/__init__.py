"""`tracepilot dap`: a Debug Adapter Protocol server, so editors (nvim-dap, Helix, dape, VS Code) are front ends.

framing.py reads and writes Content-Length messages; adapter.py binds each DAP request to the `Debugger`
facade (or a joined session's `RemoteDebugger`) and turns history records into DAP events; handles.py keeps
the numeric ids DAP wants for frames and variables; server.py runs it on stdio or a loopback TCP port.
"""
