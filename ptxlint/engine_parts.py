"""One big C++ file linted in parts, each part by its own process, merged into exactly what a
whole-file lint says.

CUTLASS's two GMMA headers (2.8 and 2.9 MB, 736 asm statements each) took about 1.4 s of CPU
each, one worker apiece, and a run over CUDA and CUTLASS at ``-j 16`` could not end before
them. Of such a file's lint, the parse is a quarter (0.34 s); extracting the statements (0.62
s) and running the rules on them (0.33 s) go statement by statement. A part parses the file
without the parameter lists and bodies of the functions that hold only other parts'
statements (``frontends.cxx.part_tree``: why what it reads is what the whole file's tree
says) and extracts and checks only its share of the statements
(``frontends.extraction.Share``): three parts of a GMMA header take 0.37-0.42 s each on a
2-core machine, where parsing the whole file they took 0.48-0.60 s.

What a part does not see alone, and how the merge stays exact:

- the file's other statements (``RuleContext.file_statements``: PTX107's neighbours, PTX203's
  split scopes, the protocol rules' function flows): extracted in the part on the first ask
  (``FileStatements``), the part's own statements being the same objects in it; the default
  rules ask about no GMMA statement. A rule that asks, or value flow that meets a function
  the part's parse left out (``ParsedSource.missed``), has the part linted again with the
  whole file's tree;
- placing findings across a macro's body and its expansions, ``#if`` branch notes, the
  suppressions with PTX901 (a directive that silenced nothing), the configured severities,
  fixability and the order: ``engine.finish`` at the merge (``finish_parts``), over every
  part's outcomes in the file's statement order;
- whether a finding's statement is latent (its function never used: that reads the tree):
  marked in the part; ``finish``'s own pass at the merge, without the tree, gives those
  findings the same mark again (``latent_reason`` reads the statement, then the tree);
- the macro invocations, and the asm macros none of them expanded: the last part's alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from ptxlint import collector, file_memos
from ptxlint.analysis.cxx_facts import FileFacts
from ptxlint.engine import (
    NOTHING,
    FileResult,
    Outcome,
    RuleCrash,
    Selector,
    _internal_error,
    _mark_latent,
    active_rules,
    finish,
    helper_call_outcomes,
    left_out_outcomes,
    parse_template,
    record_extraction,
    run_rules,
    type_lookup,
    unified_source,
)
from ptxlint.frontends.cxx.extract import extract, shares
from ptxlint.frontends.cxx.part_tree import part_tree
from ptxlint.frontends.extraction import WHOLE, Share
from ptxlint.frontends.syntax_tree import ParsedSource, parse
from ptxlint.model import AsmStatement, Finding, SourceFile
from ptxlint.rule import Rule, RuleContext

__all__ = ["FileStatements", "Part", "finish_parts", "lint_part", "shares"]

# A statement and each active rule's outcome on it (``Part.rules`` names the rules, in order).
Row = tuple[AsmStatement, list[Outcome]]


@dataclass
class Part:
    """What linting one share of a file produced: what extraction said of the share's
    statements (``result``, without findings unless extraction failed), and the rows the
    merge needs: each statement some rule said something of, and each ``#if`` branch reading
    (``finish`` counts a statement's branches)."""

    result: FileResult
    rules: tuple[str, ...] = ()  # the active rules' ids, the order of each row's outcomes
    rows: list[Row] = field(default_factory=list)
    failed: bool = False  # extraction raised: ``result.findings`` says what
    # each active rule's outcome at the file's helper calls (``helper_call_outcomes``), by
    # rule id: the first part's, its findings without a statement
    loose: list[tuple[str, Outcome]] = field(default_factory=list)


class FileStatements(Sequence[AsmStatement]):
    """Every asm statement of a file linted in parts, for a rule that reads the others
    (``RuleContext.file_statements``): the part's own, and the rest extracted on the first ask,
    from the same tree, in the order a whole-file extraction gives them."""

    def __init__(
        self, source: SourceFile, share: Share, own: Sequence[AsmStatement], parsed: ParsedSource
    ) -> None:
        self._source = source
        self._share = share
        self._own = own
        self._parsed = parsed
        self._all: tuple[AsmStatement, ...] | None = None
        # asked of a tree that left other functions out (``part_tree``): the part is linted
        # again with the whole tree, which the rules that read the others read too
        self.asked_partial = False

    def _statements(self) -> tuple[AsmStatement, ...]:
        if self._all is None:
            share, source = self._share, self._source
            if self._parsed.unread:
                self.asked_partial = True
                self._parsed = parse(source.path, source.text)
            before: list[AsmStatement] = []
            after: list[AsmStatement] = []
            if share.start > 0:
                before = extract(source, parse_template, type_lookup, Share(0, share.start),
                                 self._parsed).statements
            if share.end is not None:
                after = extract(source, parse_template, type_lookup, Share(share.end),
                                self._parsed).statements
            self._all = (*before, *self._own, *after)
        return self._all

    @overload
    def __getitem__(self, index: int) -> AsmStatement: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[AsmStatement]: ...

    def __getitem__(self, index: int | slice) -> AsmStatement | Sequence[AsmStatement]:
        return self._statements()[index]

    def __len__(self) -> int:
        return len(self._statements())

    def __iter__(self) -> Iterator[AsmStatement]:
        return iter(self._statements())


@collector.paused()
def lint_part(
    source: SourceFile,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: Selector,
    share: Share,
    whole_tree: bool = False,
) -> Part:
    """Lint ``share`` of the C++ file ``source`` (see the module's docstring), with the cyclic
    garbage collector paused as ``lint_kept`` pauses it; never raises for bad input. The
    tree leaves out what the share does not read (``part_tree``) unless ``whole_tree``."""
    result = FileResult(source.path, source=source)
    read = unified_source(source)
    tree = None if whole_tree else _part_tree(read, share)
    try:
        extracted = extract(read, parse_template, type_lookup, share, tree)
    except Exception as exc:  # as lint_kept: the merge reports it for the file
        result.crashed(source, "extract", None, exc)
        return Part(result, failed=True)
    statements = extracted.statements
    record_extraction(result, extracted, statements)
    active = active_rules(rules, selector, source.path)
    parsed = extracted.parsed
    if parsed is None:  # no statement can be read: nothing for the rules
        return Part(result, tuple(r.id for r in active))
    others = FileStatements(read, share, statements, parsed)
    context = dataclasses.replace(
        context, file_statements=others, parsed=parsed, cxx=FileFacts(parsed)
    )
    raw = run_rules(active, statements, context)
    # the first part asks about the helper calls, whose carrier reads every function: on a
    # tree that left some out, the part is linted again with the whole one
    loose = helper_call_outcomes(active, read, context) if share.start == 0 else []
    if others.asked_partial or parsed.missed:
        # the memos that remember this file by its source object (value flow's) hold the
        # left-out tree's answers: forgotten before the lint again
        file_memos.release()
        return lint_part(source, rules, context, selector, share, whole_tree=True)
    rows: list[Row] = []
    left = left_out_outcomes(active, extracted.left_out, context)  # merged as statements' rows
    for statement, outcomes in [*zip(statements, raw, strict=True), *left]:
        if any(outcomes) or statement.context.branch:
            rows.append((statement, [
                _portable(outcome, source, rule, statement, parsed)
                for rule, outcome in zip(active, outcomes, strict=True)
            ]))
    return Part(result, tuple(r.id for r in active), rows,
                loose=[(rule.id, _statementless(outcome, read, rule)) for rule, outcome in loose])


def _statementless(outcome: Outcome, source: SourceFile, rule: Rule) -> Outcome:
    """A rule's outcome at the helper calls as it can travel to the merge, as ``finish``
    places it: its findings without a statement, an exception as the internal error."""
    if isinstance(outcome, Exception):
        return RuleCrash(_internal_error(source, rule.id, None, outcome))
    return [dataclasses.replace(f, statement=None) for f in outcome] or NOTHING


def _part_tree(source: SourceFile, share: Share) -> ParsedSource | None:
    """``part_tree``'s tree for the share, or None (extraction parses the whole file) where
    it fails: a fault in leaving work out must not change what the part says."""
    if share == WHOLE:
        return None
    try:
        return part_tree(source, share)
    except Exception:
        return None


def _portable(
    outcome: Outcome, source: SourceFile, rule: Rule, statement: AsmStatement,
    parsed: ParsedSource,
) -> Outcome:
    """``outcome`` as it can travel to the merge: findings marked latent where their statement
    is, an exception as the internal-error finding ``finish`` would make of it."""
    if isinstance(outcome, Exception):
        crash = [_internal_error(source, rule.id, statement, outcome)]
        _mark_latent(crash, parsed)
        return RuleCrash(crash[0])
    if not outcome:
        return NOTHING
    found = list(outcome)
    _mark_latent(found, parsed)
    return found


def finish_parts(
    source: SourceFile, parts: Sequence[Part], rules: Sequence[Rule], selector: Selector
) -> list[Finding]:
    """The file's findings from its parts, in order: what ``finish`` makes of a whole-file
    lint's outcomes. A part whose extraction failed stands for the file (a whole-file
    extraction fails on the same statement)."""
    failed = next((p for p in parts if p.failed), None)
    if failed is not None:
        return list(failed.result.findings)
    order = parts[0].rules
    if any(p.rules != order for p in parts):
        raise ValueError("the parts of a file were linted with different rules")
    by_id = {r.id: r for r in rules}
    active = [by_id[rule_id] for rule_id in order]
    merged = FileResult(source.path, source=source)
    raw: list[list[Outcome]] = []
    for part in parts:
        for statement, outcomes in part.rows:
            merged.statements.append(statement)
            raw.append(outcomes)
    loose = [(by_id[rule_id], outcome) for part in parts for rule_id, outcome in part.loose]
    finish(merged, source, raw, active, selector, None, loose)
    return merged.findings
