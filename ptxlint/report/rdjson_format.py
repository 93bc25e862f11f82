"""``--output-format rdjson``: reviewdog's Diagnostic Format (``reviewdog -f=rdjson``).

One ``DiagnosticResult`` with a ``source`` and a ``diagnostics`` list; each diagnostic carries
its message, a 1-based ``location.range`` (columns in UTF-8 bytes of the line, as reviewdog
counts them; end exclusive), its severity, a ``code`` with the rule's documentation URL and the
fix as ``suggestions`` (reviewdog turns those into suggested changes on GitHub and GitLab).
"""

from __future__ import annotations

import json
from typing import Any

from ptxlint.fix import offers_fix
from ptxlint.model import Severity, SourceFile, Span
from ptxlint.project import REPOSITORY_URL, rule_help_uri
from ptxlint.report.run_result import RunResult

SEVERITIES = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}


def _position(source: SourceFile, offset: int) -> dict[str, int]:
    where = source.line_col(offset)
    line_start = source.line_starts[where.line - 1]
    column = len(source.text[line_start:offset].encode("utf-8")) + 1
    return {"line": where.line, "column": column}


def _range(source: SourceFile | None, span: Span) -> dict[str, Any]:
    if source is None:
        return {"start": {"line": 1, "column": 1}}
    return {"start": _position(source, span.start), "end": _position(source, span.end)}


def render(result: RunResult) -> str:
    diagnostics: list[dict[str, Any]] = []
    for finding in result.findings:
        source = result.sources.get(finding.path)
        diagnostic: dict[str, Any] = {
            "message": finding.message,
            "location": {"path": finding.path, "range": _range(source, finding.span)},
            "severity": SEVERITIES[finding.severity],
            "code": {"value": finding.rule},
        }
        if finding.rule.startswith("PTX"):
            diagnostic["code"]["url"] = rule_help_uri(finding.rule)
        if finding.fix is not None and offers_fix(finding):
            diagnostic["suggestions"] = [
                {"range": _range(source, edit.span), "text": edit.new_text}
                for edit in finding.fix.edits
            ]
        diagnostics.append(diagnostic)
    document = {
        "source": {"name": "ptxlint", "url": REPOSITORY_URL},
        "severity": "WARNING",
        "diagnostics": diagnostics,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
