"""Lint sources: extract statements, run the enabled rules, apply suppressions and severities."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, overload

from ptxlint import collector, file_memos, rule_memo, suppress
from ptxlint.analysis.cxx_facts import FileFacts
from ptxlint.analysis.included_helpers import extraction_of
from ptxlint.analysis.latent import Latent, latent_reason
from ptxlint.analysis.operand_summary import SUMMARY_NEEDS, summary_of
from ptxlint.expansion_findings import Placer, common_to_all_branches
from ptxlint.fix import fix_applies
from ptxlint.frontends.cxx.extract import extract, has_asm
from ptxlint.frontends.cxx.part_tree import whole_file_tree
from ptxlint.frontends.cxx.types import TypeResolver, file_resolver, keep_resolver
from ptxlint.frontends.extraction import WHOLE, ExtractionResult
from ptxlint.frontends.julia import JULIA_EXTENSIONS
from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, Finding, Severity, SourceFile, unify_line_breaks
from ptxlint.ptx import parser as ptx_parser
from ptxlint.rule import (
    HELPER_CALLS,
    LEFT_OUT,
    NEEDS,
    PARSE_NEEDS,
    Rule,
    RuleContext,
    parse_features,
)

if TYPE_CHECKING:
    from ptxlint.tier2 import Tier2Session

INTERNAL_ERROR = "internal-error"

# What one rule said of one statement: its findings (never mutated), or what it raised.
Outcome = Sequence[Finding] | Exception
NOTHING: tuple[Finding, ...] = ()

# A template's parse depends on its text alone and is immutable: CUTLASS repeats templates
# across its statement families, the language server re-reads the same ones after each edit.
parse_template = functools.lru_cache(maxsize=8192)(ptx_parser.parse_template)


class Selector(Protocol):
    def enabled(self, rule_id: str, rule_name: str, path: str | None = None) -> bool: ...

    def severity_for(self, rule_id: str, rule_name: str, default: str) -> str: ...


class SelectAll:
    def enabled(self, rule_id: str, rule_name: str, path: str | None = None) -> bool:
        return True

    def severity_for(self, rule_id: str, rule_name: str, default: str) -> str:
        return default


@dataclass
class FileResult:
    """What linting one file produced: its findings and statements, and the counts and notes the run
    adds up."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    statements: list[AsmStatement] = field(default_factory=list)
    skipped_statements: list[tuple[int, str]] = field(default_factory=list)
    expanded_macros: set[str] = field(default_factory=set)  # "realpath:line" of #defines
    unexpanded_macros: list[tuple[int, str]] = field(default_factory=list)  # (offset, macro)
    skipped_invocations: list[tuple[int, str]] = field(default_factory=list)  # (offset, reason)
    branch_variants: int = 0  # extra readings of statements with #if inside
    source: SourceFile | None = None
    internal_errors: int = 0
    seconds: float = 0.0

    def crashed(
        self, source: SourceFile, stage: str, statement: AsmStatement | None, exc: BaseException
    ) -> None:
        """A stage (the front end, Tier 2, a rule on ``statement``) raised: the file reports
        it as an internal error, and the run goes on."""
        self.findings.append(_internal_error(source, stage, statement, exc))
        self.internal_errors += 1


def type_lookup(parsed: ParsedSource) -> TypeResolver:
    """The file's type resolver: called as ``resolve``, and typing a statement's operands in
    one call (``resolve_operands``) where extraction has the statement's node; the one the
    rules' C++ facts (``FileFacts``) read the function's scope tables from."""
    return file_resolver(parsed)


