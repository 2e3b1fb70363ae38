"""Issue 17, point 1: every path that reads a file for display reads only source files under the source
roots. `source` (MCP), REPL `list` and the TUI's file finder refuse the rest, with and without --read-only,
and say what to add to the source path; sources of loaded classes on the path are still shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_harness import open_session

from tracepilot.core.catalog import Selection, default_catalog
from tracepilot.core.debugger import Debugger
from tracepilot.core.model import Actor, CodeLocation

pytestmark = pytest.mark.timeout(90)

SECRET = "TOP-SECRET-CONTENT-17"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A Java file and a plain file in a directory that is not a source root."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "Hidden.java").write_text(f"class Hidden {{ String s = \"{SECRET}\"; }}\n")
    (folder / "shadow").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    return folder


def _refused(text: str, path: Path) -> None:
    assert SECRET not in text
    assert "not reading" in text and "source path" in text, text
    assert "--sourcepath" in text, text  # says what to add


@pytest.mark.parametrize("read_only", [False, True], ids=["rw", "read-only"])
async def test_mcp_source_refuses_files_outside_the_source_roots(tmp_path, outside, jvm_factory, default_jdk,
                                                                 java_source_root, line_of, read_only):
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    async with open_session("memory", tmp_path, read_only=read_only) as s:
        await s.ok("attach", address=jvm.address, sourcepath=[str(java_source_root)])
        for location in (f"{outside / 'shadow'}:1", str(outside / "Hidden.java"), f"{outside / 'Hidden.java'}:1",
                         f"{java_source_root}/../../{outside.relative_to('/')}/Hidden.java:1"):
            reply = await s.err("source", location=location)
            _refused(reply.text, outside)
        system = await s.err("source", location="/etc/passwd:1")
        assert "root:" not in system.text and "not reading" in system.text
        # Inside the roots: the class a loaded name names, and a file by path.
        shown = await s.ok("source", location=f"fixtures.Findings:{line_of('findings-ready')}")
        assert "findings ready" in shown.text
        by_path = await s.ok("source", location=f"{java_source_root}/fixtures/FindingsLate.java:6")
        assert "hello" in by_path.text


@pytest.mark.parametrize("read_only", [False, True], ids=["rw", "read-only"])
async def test_repl_list_refuses_files_outside_the_source_roots(outside, jvm_factory, default_jdk, java_source_root,
                                                                read_only):
    debugger = Debugger(read_only=read_only, sourcepath=[str(java_source_root)])
    catalog, selection = default_catalog(), Selection(wait_timeout=20.0)
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    try:
        assert (await catalog.execute(debugger, f"attach {jvm.address}", Actor.PERSON, selection)).ok
        for location in (f"{outside / 'shadow'}:1", f"{outside / 'Hidden.java'}:1", "/etc/passwd:1"):
            result = await catalog.execute(debugger, f"list {location}", Actor.PERSON, selection)
            assert not result.ok, result.text
            assert SECRET not in result.text and "root:" not in result.text
            assert "not reading" in result.text
        shown = await catalog.execute(debugger, "list fixtures.FindingsLate:6", Actor.PERSON, selection)
        assert shown.ok and "hello" in shown.text, shown.text
    finally:
        await debugger.close()


@pytest.mark.parametrize("read_only", [False, True], ids=["rw", "read-only"])
async def test_tui_file_finder_refuses_files_outside_the_source_roots(outside, java_source_root, read_only,
                                                                      tmp_path, monkeypatch):
    from tracepilot.tui.app import TracepilotApp

    home = tmp_path / "home"  # started from the home directory, which is too broad to be a source root
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "Keys.java").write_text(f"class Keys {{ String k = \"{SECRET}\"; }}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    debugger = Debugger(read_only=read_only, sourcepath=[str(java_source_root)])
    app = TracepilotApp(debugger, None, sourcepath=[str(java_source_root)], clock=False)
    try:
        async with app.run_test() as pilot:
            files = app.actions.source_files()
            assert any(path.name == "Findings.java" for _, path in files)
            assert not any(outside in path.parents or home in path.parents for _, path in files), files
            # Opening a file outside the roots anyway (a stale entry, a hostile SourceFile) shows no content.
            hidden = outside / "Hidden.java"
            await app.refresher.open_location(CodeLocation("Hidden", "", 1, "Hidden.java", str(hidden)), current=False)
            await pilot.pause()
            assert app.view.source is not None
            assert SECRET not in app.view.source.text
            assert app.view.source_path != hidden
    finally:
        await debugger.close()
