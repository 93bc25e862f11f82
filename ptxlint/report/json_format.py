"""``--format json``: the contract described in RULES.md (fields may be added, never renamed)."""

from __future__ import annotations

import json
from typing import Any

from ptxlint import __version__
from ptxlint.model import Finding, Fix
from ptxlint.report.positions import span_position, to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.verdict_note import verification_summary


def finding_dict(finding: Finding, result: RunResult) -> dict[str, Any]:
    source = result.sources.get(finding.path)
    line, column, end_line, end_column = span_position(source, finding.span)
    out: dict[str, Any] = {
        "rule": finding.rule,
        "name": finding.name,
        "severity": finding.severity.value,
        "path": finding.path,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
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
        line, column, end_line, end_column = span_position(source, edit.span)
        edits.append(
            {
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "content": edit.new_text,
            }
        )
    out: dict[str, Any] = {
        "description": fix.description,
        "applicability": "safe" if fix.safe else "unsafe",
        "edits": edits,
    }
    if fix.refused is not None:  # only where --fix or --diff refused it: absent otherwise
        out["refused"] = fix.refused
    return out


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
    """``json.dumps(document, indent=2, ensure_ascii=False)``, the same text, written by
    ``_Writer``: with an indent, json encodes in Python, every piece passed up through one
    generator per level of nesting, and ``dumps`` holds every piece (a few per value) in one
    list before joining. Joined as it goes here: for flashinfer's 31,000 findings that list
    was 250 MB next to a 25 MB report. A document holding anything else than what a report
    is made of (a key that is no string, a value of another type) is encoded by json itself,
    which writes it or raises as ``json.dumps`` does."""
    writer = _Writer()
    try:
        writer.value(document, "\n")
    except _NotPlain:
        return _json_dumps(document)
    return writer.text()


def _json_dumps(document: object) -> str:
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False)
    joined: list[str] = []
    pieces: list[str] = []
    for piece in encoder.iterencode(document):
        pieces.append(piece)
        if len(pieces) >= _JOIN_EVERY:
            joined.append("".join(pieces))
            pieces.clear()
    joined.append("".join(pieces))
    return "".join(joined)


_JOIN_EVERY = 65536  # pieces held before they are joined into one string


class _NotPlain(Exception):
    """A key or value ``_Writer`` does not write as json would: json writes the document."""


class _Writer:
    """The text of ``json.dumps(value, indent=2, ensure_ascii=False)`` for documents of dicts
    with string keys, lists, tuples, strings, integers, floats, booleans and None, written
    straight into a list of pieces (strings escaped by json's own encoder, in C where it has
    it). The CUDA 13 headers' report (774 findings, 697 KB): 13.1-14.2 ms of CPU through
    json's encoder, 6.4-7.4 ms so (best of 7)."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.joined: list[str] = []

    def text(self) -> str:
        self.joined.append("".join(self.pieces))
        return "".join(self.joined)

    def value(self, value: object, newline: str) -> None:
        """Write ``value``, whose line starts with ``newline`` (a line end and its indent)."""
        put = self.pieces.append
        scalar = _scalar(value)
        if scalar is not None:
            put(scalar)
        elif isinstance(value, (list, tuple)):
            # (a loop each for lists and dicts: one loop over (label, item) pairs for both
            # took the CUDA 13 headers' report from 6.7 to 8.5-9.3 ms)
            if not value:
                put("[]")
                return
            inner = newline + "  "
            between = "," + inner
            lead = "[" + inner
            for item in value:
                scalar = _scalar(item)
                if scalar is not None:
                    put(lead + scalar)
                else:
                    put(lead)
                    self.value(item, inner)
                lead = between
            put(newline + "]")
        elif isinstance(value, dict):
            if not value:
                put("{}")
                return
            inner = newline + "  "
            between = "," + inner
            lead = "{" + inner
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _NotPlain
                scalar = _scalar(item)
                if scalar is not None:
                    put(lead + _string(key) + ": " + scalar)
                else:
                    put(lead + _string(key) + ": ")
                    self.value(item, inner)
                lead = between
            put(newline + "}")
            if len(self.pieces) >= _JOIN_EVERY:
                self.joined.append("".join(self.pieces))
                self.pieces.clear()
        else:
            raise _NotPlain


def _scalar(value: object) -> str | None:
    """``value`` written as json writes it, where it is no list, tuple or dict (None there:
    for ``_Writer``), in json's order of tests (a bool is an int, a str subclass a str)."""
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (list, tuple, dict)):
        return None
    raise _NotPlain


_string = json.encoder.encode_basestring  # ensure_ascii=False's (json's C encoder where built)


def _float(value: float) -> str:
    """A float as json writes it (``allow_nan``: NaN and the infinities as JavaScript names)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)