def extract_statements(
    source: SourceFile, left_out: bool = False, kept_headers: bool = False
) -> ExtractionResult:
    """The asm statements of ``source``; a CR-only file is parsed with "\n" line breaks (same
    offsets), so its statements, lines and fixes are those of the file as written.
    ``left_out``: a C++ file's tree may leave out the functions no statement needs, where
    that pays (``part_tree.whole_file_tree``; the result's ``parsed.unread`` says so).
    ``kept_headers``: the extraction the process made of the same file, read as a project
    header for another file's flows, is taken where it was read from the same text
    (``included_helpers.extraction_of``; a batch run only: the language server's documents
    are edited, and its trees with them)."""
    source = unified_source(source)
    if kept_headers and not source.path.endswith(PYTHON_EXTENSIONS + JULIA_EXTENSIONS):
        kept = extraction_of(source)
        if kept is not None and kept[0].parsed is not None:
            keep_resolver(kept[0].parsed, kept[1])  # FileFacts reads the one that typed them
            return kept[0]
    if source.path.endswith(JULIA_EXTENSIONS):
        from ptxlint.frontends.julia import extract_julia

        return extract_julia(source, parse_template)
    if source.path.endswith(PYTHON_EXTENSIONS):
        from ptxlint.frontends.python import extract_python

        return extract_python(source, parse_template, type_lookup)
    tree = _left_out_tree(source) if left_out else None
    if tree is not None and tree.unread:
        try:
            return extract(source, parse_template, type_lookup, WHOLE, tree)
        except Exception:
            tree = None  # the whole tree's extraction says what stands (or how it fails)
    return extract(source, parse_template, type_lookup, WHOLE, tree)


def _left_out_tree(source: SourceFile) -> ParsedSource | None:
    """``whole_file_tree``'s tree, or None (extraction parses the whole file, or none of it):
    for a file with an asm keyword (else extraction reads no tree, or one for the macros the
    file expands), and never where leaving work out fails: that must not change the lint."""
    if not has_asm(source.text):
        return None
    try:
        return whole_file_tree(source)
    except Exception:
        return None


def unified_source(source: SourceFile) -> SourceFile:
    """``source`` as the parsers read it: each lone "\r" made "\n" (``unify_line_breaks``)."""
    unified = unify_line_breaks(source.text)
    if unified is not source.text:
        source = dataclasses.replace(source, text=unified)
    return source


def lint_source(
    source: SourceFile,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: Selector | None = None,
    tier2: Tier2Session | None = None,
    kept_headers: bool = False,
) -> FileResult:
    """All findings for one file. Never raises for bad input: failures become findings.
    ``kept_headers``: as ``extract_statements``'s (a batch run's)."""
    return lint_kept(source, rules, context, selector, tier2, kept_headers=kept_headers).result


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Linted:
    """A file's result with what produced it, for a re-lint after an edit
    (ptxlint.lsp.incremental): each rule's own outcome per statement (see ``finish``),
    whether a rule spoke about a statement extraction left out (``left_out_outcomes``), and
    whether the rules were asked about the file's helper calls (``helper_call_outcomes``)."""

    __slots__ = ("result", "outcomes", "active", "parsed", "extracted", "left_out", "loose")

    def __init__(
        self, result: FileResult, outcomes: list[list[Outcome]] | None = None,
        active: list[Rule] | None = None, parsed: ParsedSource | None = None,
        extracted: bool = False, left_out: bool = False, loose: bool = False,
    ) -> None:
        self.result = result
        self.outcomes: list[list[Outcome]] = [] if outcomes is None else outcomes
        self.active: list[Rule] = [] if active is None else active
        self.parsed = parsed
        self.extracted = extracted  # statements were extracted (else ``result`` reports why not)
        self.left_out = left_out
        self.loose = loose


@collector.paused()
def lint_kept(
    source: SourceFile,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: Selector | None = None,
    tier2: Tier2Session | None = None,
    whole_tree: bool = False,
    kept_headers: bool = False,
) -> Linted:
    """``lint_source``, keeping the rules' outcomes per statement, with the cyclic garbage
    collector paused (``ptxlint.collector``). The tree the lint reads may leave out the
    functions no statement needs (``part_tree.whole_file_tree``) unless ``whole_tree``; the
    file is linted again with the whole tree where that was not enough: a rule read the
    file's statements (the rules that read them may read any function: the protocol rules'
    flows follow calls and callers), or value flow met what was left out
    (``ParsedSource.missed``). A caller that keeps the tree to edit it (the language
    server's re-lint) asks for the whole one."""
    started = time.perf_counter()
    linted = _lint_kept(source, rules, context, selector or SelectAll(), tier2, whole_tree,
                        kept_headers)
    linted.result.seconds = time.perf_counter() - started
    return linted


