"""``--output-format junit``: a JUnit XML test report (Jenkins, GitLab, Azure DevOps, CircleCI).

One ``<testsuite>`` per file with findings, one failing ``<testcase>`` per finding (classname: the
path, name: ``RULE name at line:col``). Valid against Jenkins' JUnit schema (as pytest's xunit2
output is): no ``file``/``line`` attributes on test cases, which that schema rejects; the
location is in the name and the failure text. A run without findings writes one passing test
case, so a report always exists and a dashboard shows the lint as green rather than missing.
Unreadable files are ``<error>``s.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from ptxlint.model import Finding
from ptxlint.report.names import printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult


def _case(finding: Finding, result: RunResult) -> ET.Element:
    r = to_range(result.sources.get(finding.path), finding.span)
    case = ET.Element(
        "testcase",
        name=f"{finding.rule} {finding.name} at {r.line}:{r.column}",
        classname=printable_name(finding.path),
        time="0",
    )
    failure = ET.SubElement(
        case,
        "failure",
        message=f"{finding.rule} [{finding.severity.value}] {finding.message}",
        type=finding.rule,
    )
    failure.text = f"{printable_name(finding.path)}:{r.line}:{r.column}: {finding.message}"
    return case


def render(result: RunResult) -> str:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        by_path[finding.path].append(finding)
    root = ET.Element(
        "testsuites",
        name="ptxlint",
        tests=str(max(1, len(result.findings)) + len(result.errors)),
        failures=str(len(result.findings)),
        errors=str(len(result.errors)),
        time=f"{result.seconds:.3f}",
    )
    for path, findings in by_path.items():
        suite = ET.SubElement(
            root, "testsuite", name=printable_name(path), tests=str(len(findings)),
            failures=str(len(findings)), errors="0", skipped="0", time="0",
        )
        suite.extend(_case(f, result) for f in findings)
    if result.errors:
        suite = ET.SubElement(
            root, "testsuite", name="ptxlint: unreadable inputs", tests=str(len(result.errors)),
            failures="0", errors=str(len(result.errors)), skipped="0", time="0",
        )
        for path, reason in result.errors:
            case = ET.SubElement(suite, "testcase", name=printable_name(path), classname="ptxlint",
                                 time="0")
            error = ET.SubElement(case, "error", message=reason, type="unreadable-file")
            error.text = f"{printable_name(path)}: {reason}"
    if not result.findings:
        suite = ET.SubElement(
            root, "testsuite", name="ptxlint", tests="1", failures="0", errors="0",
            skipped="0", time=f"{result.seconds:.3f}",
        )
        ET.SubElement(suite, "testcase", name="no findings", classname="ptxlint",
                      time=f"{result.seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
