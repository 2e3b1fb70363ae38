"""The jdb/gdb command-line parser: every command form turns into the right catalog call (no JVM)."""

from __future__ import annotations

import pytest

from tracepilot.core.catalog import CommandError, default_catalog, split_commands, tokenize

catalog = default_catalog()


def parsed(line: str) -> tuple[str, dict]:
    invocation = catalog.parse(line)
    return invocation.command.name, invocation.args


@pytest.mark.parametrize(
    ("line", "name", "args"),
    [
        # execution
        ("run", "run", {}),
        ("cont", "cont", {}),
        ("c", "cont", {}),
        ("continue 2.5", "cont", {"timeout": 2.5}),
        ("step", "step", {}),
        ("s", "step", {}),
        ("step 3", "step", {"count": 3}),
        ("next", "next", {}),
        ("n", "next", {}),
        ("step up", "step up", {}),
        ("finish", "step up", {}),
        ("stepi", "stepi", {}),
        ("run-to Foo:42", "run-to", {"location": "Foo:42"}),
        ("until com.acme.Foo.bar", "run-to", {"location": "com.acme.Foo.bar"}),
        ("wait 3", "wait", {"timeout": 3.0}),
        ("suspend", "suspend", {}),
        ("suspend worker-1", "suspend", {"thread": "worker-1"}),
        ("resume 12", "resume", {"thread": 12}),
        ("interrupt worker-1", "interrupt", {"thread": "worker-1"}),
        ("timeout 10", "timeout", {"seconds": 10.0}),
        # breakpoints, jdb
        ("stop", "stop", {}),
        ("stop at com.acme.Foo:42", "stop at", {"location": "com.acme.Foo:42"}),
        ("stop in com.acme.Foo.bar", "stop in", {"location": "com.acme.Foo.bar"}),
        ("stop in com.acme.Foo.bar(int, String)", "stop in", {"location": "com.acme.Foo.bar(int, String)"}),
        ("stop at com.acme.Foo:42 if x > 3", "stop at", {"location": "com.acme.Foo:42", "condition": "x > 3"}),
        ("stop thread at Foo:3", "stop", {"location": "Foo:3", "suspend": "thread"}),
        ("stop at Foo:12 hit %10", "stop at", {"location": "Foo:12", "hit_count": "%10"}),
        ('stop at Foo:12 if s.equals("a b") hit >=5 thread main once',
         "stop at", {"location": "Foo:12", "condition": 's.equals("a b")', "hit_count": ">=5", "thread": "main",
                     "temporary": True}),
        ('stop at Foo:12 log "x={x} hit"', "stop at", {"location": "Foo:12", "log": "x={x} hit"}),
        ("stop at Foo:12 after bp-1 suspend thread", "stop at",
         {"location": "Foo:12", "after": "bp-1", "suspend": "thread"}),
        ("stop at Foo:12 after 1 disabled", "stop at", {"location": "Foo:12", "after": "bp-1", "enabled": False}),
        ("stop at Foo:12 if log(x) > 1", "stop at", {"location": "Foo:12", "condition": "log(x) > 1"}),
        # breakpoints, gdb
        ("b Foo:12", "stop at", {"location": "Foo:12"}),
        ("break Foo.java:12 if i == 2", "stop at", {"location": "Foo.java:12", "condition": "i == 2"}),
        ("b 42", "stop at", {"location": "42"}),
        ("tbreak Foo:7", "tbreak", {"location": "Foo:7"}),
        ('log Foo:12 "i={i}"', "logpoint", {"location": "Foo:12", "log": "i={i}"}),
        ('logpoint Foo:12 "i={i}" if i > 2', "logpoint", {"location": "Foo:12", "log": "i={i}", "condition": "i > 2"}),
        ("info breakpoints", "info breakpoints", {}),
        ("info b", "info breakpoints", {}),
        ("clear", "clear", {}),
        ("clear Foo:12", "clear", {"breakpoint": "Foo:12"}),
        ("clear 2", "clear", {"breakpoint": "bp-2"}),
        ("delete", "delete", {}),
        ("delete 1 2", "delete", {"breakpoints": "1 2"}),
        ("disable 1", "disable", {"breakpoints": "1"}),
        ("enable bp-1", "enable", {"breakpoints": "bp-1"}),
        ("condition 1 i % 100 == 0", "condition", {"breakpoint": "bp-1", "expression": "i % 100 == 0"}),
        ("condition 1", "condition", {"breakpoint": "bp-1"}),
        ("ignore-count 2 5", "ignore-count", {"breakpoint": "bp-2", "count": 5}),
        ("hitcount 2 %3", "hitcount", {"breakpoint": "bp-2", "count": "%3"}),
        ("catch java.lang.NPE", "catch", {"exception": "java.lang.NPE"}),
        ("catch uncaught java.io.IOException", "catch",
         {"exception": "java.io.IOException", "caught": False, "uncaught": True}),
        ("catch caught *", "catch", {"exception": "*", "caught": True, "uncaught": False}),
        ("catch all Foo if e.getMessage() != null", "catch",
         {"exception": "Foo", "caught": True, "uncaught": True, "condition": "e.getMessage() != null"}),
        ("ignore java.lang.NPE", "ignore", {"exception": "java.lang.NPE"}),
        ("watch com.acme.Order.total", "watch", {"field": "com.acme.Order.total", "access": False, "modify": True}),
        ("watch access Foo.count", "watch", {"field": "Foo.count", "access": True, "modify": False}),
        ("watch all Foo.count if count > 3", "watch",
         {"field": "Foo.count", "access": True, "modify": True, "condition": "count > 3"}),
        ("unwatch Foo.count", "unwatch", {"field": "Foo.count"}),
        ("unwatch all Foo.count", "unwatch", {"field": "Foo.count"}),
        ("break-entry Foo.bar", "break-entry", {"method": "Foo.bar"}),
        ("break-exit Foo.bar if x > 1", "break-exit", {"method": "Foo.bar", "condition": "x > 1"}),
        # stack
        ("where", "where", {}),
        ("bt", "where", {}),
        ("where all", "where", {"all_threads": True}),
        ("where worker-1", "where", {"thread": "worker-1"}),
        ("where 5", "where", {"count": 5}),
        ("bt full", "where", {"with_locals": True}),
        ("up", "up", {}),
        ("up 2", "up", {"count": 2}),
        ("down", "down", {}),
        ("frame 3", "frame", {"index": 3}),
        ("frame", "frame", {}),
        ("locals", "locals", {}),
        ("info locals", "locals", {}),
        ("snapshot", "snapshot", {}),
        ("pop", "pop", {}),
        ("reenter", "reenter", {}),
        ("return 42", "return", {"value": "42"}),
        # data
        ("print x", "print", {"expression": "x"}),
        ("p x + 1", "print", {"expression": "x + 1"}),
        ("eval this.items.get(0).name", "print", {"expression": "this.items.get(0).name"}),
        ('print "a; b"', "print", {"expression": '"a; b"'}),
        ("dump this", "dump", {"target": "this"}),
        ("dump @12", "dump", {"target": "@12"}),
        ("set x = 5", "set", {"target": "x", "value": "5"}),
        ("set this.count = count == 3 ? 1 : 2", "set", {"target": "this.count", "value": "count == 3 ? 1 : 2"}),
        ("set arr[i == 1 ? 0 : 1] = 7", "set", {"target": "arr[i == 1 ? 0 : 1]", "value": "7"}),
        ("set var x = 2", "set", {"target": "x", "value": "2"}),
        ("mark order this.order", "mark", {"label": "order", "target": "this.order"}),
        ("unmark order", "unmark", {"label": "order"}),
        ("marks", "marks", {}),
        ("disablegc @3", "disablegc", {"target": "@3"}),
        ("enablegc @3", "enablegc", {"target": "@3"}),
        ("referrers @3", "referrers", {"target": "@3"}),
        ("heap com.acme.*", "heap", {"pattern": "com.acme.*"}),
        # watchers and monitors
        ("display order.total", "display", {"expression": "order.total"}),
        ("display i at 1", "display", {"expression": "i", "breakpoint": "bp-1"}),
        ("undisplay w-1", "undisplay", {"id": "w-1"}),
        ("watchers", "watchers", {}),
        ("monitor where", "monitor", {"command": "where"}),
        ("monitor", "monitor", {}),
        ("unmonitor 1", "unmonitor", {"number": 1}),
        # threads
        ("threads", "threads", {}),
        ("threads all", "threads", {"which": "all"}),
        ("info threads", "threads", {}),
        ("thread 1", "thread", {"thread": 1}),
        ("thread main", "thread", {"thread": "main"}),
        ("lock this", "lock", {"target": "this"}),
        ("threadlocks", "locks", {}),
        ("deadlocks", "locks", {}),
        # classes and source
        ("classes", "classes", {}),
        ("classes com.acme.*", "classes", {"pattern": "com.acme.*"}),
        ("class com.acme.Foo", "class", {"name": "com.acme.Foo"}),
        ("methods Foo", "methods", {"name": "Foo"}),
        ("fields Foo", "fields", {"name": "Foo"}),
        ("list", "list", {}),
        ("list Foo:12", "list", {"location": "Foo:12"}),
        ("list Foo:12 3", "list", {"location": "Foo:12", "context": 3}),
        ("use", "use", {}),
        ("sourcepath src/main/java:src/test/java", "use", {"path": "src/main/java:src/test/java"}),
        ("exclude java.*,sun.*", "exclude", {"patterns": "java.*,sun.*"}),
        ("redefine com.acme.Foo build/Foo.class", "redefine", {"path": "com.acme.Foo build/Foo.class"}),
        ("hotswap build/classes", "redefine", {"path": "build/classes"}),
        # observation
        ("trace methods com.acme.* 2", "trace", {"pattern": "com.acme.*", "duration": 2.0}),
        ("trace com.acme.*", "trace", {"pattern": "com.acme.*"}),
        ("trace summary com.acme.*", "trace", {"pattern": "com.acme.*"}),
        ("untrace", "untrace", {}),
        ("events", "events", {}),
        ("events 10", "events", {"since": 10}),
        ("output stdout", "output", {"stream": "stdout"}),
        # connection and session
        ("attach localhost:5005", "attach", {"address": "localhost:5005"}),
        ("launch -cp build com.acme.Main a b", "launch", {"java_args": "-cp build com.acme.Main a b"}),
        ("detach", "detach", {}),
        ("detach kill", "detach", {"how": "kill"}),
        ("status", "status", {}),
        ("version", "version", {}),
        ("reset", "reset", {}),
        ("help", "help", {}),
        ("help stop at", "help", {"topic": "stop at"}),
        ("exit", "exit", {}),
        ("quit", "exit", {}),
    ],
)
def test_command_forms(line: str, name: str, args: dict) -> None:
    assert parsed(line) == (name, args)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("stpe", "did you mean"),
        ("stop at", "missing location"),
        ("stop at Foo:12 iff x", "unexpected 'iff x'"),
        ("stop at Foo:12 if", "`if` needs a condition"),
        ("frame two", "must be an integer"),
        ("print", "missing expression"),
        ("set x", "usage: set TARGET = VALUE"),
        ("set x == 3", "usage: set TARGET = VALUE"),
        ("watch", "watch needs one CLASS.FIELD"),
        ("stop at Foo:1 suspend some", "suspend must be"),
        ("up 1 2", "unexpected '2'"),
    ],
)
def test_errors_say_what_to_do(line: str, message: str) -> None:
    with pytest.raises(CommandError) as info:
        catalog.parse(line)
    assert message in str(info.value)