def _lint_kept(
    source: SourceFile,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: Selector,
    tier2: Tier2Session | None,
    whole_tree: bool,
    kept_headers: bool = False,
) -> Linted:
    given = context
    result = FileResult(source.path, source=source)
    try:
        extracted = extract_statements(source, not whole_tree, kept_headers and not whole_tree)
    except Exception as exc:  # malformed input must never stop the run
        result.crashed(source, "extract", None, exc)
        return Linted(result)
    statements = extracted.statements
    if tier2 is not None and tier2.enabled and statements:
        from ptxlint.tier2 import annotate  # only runs with a compile database pay for it

        try:
            types = tier2.types_for(source.path)
            statements = annotate(statements, types)
            context = dataclasses.replace(context, tier2=types)
        except Exception as exc:  # Tier 2 is an improvement, never a reason to fail
            result.crashed(source, "tier2", None, exc)
    record_extraction(result, extracted, statements)
    active = active_rules(rules, selector, source.path)
    parsed = extracted.parsed
    # on a tree that left functions out: whether a rule reads the file's statements
    asked = AskedStatements(statements) if parsed is not None and parsed.unread else None
    facts = FileFacts(parsed) if parsed is not None else None
    context = dataclasses.replace(
        context,
        file_statements=tuple(statements) if asked is None else asked,
        parsed=parsed,
        cxx=facts,
    )
    raw = run_rules(active, statements, context)
    # the helper calls' carrier reads the file's statements too: a tree that left out the
    # functions without asm would hide their calls
    loose = helper_call_outcomes(active, source, context)
    if asked is not None and parsed is not None and (asked.asked or parsed.missed):
        # the memos that remember this file by its source object (value flow's) hold the
        # left-out tree's answers: forgotten before the lint again
        file_memos.release()
        return _lint_kept(source, rules, given, selector, tier2, True)
    left = left_out_outcomes(active, extracted.left_out, context)
    finish(result, source, raw, active, selector, parsed, loose, left)
    return Linted(result, raw, active, parsed, extracted=True, left_out=bool(left),
                  loose=bool(loose))


def left_out_outcomes(
    active: Sequence[Rule], statements: Sequence[AsmStatement], context: RuleContext
) -> list[tuple[AsmStatement, list[Outcome]]]:
    """What each active rule that needs ``left-out`` says about each statement extraction left
    out for what its reading found (``ExtractionResult.left_out``), as ``run_rules``' rows
    (the others say nothing there), for the statements one said something about."""
    asked = [k for k, rule in enumerate(active) if LEFT_OUT in getattr(rule, "needs", ())]
    rows: list[tuple[AsmStatement, list[Outcome]]] = []
    for statement in statements if asked else ():
        row: list[Outcome] = [NOTHING] * len(active)
        for k in asked:
            row[k] = run_rule(active[k], statement, context)
        if any(row):
            rows.append((statement, row))
    return rows


