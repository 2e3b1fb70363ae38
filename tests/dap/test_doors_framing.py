"""Issue 25 point 10 at the DAP door: hostile framing ends a connection cleanly (no traceback, no endless wait),
a body that cannot be read is reported and the next message served, `tracepilot dap > file` works, fields of
the wrong type are refused by name, and a misspelt launch/attach argument of ours is refused."""

from __future__ import annotations

import asyncio
import json

import pytest

from .raw_dap import RawDap, adapter_env, frame

pytestmark = pytest.mark.timeout(60)

INIT = {"adapterID": "java", "linesStartAt1": True, "pathFormat": "path"}


async def _ends_cleanly(data: bytes, keep_open: bool = False) -> str:
    dap = await RawDap.stdio()
    try:
        dap.send_bytes(data)
        if not keep_open:
            dap.writer.close()
        rc = await asyncio.wait_for(dap.proc.wait(), 20)
        err = await dap.stderr()
        assert rc == 0, err
        assert "Traceback" not in err, err
        return err
    finally:
        await dap.close()


async def test_a_negative_content_length_ends_the_connection_cleanly():
    err = await _ends_cleanly(b"Content-Length: -1\r\n\r\n{}")
    assert "bad Content-Length" in err


async def test_a_header_line_over_the_limit_ends_the_connection_cleanly():
    err = await _ends_cleanly(b"X" * (17 * 1024 * 1024) + b"\r\n\r\n")
    assert "longer than" in err


async def test_a_message_without_content_length_is_refused_at_once():
    # stdin stays open: the adapter must not wait for a header that never comes
    err = await _ends_cleanly(b'{"seq": 1, "type": "request", "command": "initialize"}\r\n\r\n', keep_open=True)
    assert "without a Content-Length" in err


async def test_deep_json_is_reported_and_the_next_message_served():
    dap = await RawDap.stdio()
    try:
        body = b"[" * 100_000 + b"]" * 100_000
        dap.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        reply = await dap.request("initialize", INIT)
        assert reply["success"], reply
        assert any("nests too deeply" in e.get("body", {}).get("output", "") for e in dap.events), dap.events
        dap.send_bytes(b"Content-Length: 5\r\n\r\n\xff\xfe\xfd{}")  # not UTF-8
        assert (await dap.request("threads"))["success"]
        await dap.request("disconnect", {})
        assert "Traceback" not in await dap.stderr()
    finally:
        await dap.close()


async def test_stdout_to_a_file(tmp_path):
    out = tmp_path / "replies"
    with out.open("wb") as file:
        proc = await asyncio.create_subprocess_exec(
            *(await _dap_command()), env=adapter_env(), stdin=asyncio.subprocess.PIPE, stdout=file,
            stderr=asyncio.subprocess.PIPE)
        proc.stdin.write(frame({"seq": 1, "type": "request", "command": "initialize", "arguments": INIT}))
        proc.stdin.write(frame({"seq": 2, "type": "request", "command": "disconnect", "arguments": {}}))
        await proc.stdin.drain()
        proc.stdin.close()
        rc = await asyncio.wait_for(proc.wait(), 20)
        err = (await proc.stderr.read()).decode(errors="replace")
    assert rc == 0 and "Traceback" not in err, err
    text = out.read_text()
    assert '"command": "initialize"' in text and '"supportsConfigurationDoneRequest": true' in text, text


async def _dap_command() -> list[str]:
    import sys

    return [sys.executable, "-m", "tracepilot.cli", "dap"]


async def test_fields_of_the_wrong_type_are_refused_by_name():
    dap = await RawDap.stdio()
    try:
        await dap.request("initialize", INIT)
        reply = await dap.request("setBreakpoints", {"source": {"path": "/x/Foo.java"},
                                                     "breakpoints": [{"line": "abc"}]})
        assert not reply["success"] and "`line` must be an integer, got 'abc'" in reply["message"], reply
        reply = await dap.request("stackTrace", {"threadId": 1, "levels": {"a": 1}})
        assert not reply["success"] and "`levels` must be an integer" in reply["message"], reply
        reply = await dap.request("setBreakpoints", {"source": {"path": "/x/Foo.java"}, "breakpoints": [7]})
        assert not reply["success"] and "internal error" not in reply["message"], reply
        dap.send_bytes(frame({"seq": 99, "type": "request", "command": "threads", "arguments": [1]}))
        reply = await dap.response(99)
        assert not reply["success"] and "must be a JSON object" in reply["message"], reply
        for message in dap.responses.values():
            assert "internal error" not in json.dumps(message), message
    finally:
        await dap.close()


async def test_a_misspelt_launch_argument_of_ours_is_refused_and_editor_keys_are_not(java_classes):
    dap = await RawDap.stdio()
    try:
        await dap.request("initialize", INIT)
        reply = await dap.request("launch", {"type": "java", "request": "launch", "name": "Quick", "__sessionId": "x",
                                             "mainClass": "fixtures.Quick", "classPath": [str(java_classes)]})
        assert not reply["success"], reply
        assert '"classPath" is not an argument of launch: did you mean "classPaths"?' in reply["message"], reply
        reply = await dap.request("attach", {"type": "java", "hostname": "localhost", "port": 1})
        assert 'did you mean "hostName"?' in reply["message"], reply
    finally:
        await dap.close()
