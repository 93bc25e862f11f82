"""``--output-format gitlab``: a GitLab Code Quality report (``artifacts:reports:codequality``).

A JSON array of Code Climate issues with the fields GitLab reads: ``description``,
``check_name``, ``fingerprint`` (unique per finding: GitLab drops duplicates and compares
fingerprints between the base and the merge request), ``severity`` and ``location`` with
``path`` and ``lines.begin``. The fingerprint is the same line-independent hash SARIF uses, so
a finding keeps its identity when lines are added above it. Paths are relative to the current
directory (the project root in a GitLab job), which is what GitLab maps to the repository.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ptxlint.model import Severity
from ptxlint.report import fingerprints
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult

SEVERITIES = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "info"}


def _relative(path: str) -> str:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, os.getcwd())
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return Path(absolute).as_posix()
    return Path(relative).as_posix()


def render(result: RunResult) -> str:
    def source_text(path: str) -> str | None:
        source = result.sources.get(path)
        return source.text if source is not None else None

    prints = fingerprints.fingerprints(result.findings, _relative, source_text)
    issues: list[dict[str, Any]] = []
    for finding, fingerprint in zip(result.findings, prints, strict=True):
        r = to_range(result.sources.get(finding.path), finding.span)
        issues.append(
            {
                "type": "issue",
                "check_name": f"{finding.rule} {finding.name}",
                "description": f"{finding.rule}: {finding.message}",
                "categories": ["Bug Risk"],
                "severity": SEVERITIES[finding.severity],
                "fingerprint": fingerprint,
                "location": {
                    "path": _relative(finding.path),
                    "lines": {"begin": r.line, "end": r.end_line},
                },
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