def helper_call_outcomes(
    active: Sequence[Rule], source: SourceFile, context: RuleContext
) -> list[tuple[Rule, Outcome]]:
    """What each active rule that needs ``helper-calls`` says about the steps the file takes by
    calling its project headers' asm helpers (ptxlint.analysis.helper_carrier), asked of the
    one statement that carries them, after the file's own statements. The file's tree is
    parsed here where extraction made none (a file without the asm keyword)."""
    asked = [r for r in active if HELPER_CALLS in getattr(r, "needs", ())]
    if not asked or source.path.endswith(PYTHON_EXTENSIONS + JULIA_EXTENSIONS):
        return []
    from ptxlint.analysis.helper_carrier import carrier  # only runs with such a rule pay

    if not isinstance(context.parsed, ParsedSource):
        from ptxlint.frontends.cxx.macros import MacroTable
        from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
        from ptxlint.frontends.syntax_tree import parse

        path, text = source.path, unified_source(source).text
        try:
            # judged as extraction judges the file's macros: a kernel declared through one
            # (``CUTLASS_GLOBAL``) is a kernel, a specifier macro that confuses the parse is
            # left out
            parsed = parse(path, text, SpecifierMacros(
                functools.cache(lambda: MacroTable(path, text))))
        except Exception:  # a file the parser cannot take has no calls to follow
            return []
        context = dataclasses.replace(context, parsed=parsed, cxx=FileFacts(parsed))
    try:
        anchor = carrier(source, context)
    except Exception as exc:  # malformed input must never stop the run
        return [(asked[0], exc)]
    if anchor is None:
        return []
    return [(rule, run_rule(rule, anchor, context)) for rule in asked]


class AskedStatements(Sequence[AsmStatement]):
    """A file's statements for the rules (``RuleContext.file_statements``), noting whether
    one read them: on a tree that left functions out, the file is then linted again with the
    whole tree (``lint_kept``)."""

    def __init__(self, statements: Sequence[AsmStatement]) -> None:
        self._all = tuple(statements)
        self.asked = False

    @overload
    def __getitem__(self, index: int) -> AsmStatement: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[AsmStatement]: ...

    def __getitem__(self, index: int | slice) -> AsmStatement | Sequence[AsmStatement]:
        self.asked = True
        return self._all[index]

    def __len__(self) -> int:
        self.asked = True
        return len(self._all)

    def __iter__(self) -> Iterator[AsmStatement]:
        self.asked = True
        return iter(self._all)


def record_extraction(
    result: FileResult, extracted: ExtractionResult, statements: list[AsmStatement]
) -> None:
    """What the front end found, kept on the file's result (a whole file's or one part's)."""
    result.statements = statements
    result.skipped_statements = extracted.skipped
    result.expanded_macros = extracted.expanded_macros
    result.unexpanded_macros = extracted.unexpanded_macros
    result.skipped_invocations = extracted.skipped_invocations
    result.branch_variants = extracted.branch_variants


def active_rules(rules: Sequence[Rule], selector: Selector, path: str) -> list[Rule]:
    return [r for r in rules if selector.enabled(r.id, r.name, path)]


def run_rules(
    active: Sequence[Rule], statements: Sequence[AsmStatement], context: RuleContext
) -> list[list[Outcome]]:
    """Each rule's outcome per statement (``raw[i][k]``: ``active[k]`` on ``statements[i]``)."""
    plan = RulePlan(active)
    return [plan.outcomes(statement, context) for statement in statements]


# The rules a plan calls for one feature combination: (position, bound check) of the pure
# rules, in order, and of the others.
_Check = Callable[..., Iterable[Finding]]
_Calls = tuple[list[tuple[int, _Check]], list[tuple[int, _Check]]]


