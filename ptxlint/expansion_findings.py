"""Findings of statements that come from a macro expansion: where they are reported, and once.

A finding inside an expansion of ``LOAD(u32, global)`` is reported at the invocation, with
the expansion named; its exact characters in the macro's body (when the body is in this file)
are kept as ``spelled_at``. A defect the macro's body shows on its own is already reported
there, and one that every expansion repeats identically is reported at the first invocation
only: what remains are the findings the arguments make.
"""

from __future__ import annotations

import dataclasses

from ptxlint.model import Expansion, Finding, Fix, Span


class Placer:
    """Places the findings of one file, statement by statement (statements written in the
    file come before the expansions, so a body's own findings are known first)."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str, object]] = set()

    def place(self, finding: Finding) -> Finding | None:
        expansion = _expansion(finding)
        if expansion is None:
            self.seen.add((finding.rule, finding.message, finding.span))
            return finding
        inside = _within(finding.span, expansion.span)
        # In the arguments: this invocation's own. Elsewhere (the body, a header): the same
        # message from another invocation of the macro is the same defect.
        key_span: object = finding.span if inside else expansion.defined_at
        key = (finding.rule, finding.message, key_span)
        if key in self.seen or (finding.rule, finding.message, finding.span) in self.seen:
            return None  # the body of the #define, linted where it is written, has it
        self.seen.add(key)
        return dataclasses.replace(
            finding,
            span=finding.span if inside else expansion.span,
            fix=_usable_fix(finding.fix, expansion),
            expansion=expansion,
            spelled_at=finding.span if _in_body(finding.span, expansion) else None,
        )


def _expansion(finding: Finding) -> Expansion | None:
    statement = finding.statement
    return statement.context.expansion if statement is not None else None


def _within(span: Span, outer: Span) -> bool:
    return outer.start <= span.start and span.end <= outer.end and span != outer


def _in_body(span: Span, expansion: Expansion) -> bool:
    body = expansion.body
    return body is not None and body.start <= span.start and span.end <= body.end


def _usable_fix(fix: Fix | None, expansion: Expansion) -> Fix | None:
    """A fix stays only when every edit lands inside the invocation's arguments: an edit of
    the macro's body would change every other invocation too (the body's own defects get
    their fixes where the body is linted)."""
    if fix is None:
        return None
    inner = Span(expansion.span.start + len(expansion.macro) + 1, expansion.span.end - 1)
    for edit in fix.edits:
        if not (inner.start <= edit.span.start and edit.span.end <= inner.end):
            return None
    return fix
