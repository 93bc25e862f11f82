"""A run's files get their configuration through their folder's, asked once per folder: the
same settings and the same nested exclusion as asking the resolver about each file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxlint.config_discovery import ConfigResolver
from ptxlint.run.folder_settings import FolderSettings


def _tree(root: Path) -> list[str]:
    files = ["top.cu", "a/k.cu", "a/skip1.cu", "a/b/skip2.cu", "a/b/k.cu", "c/k.cu"]
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("__device__ void f() {}\n")
    (root / "ptxlint.toml").write_text('ignore = ["PTX001"]\n')
    (root / "a" / ".ptxlint.toml").write_text('exclude = ["skip*.cu"]\n')
    (root / "c" / "pyproject.toml").write_text('[tool.ptxlint]\nselect = ["PTX0"]\n')
    return [str(root / rel) for rel in files]


def test_each_file_gets_what_the_resolver_says_of_it(tmp_path: Path) -> None:
    files = _tree(tmp_path)
    named = {files[2]}  # named on the command line: a nested exclude does not remove it
    by_folder = FolderSettings(ConfigResolver(rules=()), named)
    each = ConfigResolver(rules=())
    for path in files:
        assert by_folder.of(path).config == each.for_path(path).config
        expected = path not in named and each.excluded(path)
        assert by_folder.excluded(path) == expected
    assert [by_folder.excluded(p) for p in files] == [False, False, False, True, False, False]


def test_a_file_is_not_asked_whether_it_is_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _tree(tmp_path)
    asked: list[str] = []
    isdir = os.path.isdir

    def counted(path: str) -> bool:
        asked.append(os.path.abspath(path))
        return isdir(path)

    by_folder = FolderSettings(ConfigResolver(rules=()), ())
    monkeypatch.setattr(os.path, "isdir", counted)
    for path in files + files:
        by_folder.excluded(path)
    assert not set(asked) & set(files)
    assert len(asked) == len({os.path.dirname(p) for p in files})  # once per folder