class RulePlan:
    """Which rules to call for a statement: those with no needs (``Rule.needs``), and those of
    which one need holds; the others get ``NOTHING``, which is what they return there. A
    statement's features are tested once for all the rules (a few attribute reads), and the
    rules to call are worked out once per combination of features.

    The pure rules' outcomes (``Rule.pure``) are memoised across statements and files
    (ptxlint.rule_memo): a statement the process linted before gets them, and its features,
    from the memo, placed on it; only the other rules are called. The order in which the
    rules are called does not matter (an outcome is the rule's own)."""

    def __init__(self, active: Sequence[Rule], memo: bool = True) -> None:
        """``memo=False``: call every rule (for statements made by hand, whose fields need not
        be what their text reads: the memo's key holds only the text and what lies outside
        it)."""
        self.active = list(active)
        needs = [tuple(getattr(rule, "needs", ())) for rule in self.active]
        names = sorted({n for each in needs for n in each if n in NEEDS})
        bits = {name: 1 << i for i, name in enumerate(names)}
        # the operand list's and the % tokens' features come together, in one set; so do the
        # statement's and its parse's (one call per statement for all of them)
        self.summarized = {name: bits[name] for name in names if name in SUMMARY_NEEDS}
        self.parsed = {name: bits[name] for name in names if name in PARSE_NEEDS}
        self.wanted = frozenset(self.parsed)
        self.tests = [
            (bits[name], NEEDS[name]) for name in names
            if name not in SUMMARY_NEEDS and name not in PARSE_NEEDS
        ]
        # 0: call always (no needs, or one this ptxlint does not know: a newer plugin's)
        self.masks = [
            0 if not each or any(n not in NEEDS for n in each)
            else sum(bits[n] for n in set(each))
            for each in needs
        ]
        self.pure = [memo and getattr(rule, "pure", False) is True for rule in self.active]
        # the classes and their checks (a test may patch one: its old outcomes no longer hold)
        self.pure_rules = tuple(
            (type(r), getattr(type(r), "check", None))
            for r, p in zip(self.active, self.pure, strict=True)
            if p
        )
        self.chosen: dict[int, _Calls] = {}
        self.keys: rule_memo.FileKeys | None = None

    def calls(self, features: int) -> _Calls:
        """The pure rules and the others to call on a statement with ``features``."""
        chosen = self.chosen.get(features)
        if chosen is None:
            pure: list[tuple[int, _Check]] = []
            other: list[tuple[int, _Check]] = []
            for k, (rule, mask, memoised) in enumerate(
                zip(self.active, self.masks, self.pure, strict=True)
            ):
                if not mask or mask & features:
                    (pure if memoised else other).append((k, rule.check))
            chosen = self.chosen[features] = (pure, other)
        return chosen

    def features(self, statement: AsmStatement) -> int:
        """The needs of the plan's rules that hold for ``statement``, as bits of the masks."""
        features = 0
        if self.summarized:
            summarized = self.summarized
            for name in summary_of(statement).holds:
                features |= summarized.get(name, 0)
        if self.parsed:
            parsed = self.parsed
            for name in parse_features(statement, self.wanted):
                features |= parsed.get(name, 0)
        for bit, test in self.tests:
            if test(statement):
                features |= bit
        return features

    def wants(self, k: int, features: int) -> bool:
        """Whether ``active[k]`` is called on a statement with ``features`` (else its outcome
        is ``NOTHING``)."""
        mask = self.masks[k]
        return not mask or bool(mask & features)

    def outcomes(self, statement: AsmStatement, context: RuleContext) -> list[Outcome]:
        """What ``run_rule`` gives for each active rule, without a call of it per rule."""
        row: list[Outcome] = [NOTHING] * len(self.active)
        key = None
        memo = rule_memo.MEMO
        if self.pure_rules and memo.keyed(statement):
            keys = self.keys
            if keys is None or keys.context is not context or keys.source is not statement.source:
                keys = self.keys = rule_memo.FileKeys(self.pure_rules, context, statement.source)
            key = keys.key(statement)
            if key is not None:
                entry = memo.get(key)
                if entry is not None:
                    self._replay(statement, context, row, entry)
                    return row
        features = self.features(statement)
        pure, other = self.calls(features)
        _call(other, statement, context, row)
        if key is None:
            _call(pure, statement, context, row)
            return row
        # Only what a pure rule said, or that it must be called again, is stored (by its place
        # among the pure rules called): most say nothing about most statements.
        assert self.keys is not None
        watched = self.keys.watched
        fields = watched.__dict__
        said: list[tuple[int, object]] = []
        for i, (k, check) in enumerate(pure):
            fields["touched"] = False
            try:
                found = list(check(statement, watched))
            except Exception as exc:
                row[k] = exc
                said.append((i, rule_memo.RERUN))
                continue
            if fields["touched"]:
                said.append((i, rule_memo.RERUN))
            elif found:
                said.append((i, rule_memo.detach(found, statement)))  # RERUN if it cannot
            if found:
                row[k] = found
        memo.put(key, (features, tuple(said)))
        return row

    def _replay(
        self,
        statement: AsmStatement,
        context: RuleContext,
        row: list[Outcome],
        entry: rule_memo.Entry,
    ) -> None:
        features, said = entry
        pure, other = self.calls(features)
        for i, kept in said:
            k, check = pure[i]
            if kept is rule_memo.RERUN:
                other = [*other, (k, check)]
            else:
                row[k] = rule_memo.attach(kept, statement)  # type: ignore[arg-type]
        _call(other, statement, context, row)


