"""A selector that matches no rule is an error that names the closest rule id or name
(difflib), on the command line and in configuration files alike."""

from __future__ import annotations

import pytest

from ptxlint.cli import main
from ptxlint.config import Config, RuleSelector
from ptxlint.registry import load_rules

CLEAN = '__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }\n'


@pytest.fixture
def selector() -> RuleSelector:
    return RuleSelector(Config(), [(r.id, r.name) for r in load_rules().rules])


@pytest.mark.parametrize(
    "typo,meant",
    [
        ("missing-volatle", "missing-volatile"),
        ("PTX0O1", "PTX001"),  # letter O for zero: the shared start decides the tie
        ("ptx1", "PTX1"),  # a prefix written in lower case
        ("Missing-Memory-Clober", "missing-memory-clobber"),
    ],
)
def test_typo_gets_the_closest_rule(selector: RuleSelector, typo: str, meant: str) -> None:
    selecting = RuleSelector(Config(select=(typo,)), selector.rules)
    assert selecting.unknown_selectors() == [typo]
    assert selector.suggestion(typo) == meant


def test_nothing_close_gets_no_guess(selector: RuleSelector) -> None:
    assert selector.suggestion("zzzz") is None


def test_cli_select_typo_is_an_error_with_a_suggestion(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(CLEAN)
    assert main(["check", str(tmp_path), "--select", "missing-volatle"]) == 2
    err = capsys.readouterr().err
    assert "unknown rule selector(s): missing-volatle (did you mean 'missing-volatile'?)" in err
    assert main(["check", str(tmp_path), "--ignore", "PTX0O1"]) == 2
    assert "PTX0O1 (did you mean 'PTX001'?)" in capsys.readouterr().err


def test_config_typo_is_an_error_with_a_suggestion(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(CLEAN)
    (tmp_path / "ptxlint.toml").write_text('ignore = ["unused-operant"]\n')
    assert main(["check", str(tmp_path)]) == 2
    assert "unused-operant (did you mean 'unused-operand'?)" in capsys.readouterr().err


def test_nested_config_typo_is_an_error_naming_file_and_key(tmp_path, capsys) -> None:
    # the configuration of a subfolder is loaded while the run walks: a typo there used to
    # select nothing in that folder, a silent pass (exit 0)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "k.cu").write_text('__device__ void f() { asm("membar.gl;"); }\n')
    (sub / "ptxlint.toml").write_text('select = ["PTX1O1"]\n')
    assert main(["check", str(tmp_path), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert f"{sub / 'ptxlint.toml'}: select: unknown rule selector(s): PTX1O1" in err
    assert "did you mean 'PTX101'?" in err


def test_config_error_names_each_key(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(CLEAN)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ptxlint]\nextend-select = ["PTX1"]\n'
        '[tool.ptxlint.per-file-ignores]\n"tests/**" = ["PTXZZZ"]\n'
        '[tool.ptxlint.severity]\nmissing-volatil = "error"\n'
    )
    assert main(["check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert 'per-file-ignores."tests/**": unknown rule selector(s): PTXZZZ' in err
    assert "severity: unknown rule selector(s): missing-volatil" in err
    assert "extend-select" not in err


def test_cli_error_names_the_option(tmp_path, capsys) -> None:
    (tmp_path / "k.cu").write_text(CLEAN)
    assert main(["check", str(tmp_path), "--select", "PTX1", "--unfixable", "PTX0O1",
                 "--config", 'extend-select=["nope"]']) == 2
    err = capsys.readouterr().err
    assert "--unfixable: unknown rule selector(s): PTX0O1 (did you mean 'PTX001'?)" in err
    assert "--config: unknown rule selector(s): nope" in err
    assert "--select" not in err
