"""A retired rule (ptxlint.retired) keeps its id and name reserved: configuration and suppression
comments that name it stay valid, selecting it warns, the docs say why it went, and no rule may
take its id or name again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.config import Config, RuleSelector
from ptxlint.registry import load_rules
from ptxlint.retired import RETIRED, find_retired, retired_codes
from ptxlint.rule import _RULE_ID, _RULE_NAME

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import gen_rule_docs  # noqa: E402

# One finding-free statement: PTX101-PTX109 and PTX2xx say nothing of it.
_CLEAN = (
    "__device__ unsigned f(unsigned a) {{\n"
    "  unsigned d;\n"
    '  asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a));{comment}\n'
    "  return d;\n"
    "}}\n"
)


def _check(tmp_path: Path, monkeypatch, capsys, *flags: str,
           comment: str = "") -> tuple[int, list[dict[str, object]], str]:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(_CLEAN.format(comment=comment))
    code = main(["check", "k.cu", "--no-cache", "--no-progress", "--format", "json", *flags])
    captured = capsys.readouterr()
    return code, json.loads(captured.out)["findings"], captured.err


def test_retired_entries_are_well_formed_and_no_live_rule_takes_them() -> None:
    live = {code for rule in load_rules().rules for code in (rule.id, rule.name)}
    assert RETIRED, "PTX509 is retired"
    for rule in RETIRED:
        assert _RULE_ID.match(rule.id) and _RULE_NAME.match(rule.name)
        assert "\n" not in rule.reason and rule.version
        assert rule.replaced_by is None or rule.replaced_by in live
        assert "## Why it was retired" in rule.docs
    assert not live & retired_codes()
    assert find_retired("ptx509") is find_retired("att-dialect-braces") is not None


@pytest.mark.parametrize("flag", ["--select", "--extend-select"])
@pytest.mark.parametrize("code", ["PTX509", "att-dialect-braces"])
def test_selecting_a_retired_rule_warns_and_is_no_error(tmp_path, monkeypatch, capsys,
                                                        flag: str, code: str) -> None:
    status, findings, err = _check(tmp_path, monkeypatch, capsys, flag, f"{code},PTX1")
    assert status == 0 and findings == []
    assert f"warning: selection {code!r} selects nothing: PTX509 (att-dialect-braces) was " \
           "retired in ptxlint 0.1.0" in err
    assert "error" not in err.replace("errors", "")


def test_selecting_it_in_a_configuration_file_warns_too(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "ptxlint.toml").write_text('select = ["PTX0", "PTX509"]\n')
    status, _, err = _check(tmp_path, monkeypatch, capsys)
    assert status == 0 and "selection 'PTX509' selects nothing" in err


def test_ignoring_it_anywhere_is_valid_and_silent(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "ptxlint.toml").write_text(
        'ignore = ["att-dialect-braces"]\nunfixable = ["PTX509"]\n'
        '[per-file-ignores]\n"k.cu" = ["PTX509"]\n[severity]\nPTX509 = "error"\n'
    )
    status, _, err = _check(tmp_path, monkeypatch, capsys, "--ignore", "PTX509",
                            "--per-file-ignores", "*.cu:att-dialect-braces")
    assert status == 0 and err == ""


def test_a_misspelt_selector_is_still_an_error(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(_CLEAN.format(comment=""))
    assert main(["check", "k.cu", "--no-progress", "--ignore", "PTX5O9"]) == 2
    assert "unknown rule selector(s): PTX5O9" in capsys.readouterr().err
    known = [(r.id, r.name) for r in load_rules().rules]
    selector = RuleSelector(Config(ignore=("PTX509", "ptx509", "PTX5O9")), known)
    assert selector.unknown_selectors() == ["ptx509", "PTX5O9"]  # selectors are case-sensitive
    assert selector.suggestion("ptx509") == "PTX509"


def test_a_suppression_naming_it_is_valid_and_never_unused(tmp_path, monkeypatch, capsys) -> None:
    retired = " // ptxlint: ignore[PTX509, att-dialect-braces]"
    _, findings, _ = _check(tmp_path, monkeypatch, capsys, "--select", "ALL", "--preview",
                            comment=retired)
    assert findings == []
    # the same comment with a code no rule ever had is reported: PTX901 did run
    _, findings, _ = _check(tmp_path, monkeypatch, capsys, "--select", "ALL", "--preview",
                            comment=" // ptxlint: ignore[PTX509, PTX5O9]")
    assert [(f["rule"], "PTX5O9" in str(f["message"])) for f in findings] == [("PTX901", True)]


@pytest.mark.parametrize("key", ["PTX509", "ptx509", "att-dialect-braces"])
def test_rule_command_explains_the_retirement(capsys, key: str) -> None:
    assert main(["rule", key]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# PTX509 att-dialect-braces (retired)\n")
    assert "retired in ptxlint 0.1.0" in text and "## Why it was retired" in text


def test_rule_command_json_keeps_the_catalogue_fields(capsys) -> None:
    assert main(["rule", "PTX509", "--output-format", "json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert main(["rule", "PTX501", "--output-format", "json"]) == 0
    (live,) = json.loads(capsys.readouterr().out)
    assert set(live) <= set(entry)  # the same keys, and one more
    assert entry["code"] == "PTX509" and entry["default_severity"] is None
    assert entry["retired"] == {"version": "0.1.0", "reason": RETIRED[0].reason,
                                "replaced_by": None}
    assert main(["rule", "--all", "--output-format", "json"]) == 0
    assert "PTX509" not in {r["code"] for r in json.loads(capsys.readouterr().out)}


def test_generated_docs_keep_its_page_and_list_it_as_retired() -> None:
    pages = gen_rule_docs.expected_pages()
    page = pages[ROOT / "docs" / "rules" / "PTX509.md"]
    assert page.startswith("# PTX509 att-dialect-braces (retired)\n")
    assert "`UseIntegratedAssembler = false`" in page  # the evidence, not only the verdict
    index = pages[ROOT / "docs" / "rules" / "README.md"]
    retired_part = index.split("## Retired rules", 1)[1]
    assert "| [PTX509](PTX509.md) | `att-dialect-braces` | 0.1.0 | none |" in retired_part
    assert "[PTX509]" not in index.split("## Retired rules", 1)[0]


def test_the_manifest_holds_no_retired_rule() -> None:
    from ptxlint_rules.manifest import RULES

    assert not {entry[2] for entry in RULES} & {r.id for r in RETIRED}


def test_a_plugin_taking_a_retired_id_or_name_is_refused(tmp_path, monkeypatch) -> None:
    (tmp_path / "reuse_pack.py").write_text(
        "from ptxlint.model import Severity\n"
        "from ptxlint.rule import Rule\n\n"
        "class Reused(Rule):\n"
        "    id, name, severity = 'PTX509', 'brace-dialect', Severity.WARNING\n"
        "    summary, docs = 's', '## What it does\\n## Why is this bad?\\n## Example\\n"
        "## Use instead\\n'\n\n"
        "class Renamed(Rule):\n"
        "    id, name, severity = 'ACME001', 'att-dialect-braces', Severity.WARNING\n"
        "    summary, docs = Reused.summary, Reused.docs\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("ptxlint.registry.entry_points",
                        lambda: [("reuse", "reuse_pack:Reused"), ("rename", "reuse_pack:Renamed")])
    loaded = load_rules()
    assert not {"PTX509", "ACME001"} & {r.id for r in loaded.rules}
    assert len([p for p in loaded.problems if "retired rule PTX509" in p]) == 2