def _call(
    calls: list[tuple[int, _Check]],
    statement: AsmStatement,
    context: RuleContext,
    row: list[Outcome],
) -> None:
    """Each of ``calls``' checks on ``statement``, its outcome put at its place in ``row``
    (``run_rule``'s, without a call of it per rule)."""
    for k, check in calls:
        try:
            found = list(check(statement, context))
        except Exception as exc:
            row[k] = exc
            continue
        if found:
            row[k] = found


def run_rule(rule: Rule, statement: AsmStatement, context: RuleContext) -> Outcome:
    """What ``rule`` says of ``statement``: its findings, or the exception it raised. Nothing
    found is the one shared empty tuple: an empty list per rule and statement was 2 KB a
    statement of a file's peak memory (most rules say nothing about most statements)."""
    try:
        return list(rule.check(statement, context)) or NOTHING
    except Exception as exc:
        return exc


def finish(
    result: FileResult,
    source: SourceFile,
    raw: Sequence[Sequence[Outcome]],
    active: Sequence[Rule],
    selector: Selector,
    parsed: ParsedSource | None = None,
    loose: Sequence[tuple[Rule, Outcome]] = (),
    left: Sequence[tuple[AsmStatement, Sequence[Outcome]]] = (),
) -> None:
    """The file's findings from every rule's own outcome per statement (``raw[i][k]``: rule
    ``active[k]`` on ``result.statements[i]``), ``left``'s (the same, on the statements
    extraction left out, ``left_out_outcomes``) and ``loose``'s (a rule's outcome at the
    helper calls of a file without asm, ``helper_call_outcomes``): placed once across
    expansions and ``#if`` branches, suppressed, given their configured severity and
    fixability, and sorted (one defect, one finding: the rules leave a defect's echoes to its
    root, ptxlint.analysis.roots). Linear in the findings; an incremental re-lint replays it
    over kept outcomes."""
    table = suppress.parse(source)
    placer = Placer()
    rows: list[tuple[AsmStatement | None, Iterator[tuple[Rule, Outcome]]]] = [
        (statement, zip(active, outcomes, strict=True))
            for statement, outcomes in zip(result.statements, raw, strict=True)
            if any(outcomes)]  # no rule said anything (most statements): no per-rule loop
    rows += [(statement, zip(active, outcomes, strict=True)) for statement, outcomes in left]
    if loose:
        rows.append((None, iter(loose)))
    for statement, said in rows:
        for rule, produced in said:
            if isinstance(produced, Exception):
                result.crashed(source, rule.id, statement, produced)
                continue
            for placed in produced:
                if statement is None:  # at a helper call: no statement of the file holds it
                    placed = dataclasses.replace(placed, statement=None)
                finding = placer.place(placed)
                if finding is None:
                    continue  # reported already: by the macro's body, or an earlier expansion
                if table and table.suppresses(finding, source):
                    continue
                level = selector.severity_for(rule.id, rule.name, finding.severity.value)
                if level == "off":
                    continue
                if level != finding.severity.value:
                    finding = dataclasses.replace(finding, severity=Severity(level))
                if finding.fix is not None and not _fixable(selector, rule):
                    finding = dataclasses.replace(finding, fix=None)  # --unfixable
                if finding.fix is not None and not fix_applies(finding):
                    finding = dataclasses.replace(finding, fix=None)  # an unterminated statement
                result.findings.append(finding)
    result.findings = common_to_all_branches(result.findings, placer, result.statements)
    _mark_latent(result.findings, parsed)
    _check_suppressions(result, source, table, active, selector)
    result.findings.sort(key=lambda f: (f.span.start, f.rule))


