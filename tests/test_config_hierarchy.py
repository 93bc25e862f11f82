"""Configuration per file (nearest file wins, extend), the flags that show and override it,
force-exclude, and standard input."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.cli import main
from tests.conftest import FIXTURES, ROOT

EXAMPLE = Path(FIXTURES) / "example" / "tile_copy.cu"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """root/ptxlint.toml ignores PTX001; root/a/.ptxlint.toml extends it, ignores PTX101 and
    excludes skip*.cu; root/a/b/pyproject.toml has no [tool.ptxlint] (passed over);
    root/c/pyproject.toml selects PTX0 only."""
    for rel in ("top.cu", "a/b/k.cu", "a/b/skip1.cu", "c/k.cu"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLE, tmp_path / rel)
    (tmp_path / "ptxlint.toml").write_text('ignore = ["PTX001"]\nper-file-ignores = { "top.cu" = ["PTX008"] }\n')
    (tmp_path / "a" / ".ptxlint.toml").write_text(
        'extend = "../ptxlint.toml"\nextend-select = []\nignore = ["PTX101"]\nexclude = ["skip*.cu"]\n'
    )
    (tmp_path / "a" / "b" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "c" / "pyproject.toml").write_text('[tool.ptxlint]\nselect = ["PTX0"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _found(capsys, *args: str) -> set[tuple[str, str]]:
    main(["check", "--no-progress", "--format", "json", *args])
    doc = json.loads(capsys.readouterr().out)
    return {(f["path"], f["rule"]) for f in doc["findings"]}


def _all_rules(capsys) -> set[str]:
    found = {r for _, r in _found(capsys, "--isolated", "top.cu")}
    assert {"PTX001", "PTX004", "PTX008", "PTX101", "PTX301"} <= found
    return found


def test_nearest_configuration_applies_per_file(tree, capsys) -> None:
    every = _all_rules(capsys)
    found = _found(capsys, ".")
    rules = {path: {r for p, r in found if p == path} for path, _ in found}
    assert rules["top.cu"] == every - {"PTX001", "PTX008"}  # ignore, per-file-ignores
    assert rules["a/b/k.cu"] == every - {"PTX101"}  # its own ignore replaces the extended one
    assert rules["c/k.cu"] == {r for r in every if r.startswith("PTX0")}  # select = PTX0
    assert "a/b/skip1.cu" not in rules  # a/.ptxlint.toml excludes it
    # the same from inside a subfolder, and naming one file
    os.chdir(tree / "a")
    assert {r for _, r in _found(capsys, "b/k.cu")} == rules["a/b/k.cu"]


def test_extend_inherits_unset_keys(tree, capsys) -> None:
    every = _all_rules(capsys)
    (tree / "a" / ".ptxlint.toml").write_text('extend = "../ptxlint.toml"\n')
    assert {r for _, r in _found(capsys, "a/b/k.cu")} == every - {"PTX001"}


def test_extend_cycle_is_an_error(tree, capsys) -> None:
    (tree / "ptxlint.toml").write_text('extend = "a/.ptxlint.toml"\n')
    assert main(["check", "a/b/k.cu"]) == 2
    assert "cycle" in capsys.readouterr().err


def test_isolated_and_config_overrides(tree, capsys) -> None:
    every = _all_rules(capsys)
    assert _found(capsys, "--config", 'select=["PTX001"]', ".") == {
        ("a/b/k.cu", "PTX001"), ("c/k.cu", "PTX001")}  # top.cu ignores PTX001
    assert {r for _, r in _found(capsys, "--config", "ptxlint.toml", "c/k.cu")} == every - {
        "PTX001"}
    assert main(["check", "--config", "fail-on=error", "--config", "arch=sm_90a", "c/k.cu",
                 "--no-progress", "-q"]) == 1
    capsys.readouterr()
    assert main(["check", "--config", "bogus=1", "top.cu"]) == 2
    assert "unknown key 'bogus'" in capsys.readouterr().err


def test_show_settings_and_files(tree, capsys) -> None:
    assert main(["check", "--show-settings", "a/b/k.cu"]) == 0
    out = capsys.readouterr().out
    assert str(tree / "a" / ".ptxlint.toml") in out and "extends" in out
    assert 'ignore = ["PTX101"]' in out and "PTX101 missing-volatile" not in out
    assert main(["check", "--show-files", "."]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == ["a/b/k.cu", "c/k.cu", "top.cu"]
    assert listed[1].endswith(f"({tree / 'c' / 'pyproject.toml'})")


def test_force_exclude_for_named_files(tree, capsys) -> None:
    assert _found(capsys, "a/b/skip1.cu")  # named: linted
    assert _found(capsys, "a/b/skip1.cu", "--force-exclude") == set()
    (tree / "a" / ".ptxlint.toml").write_text('exclude = ["skip*.cu"]\nforce-exclude = true\n')
    assert _found(capsys, "a/b/skip1.cu") == set()


def test_stdin(tree, capsys, monkeypatch) -> None:
    text = EXAMPLE.read_text()

    def stdin(data: str) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))

    every = _all_rules(capsys)
    stdin(text)
    found = _found(capsys, "-", "--stdin-filename", "a/b/k.cu")
    assert found == {("a/b/k.cu", r) for r in every - {"PTX101"}}
    stdin(text)
    assert main(["check", "-", "--stdin-filename", "c/k.cu", "--fix", "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "%%clock" in captured.out and "__cvta_generic_to_shared" in captured.out
    assert captured.out.count("\n") == text.count("\n")
    assert "c/k.cu:19:24: PTX001" in captured.err  # the report went to stderr
    assert EXAMPLE.read_text() == text and not (tree / "stdin.cu").exists()
    stdin(text)
    assert main(["check", "-", "--stdin-filename", "a/b/skip1.cu", "--fix",
                 "--force-exclude"]) == 0
    assert capsys.readouterr().out == text  # excluded: passed through unchanged


def test_stdin_through_a_pipe(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ptxlint", "check", "-", "--stdin-filename", "k.cu",
         "--output-format", "concise", "--isolated"],
        input=EXAMPLE.read_bytes(), capture_output=True, cwd=tmp_path, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1
    assert done.stdout.decode().startswith("k.cu:10:19: PTX004")


def test_load_config_follows_extend_for_the_editor(tree) -> None:
    # the language server reads configuration per folder through load_config
    from ptxlint.config import load_config

    config = load_config(str(tree / "a" / ".ptxlint.toml"))
    assert config.ignore == ("PTX101",) and config.per_file_ignores == (("top.cu", ("PTX008",)),)
    assert config.exclude == ("skip*.cu",)
