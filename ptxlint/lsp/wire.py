"""Findings as the LSP's JSON, with no lsprotocol: what a diagnostic says is decided here once,
for the full server (``diagnostics``, which builds lsprotocol's objects from these parts) and
for the first diagnostics the server publishes before pygls is loaded (``early``)."""

from __future__ import annotations

from typing import Any

from ptxlint.engine import INTERNAL_ERROR
from ptxlint.lsp.conversions import LineIndex
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.model import Finding, Severity, Span

SOURCE = "ptxlint"

# The LSP's DiagnosticSeverity numbers.
ERROR, WARNING, INFORMATION = 1, 2, 3
SEVERITIES = {Severity.ERROR: ERROR, Severity.WARNING: WARNING, Severity.INFO: INFORMATION}


def severity_of(finding: Finding) -> int:
    return SEVERITIES.get(finding.severity, WARNING)


def href_of(finding: Finding, docs: RuleDocs) -> str | None:
    return docs.href(finding.rule) if finding.rule != INTERNAL_ERROR else None


def data_of(finding: Finding) -> dict[str, Any]:
    """What code actions read back from a diagnostic to match it to its finding."""
    fix = finding.fix
    safety = None if fix is None else ("safe" if fix.safe else "unsafe")
    return {"name": finding.name, "fix": safety}


def range_json(index: LineIndex, span: Span, encoding: str) -> dict[str, Any]:
    (sl, sc), (el, ec) = index.range(span.start, span.end, encoding)
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def diagnostic_json(
    finding: Finding, index: LineIndex, encoding: str, docs: RuleDocs
) -> dict[str, Any]:
    """The diagnostic as JSON, the fields the full server sends (``diagnostics.to_diagnostic``)."""
    diagnostic: dict[str, Any] = {
        "range": range_json(index, finding.span, encoding),
        "message": finding.message,
        "severity": severity_of(finding),
        "code": finding.rule,
        "source": SOURCE,
        "data": data_of(finding),
    }
    href = href_of(finding, docs)
    if href:
        diagnostic["codeDescription"] = {"href": href}
    return diagnostic
