"""The jdb/gdb syntax of a command produces the argument names of the operation it runs: a breakpoint's
options typed at the prompt are breakpoint_set's arguments, declared once in its spec."""

from __future__ import annotations

import pytest

from tracepilot.commands import by_tool
from tracepilot.core.catalog import default_catalog

LINES = [
    ('stop at Foo:12 if x > 1 hit 5 log "m={x}" thread main after bp-1 once disabled suspend thread',
     "breakpoint_set"),
    ('tbreak Foo:12 if x > 1', "breakpoint_set"),
    ('capture at Foo:12 times 3 if x > 1 hit 5 thread main show "a; b.c"', "breakpoint_set"),
    ("captures bp-1 wait 2 limit 5", "captures"),
    ('logpoint Foo:12 "x={x}" if x > 1 hit %10', "breakpoint_set"),
    ("catch caught java.io.IOException", "exception_break"),
    ("watch access Foo.bar", "watchpoint_set"),
    ("unwatch Foo.bar", None),
    ("run-to Foo:12", "run_to"),
    ("trace com.acme.*", None),
]


@pytest.mark.parametrize(("line", "tool"), LINES)
def test_typed_options_are_the_operations_arguments(line, tool):
    invocation = default_catalog().parse(line)
    spec = invocation.command.spec
    assert spec is not None
    if tool is None:
        return
    assert spec.tool == tool
    params = {p.name for p in by_tool()[tool].params}
    assert set(invocation.args) <= params, set(invocation.args) - params
