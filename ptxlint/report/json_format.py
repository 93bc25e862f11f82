"""``--format json``: the contract described in RULES.md (fields may be added, never renamed)."""

from __future__ import annotations

import json
from typing import Any

from ptxlint import __version__
from ptxlint.model import Finding, Fix
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.verdict_note import verification_summary


def finding_dict(finding: Finding, result: RunResult) -> dict[str, Any]:
    source = result.sources.get(finding.path)
    r = to_range(source, finding.span)
    out: dict[str, Any] = {
        "rule": finding.rule,
        "name": finding.name,
        "severity": finding.severity.value,
        "path": finding.path,
        "line": r.line,
        "column": r.column,
        "end_line": r.end_line,
        "end_column": r.end_column,
        "message": finding.message,
        "fix": fix_dict(finding.fix, result, finding.path) if finding.fix else None,
    }
    verdict = result.verdict(finding)
    if verdict is not None:  # only with --verify: absent, not null, otherwise
        out["verification"] = verdict.as_dict()
    if finding.expansion is not None:  # only for findings in a macro expansion
        out["expansion"] = expansion_dict(finding, result)
    if finding.branch:  # only for statements with #if inside: the conditions of the branch
        out["branch"] = list(finding.branch)
    # no build of the file compiles the statement (ptxlint.analysis.latent): it breaks once
    # the code is used, not now
    out["latent"] = bool(finding.latent)
    if finding.latent:
        out["latent_reason"] = finding.latent
    return out


def expansion_dict(finding: Finding, result: RunResult) -> dict[str, Any]:
    """The macro invocation a finding is in: ``in expansion of LOAD(u32, global)``."""
    assert finding.expansion is not None
    out: dict[str, Any] = {
        "macro": finding.expansion.macro,
        "invocation": finding.expansion.invocation,
        "defined_at": finding.expansion.defined_at,
    }
    if finding.spelled_at is not None:
        r = to_range(result.sources.get(finding.path), finding.spelled_at)
        out["spelled_at"] = {
            "line": r.line,
            "column": r.column,
            "end_line": r.end_line,
            "end_column": r.end_column,
        }
    return out


def fix_dict(fix: Fix, result: RunResult, path: str) -> dict[str, Any]:
    source = result.sources.get(path)
    edits = []
    for edit in fix.edits:
        r = to_range(source, edit.span)
        edits.append(
            {
                "line": r.line,
                "column": r.column,
                "end_line": r.end_line,
                "end_column": r.end_column,
                "content": edit.new_text,
            }
        )
    return {
        "description": fix.description,
        "applicability": "safe" if fix.safe else "unsafe",
        "edits": edits,
    }


def render(result: RunResult) -> str:
    document = {
        "version": __version__,
        "findings": [finding_dict(f, result) for f in result.findings],
        "stats": {
            "files": result.files,
            "statements": result.statements,
            "seconds": round(result.seconds, 3),
            "operands": result.operands,
            "typed_operands": result.typed_operands,
            "typed_operands_tier2": result.typed_tier2,
            "skipped_statements": result.skipped_statements,
            "statements_from_macros": result.expansion_statements,
            "statements_from_if_branches": result.branch_variants,
            "opaque_macros": len(result.opaque_macros),
        },
        "errors": [{"path": p, "message": m} for p, m in result.errors],
        "notes": [{"path": p, "message": m, "skipped": True} for p, m in result.notes]
        + [{"path": p, "message": m, "skipped": False} for p, m in result.file_notes],
    }
    verification = verification_summary(result)
    if verification is not None:  # only with --verify: absent, not null, otherwise
        document["verification"] = verification
        document["probe_failures"] = [{"path": p, "line": n, "message": m}
                                      for p, n, m in result.verify_probe_failures]
    return dumps(document) + "\n"


def dumps(document: object) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)``, joined as it goes: with an
    indent, json encodes in Python and ``dumps`` holds every piece (a few per value) in one list
    before joining. For flashinfer's 31,000 findings that list was 250 MB next to a 25 MB report."""
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False)
    joined: list[str] = []
    pieces: list[str] = []
    for piece in encoder.iterencode(document):
        pieces.append(piece)
        if len(pieces) >= 65536:
            joined.append("".join(pieces))
            pieces.clear()
    joined.append("".join(pieces))
    return "".join(joined)
