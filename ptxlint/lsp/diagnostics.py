"""Findings as LSP diagnostics."""

from __future__ import annotations

from lsprotocol import types as lsp

from ptxlint.engine import INTERNAL_ERROR
from ptxlint.lsp.conversions import LineIndex
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.model import Finding, Severity, Span

SOURCE = "ptxlint"

SEVERITIES = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}


def to_range(index: LineIndex, span: Span, encoding: str) -> lsp.Range:
    (sl, sc), (el, ec) = index.range(span.start, span.end, encoding)
    return lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec))


def to_diagnostic(
    finding: Finding, index: LineIndex, encoding: str, docs: RuleDocs
) -> lsp.Diagnostic:
    href = docs.href(finding.rule) if finding.rule != INTERNAL_ERROR else None
    fix = finding.fix
    return lsp.Diagnostic(
        range=to_range(index, finding.span, encoding),
        message=finding.message,
        severity=SEVERITIES.get(finding.severity, lsp.DiagnosticSeverity.Warning),
        code=finding.rule,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=SOURCE,
        # For code actions: they match a diagnostic back to its finding by rule and range.
        data={
            "name": finding.name,
            "fix": None if fix is None else ("safe" if fix.safe else "unsafe"),
        },
    )


def same_place(
    diagnostic: lsp.Diagnostic, finding: Finding, index: LineIndex, encoding: str
) -> bool:
    """Whether ``diagnostic`` (as a client sends it back) is the one made from ``finding``."""
    return diagnostic.code == finding.rule and diagnostic.range == to_range(
        index, finding.span, encoding
    )
