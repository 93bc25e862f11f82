"""--compile-commands end to end: Tier 2 finds what Tier 1 cannot see."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ptxlint.cli import main
from tests.conftest import FIXTURES

pytest.importorskip("clang.cindex", reason="the libclang wheel (ptxlint[clang]) is not installed")


def test_compile_commands_turn_on_tier2(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    shutil.copytree(os.path.join(FIXTURES, "tier2"), project)
    monkeypatch.chdir(project)
    assert main(["check", "kernel.cu", "--select", "PTX004", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [f["line"] for f in doc["findings"]] == [6]  # found through compile_commands.json
    assert main(["check", "kernel.cu", "--select", "PTX004", "--no-compile-commands"]) == 0


def test_missing_database_is_a_usage_error(tmp_path, capsys) -> None:
    code = main(["check", str(tmp_path), "--compile-commands", str(tmp_path / "nope")])
    assert code == 2
    assert "no compile database" in capsys.readouterr().err
