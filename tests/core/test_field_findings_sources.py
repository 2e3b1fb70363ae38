"""Issue 17, point 20: source roots found without flags, on a real JVM.

A Maven/Gradle project in the working directory (tracepilot's, or the launched JVM's) puts src/main/java,
src/test/java and its modules' on the source path; `*-sources.jar` next to a jar on the class path, or in
the local Maven repository, is read for the classes of that jar. No --sourcepath anywhere here.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.sources import SourceOutsideRoots, SourcePath

pytestmark = pytest.mark.timeout(90)

FIXTURES = ("Findings", "FindingsLate")


def _copy_sources(java_source_root: Path, into: Path) -> None:
    (into / "fixtures").mkdir(parents=True)
    for name in FIXTURES:
        shutil.copy(java_source_root / "fixtures" / f"{name}.java", into / "fixtures" / f"{name}.java")


def _jar_of_classes(java_classes: Path, jar: Path, pom_properties: str | None = None) -> None:
    with zipfile.ZipFile(jar, "w") as archive:
        for path in (java_classes / "fixtures").glob("Findings*.class"):
            archive.write(path, f"fixtures/{path.name}")
        if pom_properties is not None:
            archive.writestr("META-INF/maven/com.example/findings/pom.properties", pom_properties)


def _sources_jar(java_source_root: Path, jar: Path) -> None:
    with zipfile.ZipFile(jar, "w") as archive:
        for name in FIXTURES:
            archive.write(java_source_root / "fixtures" / f"{name}.java", f"fixtures/{name}.java")


async def _stop_in_compute(debugger: Debugger, line_of, **launch) -> None:
    await debugger.launch(main="fixtures.Findings", args=["300"], **launch)
    await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
    result = await debugger.resume(timeout=30)
    assert result.stopped, result


async def _assert_source_shown(debugger: Debugger, line_of, under: Path) -> None:
    view = await debugger.source("fixtures.Findings.compute")
    assert view.path is not None and Path(view.path).is_relative_to(under), view.path
    assert any("value = x + 1;" in line.text for line in view.lines)
    frames = await debugger.stack()
    assert frames[0].location.source_path and Path(frames[0].location.source_path).is_relative_to(under)


async def test_maven_modules_of_the_launched_programs_working_directory(tmp_path, java_classes, java_source_root,
                                                                        line_of):
    project = tmp_path / "shop"
    (project / "core").mkdir(parents=True)
    (project / "pom.xml").write_text("<project><modules><module>core</module></modules></project>")
    _copy_sources(java_source_root, project / "core" / "src" / "main" / "java")
    debugger = Debugger()
    try:
        await _stop_in_compute(debugger, line_of, classpath=[str(java_classes)], cwd=str(project))
        await _assert_source_shown(debugger, line_of, project / "core" / "src" / "main" / "java")
    finally:
        await debugger.close()


def test_gradle_modules_of_tracepilots_working_directory(tmp_path, java_source_root, monkeypatch):
    project = tmp_path / "gradle-shop"
    (project / "libs" / "app").mkdir(parents=True)
    (project / "settings.gradle").write_text("rootProject.name = 'shop'\ninclude ':libs:app', 'web'\n")
    _copy_sources(java_source_root, project / "libs" / "app" / "src" / "test" / "java")
    monkeypatch.chdir(project)
    sources = SourcePath()
    assert project / "libs" / "app" / "src" / "test" / "java" in sources.roots
    found = sources.find("fixtures.Findings")
    assert found == project / "libs" / "app" / "src" / "test" / "java" / "fixtures" / "Findings.java"


async def test_sources_jar_next_to_a_jar_on_the_class_path(tmp_path, java_classes, java_source_root, line_of,
                                                           monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = tmp_path / "lib"
    lib.mkdir()
    _jar_of_classes(java_classes, lib / "findings-1.0.jar")
    _sources_jar(java_source_root, lib / "findings-1.0-sources.jar")
    debugger = Debugger()
    try:
        await _stop_in_compute(debugger, line_of, classpath=[str(lib / "findings-1.0.jar")], cwd=str(tmp_path))
        await _assert_source_shown(debugger, line_of, tmp_path / "cache" / "tracepilot" / "sources")
    finally:
        await debugger.close()


async def test_sources_jar_in_the_local_maven_repository(tmp_path, java_classes, java_source_root, line_of,
                                                        monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repository = tmp_path / "m2" / "repository"
    monkeypatch.setenv("TRACEPILOT_MAVEN_REPO", str(repository))
    lib = tmp_path / "usr-share-java"  # a distribution's jar: no sources beside it
    lib.mkdir()
    _jar_of_classes(java_classes, lib / "findings.jar",
                    "groupId=com.example\nartifactId=findings\nversion=2.3\n")
    in_repo = repository / "com" / "example" / "findings" / "2.3"
    in_repo.mkdir(parents=True)
    _sources_jar(java_source_root, in_repo / "findings-2.3-sources.jar")
    debugger = Debugger()
    try:
        await _stop_in_compute(debugger, line_of, classpath=[str(lib / "findings.jar")], cwd=str(tmp_path))
        await _assert_source_shown(debugger, line_of, tmp_path / "cache" / "tracepilot" / "sources")
    finally:
        await debugger.close()


# -- issue 25, point 4: what is shown stays a source file inside the (real) source roots ----------------


def test_a_symlink_in_a_source_root_to_a_file_outside_is_not_read(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:SECRET\n")
    (root / "Evil.java").symlink_to(secret)
    (root / "Fine.java").write_text("class Fine {}\n")
    sources = SourcePath([str(root)], cwd=str(root))
    assert sources.find("Fine") == root / "Fine.java"
    assert sources.find("Evil") is None
    assert not sources.allows(root / "Evil.java")
    with pytest.raises(SourceOutsideRoots, match="is a link"):
        sources.check(root / "Evil.java")
    for typed in ("Evil.java", str(root / "Evil.java")):
        try:
            found = sources.find_file(typed)
        except SourceOutsideRoots:
            found = None
        assert found is None, typed
    assert root / "Evil.java" not in sources.files_named("Evil.java")


def test_a_directory_symlink_in_a_source_root_shows_nothing_outside(tmp_path):
    root = tmp_path / "src"
    (root / "com").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "acme"
    elsewhere.mkdir(parents=True)
    (elsewhere / "Hidden.java").write_text("package com.acme;\nclass Hidden { String pw = \"SECRET\"; }\n")
    (root / "com" / "acme").symlink_to(elsewhere, target_is_directory=True)
    sources = SourcePath([str(root)], cwd=str(root))
    assert sources.find("com.acme.Hidden") is None
    assert not sources.allows(root / "com" / "acme" / "Hidden.java")
    try:
        found = sources.find_file("com/acme/Hidden.java")
    except SourceOutsideRoots:
        found = None
    assert found is None


def test_a_symlinked_root_and_links_inside_the_roots_still_work(tmp_path):
    real = tmp_path / "real-src"
    real.mkdir()
    (real / "Foo.java").write_text("class Foo {}\n")
    (real / "Alias.java").symlink_to(real / "Foo.java")  # a link that stays inside the roots
    linked_root = tmp_path / "src"
    linked_root.symlink_to(real, target_is_directory=True)
    sources = SourcePath([str(linked_root)], cwd=str(tmp_path))
    assert sources.find("Foo") is not None
    assert sources.find("Alias") is not None
    assert sources.allows(linked_root / "Foo.java")


def test_source_file_names_that_are_not_source_files_are_never_looked_up(tmp_path):
    root = tmp_path / "src"
    (root / "fixtures").mkdir(parents=True)
    (root / ".env").write_text("DB_PASSWORD=SECRET\n")
    (root / "fixtures" / ".env").write_text("DB_PASSWORD=SECRET\n")
    sources = SourcePath([str(root)], cwd=str(root))
    for name in (".env", "id_rsa", "pom.xml", "Foo.java.bak"):
        assert sources.find("fixtures.Findings", name) is None, name
        assert sources.find("Findings", name) is None, name


def _with_source_file(class_file: Path, old: str, new: str) -> None:
    """Rewrite the SourceFile attribute's CONSTANT_Utf8 entry (a hostile or odd compiler's output)."""
    data = class_file.read_bytes()
    entry = b"\x01" + len(old).to_bytes(2, "big") + old.encode()
    assert data.count(entry) == 1, "the constant pool should hold the source file name once"
    class_file.write_bytes(data.replace(entry, b"\x01" + len(new).to_bytes(2, "big") + new.encode()))


async def test_a_stop_in_a_class_whose_source_file_is_dot_env_shows_no_env_file(tmp_path, java_classes, line_of,
                                                                                 monkeypatch):
    project = tmp_path / "project"
    (project / "fixtures").mkdir(parents=True)
    for where in (project, project / "fixtures"):
        (where / ".env").write_text("DB_PASSWORD=hunter2-ENV\n" * 80)
    classes = tmp_path / "classes"
    shutil.copytree(java_classes / "fixtures", classes / "fixtures")
    _with_source_file(classes / "fixtures" / "Findings.class", "Findings.java", ".env")
    monkeypatch.chdir(project)  # the working directory is a source root
    debugger = Debugger()
    try:
        await _stop_in_compute(debugger, line_of, classpath=[str(classes)], cwd=str(project))
        frames = await debugger.stack()
        assert frames[0].location.source_path is None, frames[0].location.source_path
        view = await debugger.source("fixtures.Findings.compute")
        assert view.path is None and not any("hunter2-ENV" in line.text for line in view.lines), view
        listing = await debugger.source(f"fixtures.Findings:{line_of('findings-compute')}")
        assert not any("hunter2-ENV" in line.text for line in listing.lines)
    finally:
        await debugger.close()


# -- issue 25, point 6: a sources jar is hostile input: bounded extraction ---------------------------------

BOMB_BYTES = 48 * 1024 * 1024  # far past the 4 MiB a source entry may have; compresses to ~50 KB


def _bomb_sources_jar(java_source_root: Path, jar: Path, claimed_size: int | None = None) -> None:
    """A sources jar whose Findings.java is the real source followed by BOMB_BYTES of blanks; with
    `claimed_size`, the entry's size fields say that instead of the truth."""
    with zipfile.ZipFile(jar, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with archive.open("fixtures/Findings.java", "w") as entry:
            entry.write((java_source_root / "fixtures" / "Findings.java").read_bytes() + b"/*")
            blanks = b" " * (1024 * 1024)
            for _ in range(BOMB_BYTES // len(blanks)):
                entry.write(blanks)
            entry.write(b"*/\n")
        archive.write(java_source_root / "fixtures" / "FindingsLate.java", "fixtures/FindingsLate.java")
    if claimed_size is not None:
        data = bytearray(jar.read_bytes())
        local, central = data.index(b"PK\x03\x04"), data.index(b"PK\x01\x02")  # Findings.java's: the first
        data[local + 22:local + 26] = claimed_size.to_bytes(4, "little")
        data[central + 24:central + 28] = claimed_size.to_bytes(4, "little")
        jar.write_bytes(bytes(data))


def _largest_cached_file(cache: Path) -> int:
    return max((p.stat().st_size for p in cache.rglob("*") if p.is_file()), default=0)


async def test_a_zip_bomb_in_a_sources_jar_is_not_extracted(tmp_path, java_classes, java_source_root, line_of,
                                                            monkeypatch):
    import tracemalloc

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    lib = tmp_path / "lib"
    lib.mkdir()
    _jar_of_classes(java_classes, lib / "findings-1.0.jar")
    _bomb_sources_jar(java_source_root, lib / "findings-1.0-sources.jar")
    assert (lib / "findings-1.0-sources.jar").stat().st_size < 2 * 1024 * 1024
    debugger = Debugger()
    try:
        await _stop_in_compute(debugger, line_of, classpath=[str(lib / "findings-1.0.jar")], cwd=str(tmp_path))
        tracemalloc.start()
        try:
            view = await debugger.source("fixtures.Findings.compute")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert view.path is None, view.path
        assert "not shown" in (view.message or "") and "decompresses to more than" in view.message, view.message
        assert peak < 16 * 1024 * 1024, f"showing the source held {peak // 2**20} MiB"
        assert _largest_cached_file(tmp_path / "cache") <= 4 * 1024 * 1024
        late = await debugger.source("fixtures.FindingsLate")  # the jar's honest entries are still shown
        assert late.path is not None and any("hello" in line.text for line in late.lines)
    finally:
        await debugger.close()


def test_a_sources_jar_entry_whose_size_fields_lie_is_not_extracted(tmp_path, java_source_root, monkeypatch):
    from tracepilot.core.source_jars import SourceJars

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for claimed in (1000, 0xFFFF_FFF0):  # smaller than the truth; larger than the truth
        lib = tmp_path / f"lib-{claimed}"
        lib.mkdir()
        zipfile.ZipFile(lib / "findings-1.0.jar", "w").close()  # the class jar: any jar will do
        _bomb_sources_jar(java_source_root, lib / "findings-1.0-sources.jar", claimed_size=claimed)
        jars = SourceJars([str(lib / "findings-1.0.jar")])
        assert jars.find("fixtures/Findings.java") is None, claimed
        assert jars.find("fixtures/FindingsLate.java") is not None
        assert _largest_cached_file(tmp_path / "cache") <= 4 * 1024 * 1024
