"""Bad input at every front end: invalid arguments for every MCP tool generated from its JSON schema
(thousands of calls through the in-memory client), malformed locations and expressions, unknown
thread/frame/handle ids, stale frames after resume — each an error that says what to do, never an
unmapped crash, and the server still answers after. The command catalog (REPL, TUI command line) likewise."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tracepilot.core.catalog import Selection, default_catalog
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor

pytestmark = pytest.mark.timeout(180)

# Tools that would leave the stopped session we fuzz in (a valid call resumes, detaches, pops main...):
# fuzzed in the unattached state only.
LEAVE_SESSION = {"attach", "launch", "detach", "reset", "hotswap", "resume", "pause", "step", "run_to",
                 "wait_for_stop", "pop_frames", "force_return"}
WAIT_ARGS = ("timeout", "duration")

BAD_BY_TYPE: dict[str, list[Any]] = {
    "integer": ["x", 1.5, -1, 10**15, None, [], {"a": 1}, True],
    "number": ["soon", -5, 10**9, None, [1], {}],
    "boolean": ["yes", 2, None, [], {}],
    "string": [12, None, [], {"x": 1}, True],
    "array": ["not a list", 5, [{"a": 1}], None],
    "object": ["x", 5, [1]],
}
# Strings the schema accepts but the debugger must refuse with a helpful message.
BAD_STRINGS = ["", " ", "((", "Foo:", ":12", "Foo:-1", "Foo:99999999", "nosuch.Class:1", "@999999", "$nope",
               "bp-999", "x".join(["a"] * 3000), "\x00\x01", "../../etc/passwd", "a b c", "1 +", "new",
               "java.lang.String.nope()", "\u202e\u0000", "*", "999999", "{", "}{", "'", '"']


def _types(schema: dict[str, Any]) -> list[str]:
    if "type" in schema:
        t = schema["type"]
        return t if isinstance(t, list) else [t]
    found: list[str] = []
    for option in schema.get("anyOf", []) + schema.get("oneOf", []):
        found += _types(option)
    return found


def invalid_calls(tool: Any, rng: random.Random, strings: bool) -> list[dict[str, Any]]:
    schema = tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema
    props: dict[str, Any] = schema.get("properties", {})
    required = schema.get("required", [])
    calls: list[dict[str, Any]] = [{"unknown_argument": 1}]
    if required:
        calls.append({})  # missing required arguments
    for name, prop in props.items():
        types = _types(prop)
        for bad in [v for t in types for v in BAD_BY_TYPE.get(t, [])]:
            if _accepts(types, bad):
                continue
            calls.append({**{r: "x" for r in required if r != name}, name: bad})
        if strings and "string" in types:
            for text in rng.sample(BAD_STRINGS, 12):
                calls.append({**{r: "x" for r in required if r != name}, name: text})
        if "maximum" in prop or "minimum" in prop:
            calls.append({name: prop.get("maximum", 0) + 1})
            calls.append({name: prop.get("minimum", 0) - 1})
    for call in calls:
        for wait in WAIT_ARGS:
            if wait in props and wait not in call:
                call[wait] = 0
    return calls


def _accepts(types: list[str], value: Any) -> bool:
    checks = {"integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
              "boolean": lambda v: isinstance(v, bool), "string": lambda v: isinstance(v, str),
              "null": lambda v: v is None, "array": lambda v: isinstance(v, list),
              "object": lambda v: isinstance(v, dict)}
    return any(checks.get(t, lambda v: False)(value) for t in types)


def assert_helpful(tool: str, args: dict[str, Any], reply: Any) -> None:
    text = reply.text
    assert text.strip(), (tool, args)
    assert text.strip() != f"Error executing tool {tool}", f"unmapped crash: {tool}({args!r})"
    assert "Traceback" not in text, (tool, args, text)
    assert "the server keeps running" not in text, f"unexpected exception in {tool}({args!r}): {text}"


async def _fuzz(s: Any, rng: random.Random, *, skip: set[str], strings: bool) -> int:
    tools = (await s.client.list_tools()).tools
    assert len(tools) >= 38
    calls = 0
    for tool in tools:
        if tool.name in skip:
            continue
        for args in invalid_calls(tool, rng, strings):
            reply = await s.call(tool.name, **args)
            calls += 1
            if reply.error:
                assert_helpful(tool.name, args, reply)
    return calls


async def test_every_mcp_tool_refuses_schema_invalid_arguments_unattached(mcp_session):
    rng = random.Random(11)
    async with mcp_session("memory") as s:
        calls = await _fuzz(s, rng, skip=set(), strings=False)
        assert calls >= 500, calls
        status = await s.ok("status")  # still answers
        assert "DISCONNECTED" in status.text or "not attached" in status.text.lower()


async def test_every_mcp_tool_with_bad_values_while_stopped(mcp_session, jvm_factory, line_of):
    rng = random.Random(12)
    target = jvm_factory("Playground", "1000")
    async with mcp_session("memory") as s:
        await s.ok("attach", address=target.address)
        await s.ok("breakpoint_set", location=f"Playground:{line_of('compute-body')}")
        await s.ok("resume", timeout=20)
        calls = await _fuzz(s, rng, skip=LEAVE_SESSION, strings=True)
        assert calls >= 1000, calls
        # unknown ids and malformed input, each with what to do next
        for tool, args, phrase in [
            ("locals", {"frame": 99}, "frame"),
            ("locals", {"thread": 424242}, "thread"),
            ("stack", {"thread": "no-such-thread"}, "thread"),
            ("inspect", {"target": "@987654"}, "@987654"),
            ("inspect", {"target": "$nomark"}, "nomark"),
            ("evaluate", {"expression": "x +* 2"}, "^"),
            ("evaluate", {"expression": "nosuchvar"}, "nosuchvar"),
            ("breakpoint_update", {"id": "bp-77"}, "bp-77"),
            ("breakpoint_remove", {"id": "bp-77"}, "bp-77"),
            ("run_to", {"location": "Playground:99999", "timeout": 0}, "Playground:99999"),  # line 1 moves to code now
        ]:
            reply = await s.err(tool, **args)
            assert phrase in reply.text, (tool, args, reply.text)
        # a near miss is a pending breakpoint (its class may load later) that says "did you mean"
        near = await s.ok("breakpoint_set", location="Playgrund:12")
        assert "did you mean fixtures.Playground" in near.text
        # the session is intact: still stopped at the breakpoint, still answering
        status = await s.ok("status")
        assert "STOPPED" in status.text
        # stale frames after resume: a frame-bound question on a running program says to stop first
        await s.ok("resume", timeout=0)
        running = await s.err("locals", frame=0)
        assert any(w in running.text for w in ("stop", "pause", "wait")), running.text
        await s.ok("pause")
        await s.ok("locals")


@pytest.mark.parametrize("line", [
    "", "stop at", "stop at Foo:", "stop at :12", "stop at Playground:notanumber", "stop at ((", "print",
    "print x +* 2", "print nosuch", "frame 99", "frame -1", "thread 987654", "thread nosuch", "dump @987654",
    "dump $nope", "delete bp-99", "enable bp-99", "condition bp-99 x > 1", "hitcount bp-1 zz", "catch 12abc",
    "watch NoDot", "set = 5", "set x", "up 1000", "down 5", "list Nope:1", "classes ((", "trace", "nonsense",
    "step sideways", "timeout abc", "\x00", "stop at Playground:1 if ((",
])
async def test_catalog_bad_input_is_an_error_that_says_what_to_do(jvm_factory, line_of, line):
    target = jvm_factory("Playground", "1000")
    debugger = Debugger()
    catalog, selection = default_catalog(), Selection(wait_timeout=5.0)

    async def run(text: str):
        return await catalog.execute(debugger, text, Actor.PERSON, selection)

    try:
        assert (await run(f"attach {target.address}")).ok
        assert (await run(f"stop at Playground:{line_of('compute-body')}")).ok
        assert (await run("cont")).ok
        result = await run(line)
        if not result.ok:
            assert result.text.strip() and "Traceback" not in result.text, result.text
            assert len(result.text) < 4000
        after = await run("where")  # the session is intact and still answers
        assert after.ok and "compute" in after.text, after.text
    finally:
        await debugger.close()
