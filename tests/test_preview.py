"""The preview tier: rules that declare ``preview = True`` run only under --preview (or
``preview = true``), whatever --select says, and every listing shows the tier."""

from __future__ import annotations

import json

import pytest

from ptxlint.cli import main
from ptxlint.config import Config, RuleSelector
from ptxlint.registry import find_rule, load_rules, preview_ids
from ptxlint.rule import validate_rule_class

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'
RULES = [("PTX001", "operand-index-out-of-range"), ("PTX101", "missing-volatile")]


@pytest.fixture
def ptx001_in_preview(monkeypatch):
    rule = find_rule(load_rules().rules, "PTX001")
    assert rule is not None
    monkeypatch.setattr(rule, "preview", True)
    return rule


def _rules_found(tmp_path, capsys, *flags: str) -> list[str]:
    (tmp_path / "k.cu").write_text(BAD)
    main(["check", str(tmp_path / "k.cu"), "--no-cache", "--no-progress", "--format", "json",
          *flags])
    return [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_preview_rule_is_off_unless_preview_is_enabled() -> None:
    off = RuleSelector(Config(), RULES, preview_rules={"PTX001"})
    assert not off.enabled("PTX001", "operand-index-out-of-range")
    assert off.enabled("PTX101", "missing-volatile")
    on = RuleSelector(Config(preview=True), RULES, preview_rules={"PTX001"})
    assert on.enabled("PTX001", "operand-index-out-of-range")


def test_selecting_a_preview_rule_without_preview_does_nothing_and_says_so() -> None:
    selector = RuleSelector(Config(select=("PTX001", "PTX1")), RULES, preview_rules={"PTX001"})
    assert not selector.enabled("PTX001", "operand-index-out-of-range")
    # an exact id or name is a selection that has no effect; a prefix is not named
    assert selector.preview_selections() == ["PTX001"]
    by_name = RuleSelector(Config(extend_select=("operand-index-out-of-range",)), RULES,
                           preview_rules={"PTX001"})
    assert by_name.preview_selections() == ["operand-index-out-of-range"]
    on = RuleSelector(Config(select=("PTX001",), preview=True), RULES, preview_rules={"PTX001"})
    assert on.preview_selections() == [] and on.enabled("PTX001", "operand-index-out-of-range")


def test_cli_runs_preview_rules_only_with_the_flag(tmp_path, capsys, ptx001_in_preview) -> None:
    assert "PTX001" not in _rules_found(tmp_path, capsys)
    assert "PTX001" in _rules_found(tmp_path, capsys, "--preview")


def test_cli_select_of_a_preview_rule_warns(tmp_path, capsys, ptx001_in_preview) -> None:
    (tmp_path / "k.cu").write_text(BAD)
    assert main(["check", str(tmp_path / "k.cu"), "--no-cache", "--no-progress",
                 "--select", "PTX001"]) == 0
    err = capsys.readouterr().err
    assert "selection 'PTX001' has no effect because preview is not enabled" in err
    assert "--preview" in err


def test_config_preview_true_enables_and_no_preview_wins(tmp_path, capsys,
                                                          ptx001_in_preview) -> None:
    (tmp_path / "ptxlint.toml").write_text("preview = true\n")
    assert "PTX001" in _rules_found(tmp_path, capsys)
    assert "PTX001" not in _rules_found(tmp_path, capsys, "--no-preview")


def test_rule_listings_show_the_tier(capsys, ptx001_in_preview) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (ptx001,) = [line for line in lines if line.startswith("PTX001")]
    (ptx002,) = [line for line in lines if line.startswith("PTX002")]
    assert "(preview)" in ptx001 and "(preview)" not in ptx002
    assert main(["rule", "PTX001"]) == 0
    assert "runs only with `--preview`" in capsys.readouterr().out
    assert main(["rule", "--all", "--output-format", "json"]) == 0
    tiers = {r["code"]: r["preview"] for r in json.loads(capsys.readouterr().out)}
    assert tiers["PTX001"] is True and tiers["PTX002"] is False


def test_preview_must_be_a_boolean(ptx001_in_preview, monkeypatch) -> None:
    assert preview_ids(load_rules().rules) >= {"PTX001"}
    assert validate_rule_class(ptx001_in_preview) == []
    monkeypatch.setattr(ptx001_in_preview, "preview", "yes")
    assert "PTX001: preview must be True or False" in validate_rule_class(ptx001_in_preview)