def test_split_commands_respects_quotes_and_brackets() -> None:
    assert split_commands('stop at Foo:12; cont; p "a;b"; where') == ["stop at Foo:12", "cont", 'p "a;b"', "where"]
    assert split_commands("p f(a; b)\n# comment\nwhere\n\n") == ["p f(a; b)", "where"]


def test_tokenize_keeps_calls_together() -> None:
    assert [t.text for t in tokenize('Foo:1 if s.equals("a b") log "x y"')] == [
        "Foo:1", "if", 's.equals("a b")', "log", "x y"]


def test_every_name_is_unique_and_every_command_documented() -> None:
    seen = set()
    for command in catalog.commands:
        assert command.help, command.name
        for name in command.names:
            assert name not in seen, name
            seen.add(name)
    # every jdb command of the issue and the gdb aliases are there
    jdb = ["run", "cont", "step", "next", "stepi", "where", "up", "down", "frame", "locals", "print", "dump", "eval", "set", "threads", "thread", "suspend", "resume", "interrupt", "clear", "catch", "ignore", "watch", "unwatch", "classes", "class", "methods", "fields", "list", "use", "sourcepath", "lock", "threadlocks", "pop", "reenter", "redefine", "monitor", "unmonitor", "exclude", "disablegc", "enablegc", "version", "help", "exit"]
    gdb = ["c", "n", "s", "finish", "b", "bt", "p", "delete", "condition", "ignore-count"]
    for name in [*jdb, *gdb, "stop at", "stop in", "step up", "trace methods", "untrace", "info locals",
                 "info breakpoints"]:
        assert catalog.get(name) is not None, name


def test_help_lists_and_explains() -> None:
    text = catalog.help()
    assert "stop at LOCATION" in text and "breakpoints:" in text
    assert "if EXPR" in catalog.help("stop at")
    assert "aliases: c, continue" in catalog.help("c")
