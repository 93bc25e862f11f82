"""Findings of statements that come from a macro expansion or an #if branch of a statement:
where they are reported, and once.

A finding inside an expansion of ``LOAD(u32, global)`` is reported at the invocation, with
the expansion named; its exact characters in the macro's body (when the body is in this file)
are kept as ``spelled_at``, and so are the body's characters of a finding the body and an
argument spell together (``"mov.u32 %0, %" #reg ";"``: ``%laneid`` is the body's ``%`` and
the argument's ``laneid``). A defect the macro's body shows on its own is already reported
there, and one that every expansion repeats identically is reported at the first invocation
only: what remains are the findings the arguments make. A statement with ``#if`` inside is
read once per branch; a finding every branch shares is reported once, one that only some
branches have names the branch. So is a rule's finding that several branches make at
different places with the same fix (an output's missing ``&`` that each branch's own load
exposes, a ``"memory"`` clobber that each branch's own load asks for): the one edit mends every
branch, so it is one defect, reported where the first branch has it. Branches that word one
rule's finding on the same characters differently speak of one defect too: the most severe
wording is reported.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from ptxlint.model import AsmStatement, Expansion, Finding, Fix, Span


class Placer:
    """Places the findings of one file, statement by statement (statements written in the
    file come before the expansions, so a body's own findings are known first)."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str, object]] = set()
        # (rule, span) of the findings of statements written in the file, whatever they say
        self.written: set[tuple[str, object]] = set()
        # for statements with #if inside: which branches produced each finding
        self.branches: dict[tuple[str, str, object], set[tuple[str, ...]]] = {}
        # (rule, statement, fix) of a finding with a fix in a branch: the first one's key, and
        # the branches of that statement that made it or were found mended by its fix. Per
        # statement: the uses of one wrapper are statements whose readings make findings at
        # the same places (its table's entries), and each use's first is the one to keep
        self.mended: dict[tuple[str, int, Fix], tuple[str, str, object]] = {}
        self.mended_branches: dict[tuple[str, int, Fix], set[tuple[str, ...]]] = {}

    def place(self, finding: Finding) -> Finding | None:
        expansion = _expansion(finding)
        if expansion is None:
            key: tuple[str, str, object] = (finding.rule, finding.message, finding.span)
            branch = finding.statement.context.branch if finding.statement else ()
            if branch and finding.fix is not None and finding.statement is not None:
                mended = (finding.rule, finding.statement.span.start, finding.fix)
                first = self.mended.setdefault(mended, key)
                here = self.mended_branches.setdefault(mended, set())
                if first == key:
                    here.add(branch)
                elif branch not in here:
                    # another branch's finding, elsewhere, that the same fix mends: one defect
                    here.add(branch)
                    self.branches[first].add(branch)
                    return None
            if branch:
                self.branches.setdefault(key, set()).add(branch)
            if key in self.seen:
                return None  # another #if branch of the same statement said it already
            self.seen.add(key)
            self.written.add((finding.rule, finding.span))
            return dataclasses.replace(finding, branch=branch) if branch else finding
        inside = _within(finding.span, expansion.span)
        # In the arguments: this invocation's own. Elsewhere (the body, a header): the same
        # message from another invocation of the macro is the same defect.
        key_span: object = finding.span if inside else expansion.defined_at
        key = (finding.rule, finding.message, key_span)
        if key in self.seen or (finding.rule, finding.span) in self.written:
            # the body of the #define, linted where it is written, has it: a defect of the
            # body itself, however the message words the arguments ("operand 1 (16)")
            return None
        self.seen.add(key)
        return dataclasses.replace(
            finding,
            span=finding.span if inside else expansion.span,
            fix=_usable_fix(finding.fix, expansion),
            expansion=expansion,
            spelled_at=_spelled_in_body(finding, expansion),
        )


def common_to_all_branches(
    findings: list[Finding], placer: Placer, statements: Sequence[AsmStatement]
) -> list[Finding]:
    """A finding every branch of its statement has is not "in" one branch: its note goes.
    Where branches word one rule's finding on the same characters differently (an instruction
    outside the ``#if`` that one branch's guards admit for sm_70, another's for sm_60), the
    characters hold one defect: the most severe wording stays (the first of equals)."""
    variants = Counter(s.span.start for s in statements if s.context.branch)
    kept: dict[tuple[str, int, Span], Finding] = {}
    for f in findings:
        if f.branch and f.statement is not None:
            at = (f.rule, f.statement.span.start, f.span)
            first = kept.setdefault(at, f)
            if f.severity.rank > first.severity.rank:
                kept[at] = f
    out = []
    for f in findings:
        if f.branch and f.statement is not None:
            if kept[(f.rule, f.statement.span.start, f.span)] is not f:
                continue
            seen = placer.branches.get((f.rule, f.message, f.span), set())
            if len(seen) >= variants[f.statement.span.start]:
                f = dataclasses.replace(f, branch=())
        out.append(f)
    return out


def _expansion(finding: Finding) -> Expansion | None:
    statement = finding.statement
    return statement.context.expansion if statement is not None else None


def _within(span: Span, outer: Span) -> bool:
    return outer.start <= span.start and span.end <= outer.end and span != outer


def _spelled_in_body(finding: Finding, expansion: Expansion) -> Span | None:
    """The characters of the macro's body that spell ``finding``: its span where the body holds
    all of it; where the finding's template characters run from the body into an argument
    (or from an argument into the body), the body's ones among them, from the first to the
    last; None where the body spells none of it or is not in this file."""
    body, span = expansion.body, finding.span
    if body is None:
        return None
    if body.start <= span.start and span.end <= body.end:
        return span
    if not (body.start <= span.start < body.end or body.start < span.end <= body.end):
        return None
    if finding.statement is None:
        return None
    template = finding.statement.template
    starts, ends = template.char_starts, template.char_ends
    # the template characters the span was made of (Template.source_span): from the first
    # that starts where it starts to the last that ends where it ends
    first = next((i for i, at in enumerate(starts) if at == span.start), None)
    if first is None:
        return None
    last = next((i for i in range(len(ends) - 1, first - 1, -1) if ends[i] == span.end), None)
    if last is None:
        return None
    inside = [i for i in range(first, last + 1)
              if body.start <= starts[i] and ends[i] <= body.end]
    if not inside:
        return None
    return Span(min(starts[i] for i in inside), max(ends[i] for i in inside))


def _usable_fix(fix: Fix | None, expansion: Expansion) -> Fix | None:
    """A fix stays only when every edit lands inside the invocation's arguments: an edit of
    the macro's body would change every other invocation too (the body's own defects get
    their fixes where the body is linted)."""
    if fix is None:
        return None
    start, end = expansion.span.start + len(expansion.macro) + 1, expansion.span.end - 1
    if end < start:  # an invocation without its argument list (malformed source): no fix
        return None
    inner = Span(start, end)
    for edit in fix.edits:
        if not (inner.start <= edit.span.start and edit.span.end <= inner.end):
            return None
    return fix
