"""--verify's verdicts reach every output format, and JSON and SARIF carry a summary object
(the counts, the probe failures). No toolchain needed: the verdicts are given."""

from __future__ import annotations

import json

from ptxlint.model import Finding, Severity, SourceFile, Span
from ptxlint.report import concise_format, github_format, json_format, sarif_format
from ptxlint.report.run_result import RunResult
from ptxlint.report.verdict_note import summary_lines, verification_summary
from ptxlint.verify.verdict import Verdict

TEXT = '__device__ void f() {\n  asm("shr.u23 %0, %0, 1;" : "+r"(x));\n}\n'


def verified() -> RunResult:
    source = SourceFile("k.cu", TEXT)
    start = TEXT.index("shr")
    bad = Finding("PTX204", "invalid-instruction", Severity.ERROR, "k.cu",
                  Span(start, start + 7), "unknown modifier '.u23'")
    doubt = Finding("PTX101", "missing-volatile", Severity.WARNING, "k.cu",
                    Span(start, start + 3), "not volatile")
    result = RunResult(findings=[bad, doubt], sources={"k.cu": source}, files=1, statements=1)
    result.verifications[id(bad)] = Verdict("confirmed", "ptxas 13.0", "sm_90",
                                            "ptxas: Unknown modifier '.u23'", "ptx-probe")
    result.verifications[id(doubt)] = Verdict("unverifiable", "nvcc 13.0", "sm_90",
                                              "no fix to compare", "differential")
    result.verify_seconds = 1.5
    result.verify_probe_failures.append(("k.cu", 2, "ptxas rejects this asm probed alone"))
    return result


def test_concise_lines_carry_the_verdict_and_the_summary():
    text = concise_format.render(verified())
    first, second = text.splitlines()[:2]
    assert first.endswith("(verify: confirmed by ptxas 13.0 for sm_90: ptxas: Unknown modifier "
                          "'.u23')")
    assert "(verify: unverifiable by nvcc 13.0 for sm_90: no fix to compare)" in second
    assert "Verification: 1 confirmed, 0 refuted, 1 unverifiable in 1.50s." in text
    assert "1 error only a probe showed" in text


def test_github_annotations_carry_the_verdict():
    text = github_format.render(verified())
    annotations = [line for line in text.splitlines() if line.startswith("::")]
    assert len(annotations) == 2
    assert all("(verify: " in line for line in annotations)
    assert text.rstrip().endswith("Verification: 1 confirmed, 0 refuted, 1 unverifiable in 1.50s.")


def test_json_has_a_summary_object_and_the_probe_failures():
    document = json.loads(json_format.render(verified()))
    assert document["verification"] == {"confirmed": 1, "refuted": 0, "unverifiable": 1,
                                        "probe_failures": 1, "seconds": 1.5}
    assert document["probe_failures"] == [
        {"path": "k.cu", "line": 2, "message": "ptxas rejects this asm probed alone"}]
    assert document["findings"][0]["verification"]["status"] == "confirmed"


def test_sarif_run_properties_hold_the_summary():
    log = json.loads(sarif_format.render(verified(), []))
    run = log["runs"][0]
    assert run["properties"]["verification"]["confirmed"] == 1
    assert run["properties"]["verification"]["probe_failures"] == 1
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any(n["descriptor"]["id"] == "verify-probe-failure" for n in notes)


def test_without_verify_nothing_is_added():
    result = verified()
    result.verifications.clear()
    result.verify_seconds = None
    result.verify_probe_failures.clear()
    assert verification_summary(result) is None
    assert summary_lines(result) == []
    assert "verification" not in json.loads(json_format.render(result))
    assert "verify:" not in concise_format.render(result)
    assert "verification" not in json.loads(sarif_format.render(result, []))["runs"][0][
        "properties"]