def _mark_latent(findings: list[Finding], parsed: ParsedSource | None) -> None:
    """Each finding of a statement no build of the file compiles carries the reason
    (ptxlint.analysis.latent), worked out once per statement and only for those with findings."""
    reasons: dict[int, Latent | None] = {}
    for i, finding in enumerate(findings):
        statement = finding.statement
        if statement is None:
            continue
        key = id(statement)
        if key not in reasons:
            reasons[key] = latent_reason(statement, parsed)
        latent = reasons[key]
        if latent is not None and latent.covers(finding.rule):
            findings[i] = dataclasses.replace(finding, latent=latent.reason)


def _fixable(selector: Selector, rule: Rule) -> bool:
    fixable = getattr(selector, "fixable", None)
    return fixable is None or bool(fixable(rule.id, rule.name))


def _check_suppressions(
    result: FileResult,
    source: SourceFile,
    table: suppress.Suppressions,
    active: Sequence[Rule],
    selector: Selector,
) -> None:
    """PTX901: once every rule has offered its findings, report the directives that did nothing."""
    if not table:
        return
    checker = next((r for r in active if r.id == suppress.SUPPRESSION_RULE), None)
    if checker is None:
        return
    level = selector.severity_for(checker.id, checker.name, checker.severity.value)
    if level == "off":
        return
    ran = [code for r in active for code in (r.id, r.name)]
    for finding in suppress.check(table, source, ran, Severity(level)):
        # A PTX901 finding can itself be suppressed (ignore-file[PTX901]); it does not count as
        # use, so it cannot keep itself alive.
        if not _covered_quietly(table, finding, source):
            if finding.fix is not None and not _fixable(selector, checker):
                finding = dataclasses.replace(finding, fix=None)
            result.findings.append(finding)


def _covered_quietly(table: suppress.Suppressions, finding: Finding, source: SourceFile) -> bool:
    return any(
        d.codes is None or any(c.text in (finding.rule, finding.name) for c in d.codes)
        for d in table.covering(finding, source)
    )


class RuleCrash(Exception):
    """What a rule raised, as the internal-error finding it makes (``_internal_error``), for an
    outcome sent between processes: a traceback does not travel (ptxlint.engine_parts)."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding)
        self.finding = finding


# how much of an exception's text an internal-error message quotes
_SAID = 200


def _internal_error(
    source: SourceFile, stage: str, statement: AsmStatement | None, exc: BaseException
) -> Finding:
    if isinstance(exc, RuleCrash):
        return exc.finding
    import traceback  # with textwrap and linecache: only for a crash

    from ptxlint.model import Span

    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    location = f" at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}" if where else ""
    span = statement.span if statement is not None else Span(0, 0)
    what = f"rule {stage}" if statement is not None else stage
    said = str(exc)
    if len(said) > _SAID:
        # ``x is not in list`` prints the whole model object: 30 KB of one line
        said = said[:_SAID] + "…"
    text = (
        f"{what} raised {type(exc).__name__}: {said}{location}"
        + (f" while checking the asm statement on line {statement.line}" if statement else "")
        + "; please report this"
    )
    return Finding(
        rule=INTERNAL_ERROR,
        name=INTERNAL_ERROR,
        severity=Severity.ERROR,
        path=source.path,
        span=span,
        message=text,
        statement=statement,
    )


def instantiate(rule_classes: Iterable[type[Rule]]) -> list[Rule]:
    return [cls() for cls in rule_classes]
