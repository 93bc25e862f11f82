"""--format sarif: schema-valid SARIF 2.1.0 with the fields GitHub code scanning reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ptxlint import cli
from ptxlint.engine import instantiate, lint_source
from ptxlint.model import Edit, Finding, Fix, Severity, SourceFile, Span
from ptxlint.registry import load_rules
from ptxlint.report import fingerprints, sarif_format
from ptxlint.report.run_result import RunResult
from ptxlint.report.sarif_serialize import to_jsonable
from ptxlint.rule import RuleContext
from tests.conftest import ROOT

SCHEMA = os.path.join(ROOT, "tests", "data", "sarif-schema-2.1.0.json")
jsonschema = pytest.importorskip("jsonschema")


def run_cli(paths: list[str], *extra: str) -> tuple[RunResult, list]:
    """The RunResult and the rules that ran, built the way `ptxlint check` builds them."""
    args = cli.build_parser().parse_args(["check", *paths, *extra])
    config, selector, rule_classes, context = cli._configure(args)
    result = cli.run(args.paths, config, selector, rule_classes, context)
    ran = [r for r in rule_classes if selector.enabled(r.id, r.name)]
    return result, ran


@pytest.fixture(scope="module")
def fixtures_sarif() -> tuple[dict, RunResult]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result, ran = run_cli(["fixtures"])
        return json.loads(sarif_format.render(result, ran)), result
    finally:
        os.chdir(cwd)


def validate(document: dict) -> None:
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft4Validator(schema).validate(document)


def result_of(text: str, path: str = "k.cu", root: str = ".", only: str = "PTX001") -> RunResult:
    # One rule, so that rules added later cannot change how many results a kernel gives.
    source = SourceFile(path, text)
    rules = [r for r in load_rules().rules if r.id == only]
    linted = lint_source(source, instantiate(rules), RuleContext())
    return RunResult(findings=list(linted.findings), sources={path: source}, files=1,
                     statements=len(linted.statements), root=root)


def sarif_of(result: RunResult, **kwargs: object) -> dict:
    return json.loads(sarif_format.render(result, load_rules().rules, **kwargs))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the whole document


def test_fixtures_sarif_is_valid_against_the_official_schema(fixtures_sarif):
    document, result = fixtures_sarif
    validate(document)
    assert document["version"] == "2.1.0"
    assert len(document["runs"]) == 1
    run = document["runs"][0]
    assert len(run["results"]) == len(result.findings) > 10


def test_driver_lists_every_rule_that_ran_with_what_github_shows(fixtures_sarif):
    document, _ = fixtures_sarif
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ptxlint"
    assert driver["version"]
    ids = [rule["id"] for rule in driver["rules"]]
    # a preview rule runs only under --preview, and these fixtures are linted without it
    assert ids == sorted(r.id for r in load_rules().rules if not r.preview)
    for rule in driver["rules"]:
        assert rule["name"]
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert "## What it does" in rule["help"]["markdown"]
        assert rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        props = rule["properties"]
        assert props["tags"] and all(isinstance(t, str) for t in props["tags"])
        assert len(props["tags"]) <= 10 and len(set(props["tags"])) == len(props["tags"])
        assert props["precision"] in ("very-high", "high", "medium", "low")
        assert props["problem.severity"] in ("error", "warning", "recommendation")
        assert "security-severity" not in props  # correctness defects, not security alerts


def test_results_carry_level_rule_index_fingerprint_and_relative_location(fixtures_sarif):
    document, result = fixtures_sarif
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    for res in run["results"]:
        assert res["level"] in ("error", "warning", "note")
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["message"]["text"]
        assert res["partialFingerprints"][fingerprints.KEY]
        (loc,) = res["locations"]
        artifact = loc["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert artifact["uri"].startswith("fixtures/")
        assert artifact["uri"].endswith((".cu", ".cuh", ".py", ".jl"))
        region = loc["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"],
                                                            region["startColumn"])
        # 1-based columns, end exclusive: the snippet is exactly those characters of the line.
        if region["startLine"] == region["endLine"]:
            text = Path(ROOT, artifact["uri"]).read_text(encoding="utf-8").split("\n")
            line = text[region["startLine"] - 1]
            assert line[region["startColumn"] - 1 : region["endColumn"] - 1] == \
                region["snippet"]["text"]
    prints = [r["partialFingerprints"][fingerprints.KEY] for r in run["results"]]
    assert len(set(prints)) == len(prints)
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is True


def test_a_warning_under_an_error_rule_keeps_its_level(fixtures_sarif):
    # PTX008 defaults to error; '%clock' in extended asm is a warning. Dropping the level
    # (as jschema-to-python's to_json does for the default "warning") would make it an error.
    document, _ = fixtures_sarif
    run = document["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    warnings = [r for r in run["results"] if r["ruleId"] == "PTX008" and r["level"] == "warning"]
    assert warnings
    assert rules["PTX008"]["defaultConfiguration"]["level"] == "error"


def test_serializer_writes_levels_equal_to_the_attrs_default():
    import sarif_om as om

    out = to_jsonable(om.Result(message=om.Message(text="m"), level="warning"))
    assert out["level"] == "warning"
    assert "ruleIndex" not in out  # the -1 "not set" sentinel is dropped
    assert "rank" not in out


def test_fixes_become_artifact_changes_with_replacements(fixtures_sarif):
    document, _ = fixtures_sarif
    fixed = [r for r in document["runs"][0]["results"] if "fixes" in r]
    assert fixed
    for res in fixed:
        (change,) = res["fixes"][0]["artifactChanges"]
        assert change["artifactLocation"] == res["locations"][0]["physicalLocation"][
            "artifactLocation"]
        for replacement in change["replacements"]:
            assert replacement["deletedRegion"]["startLine"] >= 1
            assert "text" in replacement["insertedContent"]
        assert res["fixes"][0]["properties"]["applicability"] in ("safe", "unsafe")


def test_info_maps_to_note():
    text = "k"
    finding = Finding("PTX001", "operand-index-out-of-range", Severity.INFO, "k.cu",
                      Span(0, 1), "m")
    result = RunResult(findings=[finding], sources={"k.cu": SourceFile("k.cu", text)})
    document = sarif_of(result)
    validate(document)
    assert document["runs"][0]["results"][0]["level"] == "note"


# --------------------------------------------------------------------------- fingerprints

KERNEL = """\
__device__ unsigned f(unsigned a, unsigned b) {
    unsigned d;
    asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
"""


def _prints(document: dict) -> list[str]:
    return [r["partialFingerprints"][fingerprints.KEY] for r in document["runs"][0]["results"]]


def test_fingerprint_survives_lines_inserted_above_the_statement():
    before = sarif_of(result_of(KERNEL))
    moved_text = "// a new comment\n#include <cstdio>\n\n" + KERNEL.replace(
        "    unsigned d;", "    unsigned d;\n    unsigned unused = 0;\n")
    after = sarif_of(result_of(moved_text))
    assert len(_prints(before)) == 1
    start = lambda doc: doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"][  # noqa: E731
        "region"]["startLine"]
    assert start(after) == start(before) + 5
    assert _prints(after) == _prints(before)


def test_fingerprint_ignores_reindentation_and_line_breaks_in_the_statement():
    before = sarif_of(result_of(KERNEL))
    reflowed = KERNEL.replace('    asm("add', '        asm("add').replace(
        ' : "r"(a)', '\n            : "r"(a)')
    assert reflowed != KERNEL
    after = sarif_of(result_of(reflowed))
    assert _prints(after) == _prints(before)


def test_identical_statements_in_one_file_get_different_fingerprints():
    twice = KERNEL + KERNEL.replace("f(", "g(")
    prints = _prints(sarif_of(result_of(twice)))
    assert len(prints) == 2
    assert prints[0] != prints[1]
    # ... and the first keeps the fingerprint it had alone.
    assert prints[0] == _prints(sarif_of(result_of(KERNEL)))[0]


def test_fingerprint_depends_on_the_file_and_the_statement():
    base = _prints(sarif_of(result_of(KERNEL)))
    assert _prints(sarif_of(result_of(KERNEL, path="other.cu"))) != base
    changed = KERNEL.replace("%1, %3", "%2, %3")
    assert _prints(sarif_of(result_of(changed))) != base


# --------------------------------------------------------------------------- locations


def test_paths_outside_the_root_become_absolute_file_uris(tmp_path):
    inside = tmp_path / "src"
    inside.mkdir()
    outside = tmp_path / "elsewhere" / "k.cu"
    result = result_of(KERNEL, path=str(outside), root=str(inside))
    document = sarif_of(result)
    validate(document)
    artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]
    assert artifact["uri"] == outside.as_uri()
    assert "uriBaseId" not in artifact


def test_uris_are_percent_encoded(tmp_path):
    result = result_of(KERNEL, path=str(tmp_path / "my kernels" / "a#b.cu"), root=str(tmp_path))
    document = sarif_of(result)
    validate(document)
    artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"]
    assert artifact["uri"] == "my%20kernels/a%23b.cu"


# --------------------------------------------------------------------------- notifications


def _notifications(document: dict) -> list[dict]:
    return document["runs"][0]["invocations"][0].get("toolExecutionNotifications", [])


def test_unreadable_files_and_skipped_files_are_notifications():
    result = RunResult(errors=[("gone.cu", "no such file")], notes=[("big.cu", "too large")])
    document = sarif_of(result)
    validate(document)
    invocation = document["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    levels = {n["descriptor"]["id"]: n["level"] for n in _notifications(document)}
    assert levels == {"unreadable-file": "error", "skipped-file": "note"}
    assert document["runs"][0]["results"] == []


def test_internal_errors_are_notifications_not_results():
    result = result_of(KERNEL)
    statement = result.findings[0].statement
    crash = Finding("internal-error", "internal-error", Severity.ERROR, "k.cu",
                    statement.span, "rule PTX999 raised KeyError", statement=statement)
    result.findings.append(crash)
    document = sarif_of(result)
    validate(document)
    assert [r["ruleId"] for r in document["runs"][0]["results"]] == ["PTX001"]
    (note,) = _notifications(document)
    assert note["level"] == "error" and note["descriptor"]["id"] == "internal-error"
    assert note["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert document["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_beyond_the_result_limit_the_most_severe_are_kept_and_the_drop_is_noted():
    source = SourceFile("k.cu", "x" * 10)
    findings = [
        Finding("PTX001", "operand-index-out-of-range",
                Severity.INFO if i % 3 else Severity.ERROR, "k.cu", Span(i, i + 1), f"m{i}")
        for i in range(9)
    ]
    result = RunResult(findings=findings, sources={"k.cu": source})
    document = sarif_of(result, max_results=4)
    validate(document)
    results = document["runs"][0]["results"]
    assert [r["message"]["text"] for r in results] == ["m0", "m1", "m3", "m6"]
    (note,) = _notifications(document)
    assert note["descriptor"]["id"] == "results-truncated"
    assert note["message"]["text"].startswith("5 of 9 results were left out")
    assert document["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_a_fix_with_an_insertion_has_an_empty_deleted_region():
    source = SourceFile("k.cu", 'asm("mov.u32 %0, 1;" : "r"(d));\n')
    finding = Finding("PTX006", "bad-constraint-modifier", Severity.ERROR, "k.cu", Span(24, 27),
                      "m", fix=Fix("add '='", (Edit(Span(25, 25), "="),)))
    document = sarif_of(RunResult(findings=[finding], sources={"k.cu": source}))
    validate(document)
    (replacement,) = document["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0][
        "replacements"]
    assert replacement["deletedRegion"] == {"startLine": 1, "startColumn": 26, "endLine": 1,
                                            "endColumn": 26}
    assert replacement["insertedContent"] == {"text": "="}
