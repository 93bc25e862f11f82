"""A fix whose result has a new error is refused, and every report says so: the fix engine
decides it once (``fix._one_pass``, ``fix.refusals``), marks it on the fix (``Fix.refused``),
and the counts, the text, JSON and SARIF reports and ``--fix``'s notes read that mark."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

from ptxlint.cli import main
from ptxlint.fix import fix_text, offers_fix, refusals
from ptxlint.model import Edit, Finding, Fix, Severity, Span
from tests.conftest import lint_text

# Three PTX008 findings (basic asm passes '%%' to ptxas verbatim), each with a safe fix. Two
# fixes are right; the third turns '%%r1' into '%r1', a register the compiler numbers, which
# PTX213 reports: --fix refuses it.
TEXT = (
    "__device__ void f() {\n"
    '    asm volatile("mov.u32 %%r1, %%clock;");\n'
    "}\n"
    "__device__ void g() {\n"
    '    asm volatile("{ .reg .u32 t; mov.u32 t, %%clock; }");\n'
    "}\n"
)
WRITES_R1 = TEXT.index("%%r1")
REASON = "its result has a new error: PTX213 (undeclared-register)"


def _ptx008(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "PTX008"]


def _relint(text: str) -> list[Finding]:
    return lint_text(text)


def test_the_engine_marks_the_fix_it_refuses_with_the_rule_it_would_add() -> None:
    findings = lint_text(TEXT)
    assert len(_ptx008(findings)) == 3 and all(offers_fix(f) for f in _ptx008(findings))
    outcome = fix_text(TEXT, _relint, findings=findings)
    assert outcome.applied == 2
    assert '"mov.u32 %%r1, %clock;"' in outcome.text and "t, %clock; }" in outcome.text
    (left,) = _ptx008(outcome.findings)
    assert left.fix is not None and left.fix.refused == REASON
    assert not offers_fix(left)
    assert [fix.refused for fix in outcome.refused] == [REASON]


def test_each_quick_fix_is_tried_alone() -> None:
    findings = _ptx008(lint_text(TEXT))
    fixes = [f.fix for f in findings if f.fix is not None]
    reasons = refusals(TEXT, fixes, lint_text(TEXT), _relint)
    assert [r for f, r in zip(findings, reasons, strict=True)
            if f.span.start == WRITES_R1] == [REASON]
    assert sum(r is None for r in reasons) == 2


def test_refusals_lints_once_when_no_fix_adds_an_error() -> None:
    text = "abc"
    fixes = [Fix("x", (Edit(Span(0, 1), "A"),)), Fix("y", (Edit(Span(2, 3), "C"),))]
    lints: list[str] = []

    def lint(current: str) -> list[Finding]:
        lints.append(current)
        return []

    assert refusals(text, fixes, [], lint) == [None, None]
    assert lints == ["AbC"]


def test_refusals_names_each_rule_whose_errors_grow() -> None:
    def finding(rule: str, severity: Severity = Severity.ERROR) -> Finding:
        return Finding(rule, rule.lower(), severity, "k.cu", Span(0, 1), "m")

    def lint(current: str) -> list[Finding]:
        # "B" draws two new errors and a warning; "C" nothing new
        return [finding("PTX2"), finding("PTX1"), finding("PTX3", Severity.WARNING)] * (
            "B" in current)

    fixes = [Fix("b", (Edit(Span(1, 2), "B"),)), Fix("c", (Edit(Span(2, 3), "C"),))]
    assert refusals("abc", fixes, [], lint) == [
        "its result has a new error: PTX1 (ptx1), PTX2 (ptx2)", None]


def test_plain_check_counts_the_fixes_offered_and_words_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(TEXT)
    assert main(["check", str(path), "--no-cache", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert ("3 fixable with `ptxlint check --fix` (a fix whose result has a new error is "
            "refused, with the reason).") in out


def test_fix_says_which_fix_it_refused_and_counts_it_no_more(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(TEXT)
    assert main(["check", str(path), "--no-cache", "--no-progress", "--fix"]) == 1
    out, err = capsys.readouterr()
    assert "Fixed 2 findings." in err
    assert (f"not fixed: PTX008 at line 2 (Replace '%%' with '%'): {REASON}") in err
    assert f"fix (not applied: {REASON}): Replace '%%' with '%'" in out
    assert "fixable with" not in out  # the one left is refused: nothing --fix would fix
    assert '"mov.u32 %%r1, %clock;"' in path.read_text()
    # a second run refuses it again, and changes nothing
    assert main(["check", str(path), "--no-cache", "--no-progress", "--fix"]) == 1
    _, err = capsys.readouterr()
    assert "Fixed" not in err and "not fixed: PTX008 at line 2" in err


def test_diff_would_fix_what_fix_fixes_and_names_the_refusal(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(TEXT)
    assert main(["check", str(path), "--no-cache", "--no-progress", "--diff"]) == 1
    out, err = capsys.readouterr()
    assert "Would fix 2 findings." in err
    assert "not fixed: PTX008 at line 2 after the diff" in err
    assert out.count("+    asm volatile") == 2 and path.read_text() == TEXT


def test_standard_input_marks_the_refused_fix_too(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode())))
    main(["check", "-", "--stdin-filename", "k.cu", "--fix", "--no-progress",
          "--output-format", "json"])
    fixed_text, err = capsys.readouterr()  # the fixed text takes stdout, the report stderr
    assert '"mov.u32 %%r1, %clock;"' in fixed_text
    report = err[err.index("{\n") : err.rindex("}\n") + 2]
    (left,) = [f for f in json.loads(report)["findings"] if f["rule"] == "PTX008"]
    assert left["fix"]["refused"] == REASON
    assert "Fixed 2 findings." in err


def test_json_and_sarif_carry_the_refusal_only_where_a_fix_run_made_it(
    tmp_path: Path, capsys
) -> None:
    path = tmp_path / "k.cu"
    path.write_text(TEXT)
    main(["check", str(path), "--no-cache", "--no-progress", "--output-format", "json"])
    plain = json.loads(capsys.readouterr().out)
    assert all("refused" not in f["fix"] for f in plain["findings"] if f["fix"])
    main(["check", str(path), "--no-cache", "--no-progress", "--output-format", "json", "--fix"])
    fixed = json.loads(capsys.readouterr().out)
    (left,) = [f for f in fixed["findings"] if f["rule"] == "PTX008"]
    # applicability stays the rule's word; ``refused`` says --fix would not apply it
    assert left["fix"]["applicability"] == "safe" and left["fix"]["refused"] == REASON
    assert any(re.search(r"not fixed: PTX008 at line 2", n["message"])
               for n in fixed["notes"])
    main(["check", str(path), "--no-cache", "--no-progress", "--output-format", "sarif",
          "--fix"])
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    (result,) = [r for r in run["results"] if r["ruleId"] == "PTX008"]
    (fix,) = result["fixes"]
    assert fix["properties"] == {"applicability": "safe", "refused": REASON}


def test_concise_marks_only_what_fix_would_fix(tmp_path: Path, capsys) -> None:
    path = tmp_path / "k.cu"
    path.write_text(TEXT)
    main(["check", str(path), "--no-cache", "--no-progress", "--output-format", "concise",
          "--fix"])
    out = capsys.readouterr().out
    assert "PTX008 [error]" in out and "[*]" not in out
