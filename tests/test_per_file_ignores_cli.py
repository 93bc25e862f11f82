"""``--per-file-ignores GLOB:RULES`` on the command line: the configuration's setting, added to."""

from __future__ import annotations

import json

import pytest

from ptxlint.cli import main
from ptxlint.config import ConfigError, parse_per_file_ignore_arg

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'
UNUSED = '__device__ void g(unsigned a) {\n  asm volatile("membar.gl;" :: "r"(a) : "memory");\n}\n'


def _found(tmp_path, capsys, *flags: str) -> set[tuple[str, str]]:
    main(["check", ".", "--no-cache", "--no-progress", "--format", "json", *flags])
    doc = json.loads(capsys.readouterr().out)
    return {(f["path"], f["rule"]) for f in doc["findings"]}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    # globs match the path as given and the path relative to the configuration's folder (the
    # working folder without one), as the configuration's own per-file-ignores do
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests").mkdir()
    for folder in (tmp_path, tmp_path / "tests"):
        (folder / "k.cu").write_text(BAD)
        (folder / "u.cu").write_text(UNUSED)
    return tmp_path


def test_cli_per_file_ignores_leave_rules_out_where_the_glob_matches(tree, capsys) -> None:
    everything = _found(tree, capsys)
    assert {("k.cu", "PTX001"), ("tests/k.cu", "PTX001"), ("tests/u.cu", "PTX009")} <= everything
    left = _found(tree, capsys, "--per-file-ignores", "tests/**:PTX001,unused-operand")
    assert left == everything - {("tests/k.cu", "PTX001"), ("tests/u.cu", "PTX009")}


def test_cli_per_file_ignores_add_to_the_configured_ones(tree, capsys) -> None:
    (tree / "ptxlint.toml").write_text('[per-file-ignores]\n"tests/**" = ["PTX009"]\n')
    configured = _found(tree, capsys)
    assert ("tests/u.cu", "PTX009") not in configured and ("tests/k.cu", "PTX001") in configured
    both = _found(tree, capsys, "--per-file-ignores", "k.cu:PTX001")
    assert both == configured - {("k.cu", "PTX001"), ("tests/k.cu", "PTX001")}


def test_negated_glob_and_repeated_flags(tree, capsys) -> None:
    everything = _found(tree, capsys)
    left = _found(tree, capsys, "--per-file-ignores", "!tests/**:PTX001",
                  "--per-file-ignores", "u.cu:PTX009")
    assert left == everything - {("k.cu", "PTX001"), ("u.cu", "PTX009"), ("tests/u.cu", "PTX009")}


@pytest.mark.parametrize("bad", ["tests/**", ":PTX001", "tests/**:", "tests/**: , "])
def test_malformed_value_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="expected GLOB:RULES"):
        parse_per_file_ignore_arg(bad)


def test_bad_value_exits_2_naming_the_flag(tree, capsys) -> None:
    assert main(["check", str(tree), "--per-file-ignores", "tests/**"]) == 2
    assert "--per-file-ignores 'tests/**': expected GLOB:RULES" in capsys.readouterr().err
    assert main(["check", str(tree), "--per-file-ignores", "tests/**:PTX00l"]) == 2
    assert "did you mean 'PTX001'?" in capsys.readouterr().err


def test_glob_holding_a_colon_splits_at_the_last_one() -> None:
    assert parse_per_file_ignore_arg("a:b/*.cu:PTX1, PTX2") == ("a:b/*.cu", ("PTX1", "PTX2"))
