"""Findings as LSP diagnostics (lsprotocol's objects; ``wire`` decides what they say)."""

from __future__ import annotations

from lsprotocol import types as lsp

from ptxlint.lsp.conversions import LineIndex
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.lsp.wire import SOURCE, data_of, href_of, severity_of
from ptxlint.model import Finding, Span


def to_range(index: LineIndex, span: Span, encoding: str) -> lsp.Range:
    (sl, sc), (el, ec) = index.range(span.start, span.end, encoding)
    return lsp.Range(lsp.Position(sl, sc), lsp.Position(el, ec))


def to_diagnostic(
    finding: Finding, index: LineIndex, encoding: str, docs: RuleDocs
) -> lsp.Diagnostic:
    href = href_of(finding, docs)
    return lsp.Diagnostic(
        range=to_range(index, finding.span, encoding),
        message=finding.message,
        severity=lsp.DiagnosticSeverity(severity_of(finding)),
        code=finding.rule,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=SOURCE,
        # For code actions: they match a diagnostic back to its finding by rule and range.
        data=data_of(finding),
    )


def same_place(
    diagnostic: lsp.Diagnostic, finding: Finding, index: LineIndex, encoding: str
) -> bool:
    """Whether ``diagnostic`` (as a client sends it back) is the one made from ``finding``."""
    return diagnostic.code == finding.rule and diagnostic.range == to_range(
        index, finding.span, encoding
    )
