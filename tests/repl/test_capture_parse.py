"""`capture` at the prompt reads like jdb's `stop`: `capture in Class.method` (method entry) as `stop in`, and
a word it does not know lists capture's own options (not stop's `log`, `once`, `suspend`, which it refuses)."""

from __future__ import annotations

import pytest

from tracepilot.core.catalog.captures import parse_capture
from tracepilot.core.catalog.framework import CommandError


def test_capture_in_a_method_as_stop_in() -> None:
    args = parse_capture('in org.apache.tools.ant.taskdefs.Echo.execute times 2 show "message"')
    assert args["location"] == "org.apache.tools.ant.taskdefs.Echo.execute" and args["capture"] == 2
    assert args["expressions"] == ["message"]


def test_an_unknown_word_lists_captures_options() -> None:
    with pytest.raises(CommandError) as error:
        parse_capture("at a.B.m bogus 3")
    said = str(error.value) + " " + str(getattr(error.value, "hint", "") or "")
    assert "'bogus 3'" in said and "times" in said and "show" in said and "log" not in said, said


def test_captures_takes_since_as_the_tool_does() -> None:
    """`captures wait 5` answers at once while any capture is there; `since SEQ` (the captures tool's) makes
    it wait for the next one."""
    from tracepilot.core.catalog.captures import parse_captures

    assert parse_captures("bp-2 wait 5 since 3") == {"id": "bp-2", "wait": 5.0, "since": 3}
