"""The TUI's command-line glue: java argument translation and `watch` with nothing to watch."""

from __future__ import annotations

from tracepilot.cli import build_parser
from tracepilot.tui.entry import java_launch_options, run


def test_classpath_main_and_args():
    assert java_launch_options(["-Xmx64m", "-cp", "build/classes", "com.acme.Main", "a", "-b"]) == {
        "jvm_args": ["-Xmx64m"], "classpath": "build/classes", "main": "com.acme.Main", "args": ["a", "-b"]}


def test_jar_and_single_source_file():
    assert java_launch_options(["-jar", "app.jar", "x"])["jar"] == "app.jar"
    options = java_launch_options(["Foo.java", "1"])
    assert options["source"] == "Foo.java" and options["args"] == ["1"]


def test_watch_without_live_sessions_says_how_to_start_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPILOT_SHARE_DIR", str(tmp_path / "share"))  # no sessions here (issue 9)
    assert run(build_parser().parse_args(["watch"])) == 2
    err = capsys.readouterr().err
    assert "no live tracepilot session" in err and "tracepilot --mcp" in err


def test_every_subcommand_help_is_its_own(capsys):
    import pytest

    for command, words in [("demo", ["--break LOCATION", "stopped at a breakpoint early", "--no-stop-on-uncaught"]),
                           ("launch", ["-- -cp build/classes", "a breakpoint set before the program runs"]),
                           ("attach", ["HOST:PORT of the JVM's debug agent", "--no-stop-on-uncaught"]),
                           ("repl", ["-c", "--no-stop-on-uncaught", "help` at the prompt"])]:
        with pytest.raises(SystemExit):
            build_parser().parse_args([command, "--help"])
        out = capsys.readouterr().out
        assert out.startswith(f"usage: tracepilot {command} "), out
        assert "tracepilot --mcp" not in out and "tracepilot sessions" not in out  # not the top-level usage
        for word in words:
            assert word in out, (command, word)
