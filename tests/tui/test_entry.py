"""The TUI's command-line glue: java argument translation and the not-yet-available `watch`."""

from __future__ import annotations

from tracepilot.cli import build_parser
from tracepilot.tui.app import java_launch_options, run


def test_classpath_main_and_args():
    assert java_launch_options(["-Xmx64m", "-cp", "build/classes", "com.acme.Main", "a", "-b"]) == {
        "jvm_args": ["-Xmx64m"], "classpath": "build/classes", "main": "com.acme.Main", "args": ["a", "-b"]}


def test_jar_and_single_source_file():
    assert java_launch_options(["-jar", "app.jar", "x"])["jar"] == "app.jar"
    options = java_launch_options(["Foo.java", "1"])
    assert options["source"] == "Foo.java" and options["args"] == ["1"]


def test_watch_says_not_available_yet(capsys):
    assert run(build_parser().parse_args(["watch"])) == 2
    assert "not available yet" in capsys.readouterr().out
