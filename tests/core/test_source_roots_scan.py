"""The projects one level down from the working directory join the source path, read without a glob over
every subdirectory: a stop's source lookup refreshes the roots every few seconds, and in a /tmp of 20,000
entries the glob made such a stop take ~0.5 s. Pure file system: no JVM is needed."""

from __future__ import annotations

import os
from pathlib import Path

from tracepilot.core import sources


def _project(parent: Path, name: str) -> Path:
    root = parent / name / "src" / "main" / "java"
    (root / "com" / "acme").mkdir(parents=True)
    (root / "com" / "acme" / "Shop.java").write_text("package com.acme;\nclass Shop {}\n")
    return root


def test_projects_one_level_down_are_on_the_source_path(tmp_path):
    root = _project(tmp_path, "shop")
    _project(tmp_path, ".hidden")  # (a hidden folder is no project of the user's: .git, .venv, .cache)
    (tmp_path / "notes.txt").write_text("not a folder")
    assert sources._project_roots(tmp_path) == [root]
    assert sources.SourcePath(cwd=str(tmp_path)).find("com.acme.Shop", "Shop.java") == root / "com/acme/Shop.java"


def test_a_folder_too_full_to_be_a_parent_of_projects_is_not_read_folder_by_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_PARENT_ENTRIES", 50)
    _project(tmp_path, "shop")
    for i in range(60):
        (tmp_path / f"junk{i:02d}").mkdir()
    opened: list[str] = []
    scandir = os.scandir

    def counting(path):  # (each directory read)
        opened.append(str(path))
        return scandir(path)

    monkeypatch.setattr(sources.os, "scandir", counting)
    assert sources._project_roots(tmp_path) == []  # the project one level down is not looked for...
    assert opened == [str(tmp_path)]  # ...and the folder itself is read once, its subfolders never
    (tmp_path / "src" / "main" / "java").mkdir(parents=True)  # the folder's own layout still counts
    assert sources._project_roots(tmp_path) == [tmp_path / "src" / "main" / "java"]
