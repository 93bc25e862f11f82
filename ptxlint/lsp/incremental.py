"""Lint a document again after an edit, reading only the asm statement the edit is in.

The language server lints on every pause in typing. A full lint extracts, types and checks
every statement of the file; most of an asm author's edits are inside one template literal
(``"add.u32 %0, %1, %2;"``), and such an edit can change only that statement's reading.
``IncrementalLinter`` keeps each document's last lint (statements, the tree, and each rule's
own outcome per statement, before placing and suppression) and, for such an edit:

1. finds the edited range (common prefix and suffix of the two texts) and the one statement
   whose string literal holds it (a template string, a constraint or a clobber): a plain
   statement in code (``asm(...);`` as a statement of a function body, not in a ``#define``,
   a macro's arguments or an ``#if`` branch);
2. proves the edit changes nothing but that literal's characters: no quote, backslash or line
   break typed or removed, no word that a file-wide decision reads (``__...``: the grammar, a
   ``__volatile__`` spelling, ``#``, ``NV_``, suppression words) within reach, and, in the
   tree, the edit inside the literal's run of plain characters (so ``Tree.edit`` moves the
   nodes where a parse of the new text puts them; ``_EditedSource``);
3. reads that statement again (``extract.reread``: operands and their types are unchanged);
4. runs every rule on it, and the rules whose verdicts read other statements (``Rule.scope ==
   "file"``) on every statement, as well as those that read them only through value flow
   (``"values"``) where the statement spells a word value flow reads (``cvta``) before or
   after the edit, each only where one of its needs holds, as a full lint asks it
   (``engine.RulePlan``); every other outcome is kept, moved by the edit's length;
5. replays the file-wide steps over all outcomes (``engine.finish``: macro-expansion placing,
   ``#if``-branch merging, suppressions, severities, PTX901): linear in the findings.

Anything else is a full lint, which stays the reference: an edit outside such a literal,
a statement whose reading changes shape (another end, no longer PTX), a moved statement whose
problems spell offsets, a Python file, another configuration, or no earlier lint.
tests/test_incremental.py compares the result with a full lint after each of many random
edits, inside and outside asm statements, around macros and ``#if`` branches, and the kept
tree with a fresh parse.

Cost of the fast path: O(file) in C (text comparison and encoding), O(statements) for moving
kept outcomes, the rules on one statement plus the file-scope rules, and an incremental parse
only when a rule reads a node's own text after a length-changing edit (value flow reads the
edited tree's positions, ``ParsedSource.positions``, and the text through ``node_text``).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import tree_sitter

from ptxlint.analysis.cxx_facts import FileFacts
from ptxlint.analysis.value_flow import TEMPLATE_WORDS
from ptxlint.engine import (
    NOTHING,
    FileResult,
    Linted,
    Outcome,
    RulePlan,
    Selector,
    finish,
    lint_kept,
    parse_template,
    run_rule,
)
from ptxlint.frontends.cxx.extract import reread
from ptxlint.frontends.julia import JULIA_EXTENSIONS
from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.frontends.statement_problems import spells_offsets
from ptxlint.frontends.syntax_tree import (
    ParsedSource,
    grammar_for,
    left_out_after_edit,
    parse_again,
)
from ptxlint.model import (
    AsmStatement,
    Clobber,
    Expansion,
    Finding,
    Fix,
    Operand,
    Qualifier,
    SourceFile,
    Span,
    Template,
)
from ptxlint.rule import Rule, RuleContext

# Documents kept (least recently linted dropped first): an editor has a few open at a time.
MAX_DOCUMENTS = 16

# Characters whose typing or removal can end or split a string literal.
_LITERAL_BREAKERS = frozenset('"\\\n\r')
# Words that file-wide decisions look for anywhere in the text, string literals included (the
# grammar's CUDA markers and PTX101's ``__volatile__`` spelling all start with "__", directives,
# NV_IF_TARGET guards, suppression comments, #error), each with how far from the edit an
# occurrence can be and still be made or unmade by it: an edit within reach of one, in the
# literal the edit is inside, is linted in full (``_near_file_word``). "__" reaches as far as
# the longest such marker (``__CUDA_ARCH__``) and a little more.
# "*/" inside a literal can close an unterminated "/*" written earlier in the file: tree-sitter
# reads that "/*" as an error and goes on, until a "*/" anywhere makes it a comment that swallows
# the statements between (typing "*/" into a template turned 14 statements into 5).
_FILE_WORDS = (
    ("__", 16), ("#", 1), ("NV_", 3), ("ptxlint", 7), ("noqa", 4), ("error", 5), ("*/", 2),
)


@dataclass
class _Document:
    """A document's last lint, kept for the next edit: its text, tree, outcomes and the setup they
    were made with."""

    text: str
    parsed: ParsedSource
    linted: Linted
    setup: tuple[int, RuleContext, int]  # the rules, context and selector it was linted with


class _Edit(NamedTuple):
    """How one text differs from the next: a single replaced range, in character offsets."""

    start: int  # characters, in both texts
    old_end: int
    new_end: int

    @property
    def delta(self) -> int:
        return self.new_end - self.old_end


class IncrementalLinter:
    """Lints documents by path, re-using each one's previous lint where an edit allows."""

    def __init__(self) -> None:
        self._documents: OrderedDict[str, _Document] = OrderedDict()
        self.incremental_runs = 0  # for tests and benchmarks: how often the fast path ran

    def forget(self, path: str | None = None) -> None:
        if path is None:
            self._documents.clear()
        else:
            self._documents.pop(path, None)

    def lint(
        self,
        path: str,
        text: str,
        rules: Sequence[Rule],
        context: RuleContext,
        selector: Selector,
    ) -> FileResult:
        setup = (id(rules), context, id(selector))
        previous = self._documents.pop(path, None)
        document = None
        if previous is not None and previous.setup == setup:
            if previous.text == text:
                document = previous
            else:
                try:
                    document = _relint(previous, path, text, context, selector)
                except Exception:  # the fast path is an optimisation: a full lint always works
                    document = None
                if document is not None:
                    self.incremental_runs += 1
        if document is None:
            source = SourceFile(path, text)
            # the whole tree: an edit's re-lint edits it, and reads any of its functions
            linted = lint_kept(source, rules, context, selector, whole_tree=True)
            if not _reusable(path, linted):
                return linted.result
            assert linted.parsed is not None
            document = _Document(text, linted.parsed, linted, setup)
        self._documents[path] = document
        while len(self._documents) > MAX_DOCUMENTS:
            self._documents.popitem(last=False)
        return document.linted.result


def _reruns(scope: str, values_read: bool) -> bool:
    """Whether a rule of ``scope`` (``Rule.scope``) is checked again on every statement after
    an edit inside one template (``values_read``: its text, before or after, spells a word of
    ``value_flow.TEMPLATE_WORDS``)."""
    if scope == "statement":
        return False
    return scope != "values" or values_read


def _reusable(path: str, linted: Linted) -> bool:
    return (
        linted.extracted
        and linted.parsed is not None
        and linted.parsed.text == linted.result.source.text  # type: ignore[union-attr]
        and not linted.parsed.unread  # an edit re-reads the tree anywhere: it must be whole
        # the Python and Julia front ends read whole files
        and not path.endswith(PYTHON_EXTENSIONS + JULIA_EXTENSIONS)
    )


def changed_range(old: str, new: str) -> _Edit:
    """The one changed range: the longest common prefix, then the longest common suffix of
    what is left. Each is found block by block, then by halving within the first block that
    differs: slices compare in C, and the text is copied about once (halving over the whole
    text copied it log n times: 11 ms an edit of a 2.7 MB header)."""
    limit = min(len(old), len(new))
    start = _common_run(old, new, limit, False)
    return _Edit(
        start,
        len(old) - (end := _common_run(old, new, limit - start, True)),
        len(new) - end,
    )


_BLOCK = 1 << 14


def _common_run(old: str, new: str, limit: int, from_end: bool) -> int:
    """How many characters, at most ``limit``, the two texts share from their start (or from
    their end)."""

    def same(a: int, b: int) -> bool:  # characters [a, b) counted from the chosen side
        if from_end:
            return old[len(old) - b : len(old) - a] == new[len(new) - b : len(new) - a]
        return old[a:b] == new[a:b]

    done = 0
    while done < limit:
        step = min(_BLOCK, limit - done)
        if not same(done, done + step):
            low, high = 0, step - 1  # the block's first differing character is within it
            while low < high:
                mid = (low + high + 1) // 2
                if same(done, done + mid):
                    low = mid
                else:
                    high = mid - 1
            return done + low
        done += step
    return limit


def _relint(
    document: _Document, path: str, text: str, context: RuleContext, selector: Selector
) -> _Document | None:
    old_text = document.text
    edit = changed_range(old_text, text)
    removed, typed = old_text[edit.start : edit.old_end], text[edit.start : edit.new_end]
    if _LITERAL_BREAKERS & (set(removed) | set(typed)):
        return None
    old = document.parsed
    if grammar_for(path, text) != old.grammar:
        return None
    linted = document.linted
    if linted.left_out or linted.loose:
        return None  # a rule spoke about a statement left out, or helper calls: the whole lint
    statements = linted.result.statements
    at = _statement_at(statements, edit)
    if at is None:
        return None
    statement = statements[at]
    literal = _literal_at(statement, edit)
    if literal is None or _near_file_word(old_text, text, literal, edit):
        return None
    typed_bytes = len(typed.encode("utf-8", "surrogatepass"))
    if not _plain_statement(old, statement, literal, edit, typed_bytes):
        return None
    delta = edit.delta
    if delta and any(spells_offsets(s.problems) for s in statements if s.span.end > edit.start):
        return None  # their messages spell offsets the edit moves

    parsed = _reparse(old, text, edit)
    source = SourceFile(path, text)
    fresh = reread(source, statement, parse_template)
    if fresh is None or fresh.span.end != statement.span.end + delta:
        return None

    moved: dict[int, AsmStatement] = {}
    new_statements: list[AsmStatement] = []
    for s in statements:
        m = fresh if s is statement else _move_statement(s, edit, source)
        moved[id(s)] = m
        new_statements.append(m)
    facts = FileFacts(parsed)
    context = dataclasses.replace(
        context, file_statements=tuple(new_statements), parsed=parsed, cxx=facts
    )
    active = linted.active
    # a statement that spells none of value flow's words, before or after, changes no value
    # (its text as written: what value flow reads of a template node)
    before = old_text[statement.span.start : statement.span.end]
    after = text[fresh.span.start : fresh.span.end]
    values_read = any(word in before or word in after for word in TEMPLATE_WORDS)
    wide = [
        k for k, rule in enumerate(active)
        if _reruns(getattr(rule, "scope", "file"), values_read)
    ]
    # a rule is asked of a statement only where one of its needs holds, as in a full lint
    # (``RulePlan``): the others' outcome there is NOTHING, whatever else changed (PTX614, a
    # file-scope rule whose check reads the function's flows, asked of every statement of a
    # file without tcgen05 took each re-lint of the 5,000-line benchmark from 10 to 130 ms)
    plan = RulePlan(active, memo=False)
    masked = any(plan.masks[k] for k in wide)  # else no rule of ``wide`` has a need to test
    outcomes: list[list[Outcome]] = []
    for s, kept in zip(statements, linted.outcomes, strict=True):
        new = moved[id(s)]
        if s is statement:
            outcomes.append(plan.outcomes(new, context))
            continue
        row = list(kept)
        if any(kept):  # findings (or an exception) to move; most statements have none
            for k, outcome in enumerate(kept):
                if isinstance(outcome, list) and outcome:
                    row[k] = [_move_finding(f, edit, moved, new) for f in outcome]
        features = plan.features(new) if masked else 0
        for k in wide:
            row[k] = run_rule(active[k], new, context) if plan.wants(k, features) else NOTHING
        outcomes.append(row)

    old_result = linted.result
    result = FileResult(
        path,
        statements=new_statements,
        skipped_statements=[(_at(o, edit), r) for o, r in old_result.skipped_statements],
        expanded_macros=set(old_result.expanded_macros),
        unexpanded_macros=[(_at(o, edit), n) for o, n in old_result.unexpanded_macros],
        skipped_invocations=[(_at(o, edit), r) for o, r in old_result.skipped_invocations],
        branch_variants=old_result.branch_variants,
        source=source,
    )
    finish(result, source, outcomes, active, selector, parsed)
    return _Document(text, parsed, Linted(result, outcomes, active, parsed, True), document.setup)


def _statement_at(statements: Sequence[AsmStatement], edit: _Edit) -> int | None:
    """The one statement whose span holds the edit (None: none, or several readings)."""
    found = [
        i
        for i, s in enumerate(statements)
        if s.span.start < edit.start and edit.old_end < s.span.end
    ]
    return found[0] if len(found) == 1 else None


def _near_file_word(old_text: str, text: str, literal: Span, edit: _Edit) -> bool:
    """A word of ``_FILE_WORDS`` within its reach of the edit, in the old text or the new, in
    the literal the edit is inside: no such word can be made or unmade across the literal's
    quotes, so an occurrence outside it (CCCL's ``"l"(__ptr)`` after nearly every template)
    is no reason for a full lint."""
    new_end = literal.end + edit.delta
    for word, reach in _FILE_WORDS:
        low = max(literal.start, edit.start - reach)
        if word in old_text[low : min(literal.end, edit.old_end + reach)]:
            return True
        if word in text[low : min(new_end, edit.new_end + reach)]:
            return True
    return False


def _literal_at(statement: AsmStatement, edit: _Edit) -> Span | None:
    """The statement's string literal whose quotes enclose the edit, on one line: a piece of
    the template, a constraint or a clobber."""
    spans = [p.span for p in statement.template.pieces if p.kind == "string"]
    spans += [o.constraint.span for o in statement.operands if not o.constraint.opaque]
    spans += [c.span for c in statement.clobbers]
    for span in spans:
        if span.start < edit.start and edit.old_end < span.end:
            literal = statement.source.text[span.start : span.end]
            if "\n" in literal or "\r" in literal or not literal.endswith('"'):
                return None
            if edit.start <= span.start + literal.find('"'):
                return None  # in a prefix (u8"...") or on the opening quote
            return span
    return None


def _plain_statement(
    parsed: ParsedSource, statement: AsmStatement, span: Span, edit: _Edit, typed_bytes: int
) -> bool:
    """``asm(...)`` as a statement of its own in code, the literal one of its template
    strings, constraints or clobbers, in the syntax tree as in ptxlint's reading (not an
    argument of a macro, not inside an error), the edit inside one run of the literal's plain
    characters."""
    start, end = parsed.to_byte(statement.span.start), parsed.to_byte(statement.span.end)
    root = parsed.positions().root_node
    keyword = root.descendant_for_byte_range(start, start + len(statement.keyword))
    asm = keyword.parent if keyword is not None else None
    if (
        asm is None
        or asm.type != "gnu_asm_expression"
        or (asm.start_byte, asm.end_byte) != (start, end)
        or asm.parent is None
        or asm.parent.type != "expression_statement"
        or asm.has_error
    ):
        return False
    p_start, p_end = parsed.to_byte(span.start), parsed.to_byte(span.end)
    literal = root.descendant_for_byte_range(p_start, p_end)
    while literal is not None and literal.type != "string_literal":
        literal = literal.parent
    if literal is None or (literal.start_byte, literal.end_byte) != (p_start, p_end):
        return False
    if not _held_by(literal, asm):
        return False
    # ``Tree.edit`` stretches the node that ends where an insertion starts: that node must be
    # the literal's text run itself. The character before the edit stays (what follows an
    # escape such as \x1 could join it), except where the opening quote is before it and
    # the edit replaces or deletes characters (a letter of "=r"), leaving some behind.
    start_b, old_end_b = parsed.to_byte(edit.start), parsed.to_byte(edit.old_end)
    removed = old_end_b - start_b
    for child in literal.children:
        if child.type != "string_content" or not child.start_byte <= start_b <= child.end_byte:
            continue
        if old_end_b > child.end_byte:
            return False
        if child.start_byte < start_b:
            return True
        previous = child.prev_sibling
        left = child.end_byte - child.start_byte - removed + typed_bytes
        return removed > 0 and left > 0 and previous is not None and previous.type == '"'
    return False


def _held_by(literal: tree_sitter.Node, asm: tree_sitter.Node) -> bool:
    """The literal is a template string of ``asm``, an operand's constraint or a clobber (not
    a string inside an operand's C++ expression)."""
    holder = literal.parent
    if holder is None:
        return False
    if holder.type == "concatenated_string":
        holder = holder.parent
        return holder is not None and holder.id == asm.id
    if holder.id == asm.id:
        return True
    if holder.type in ("gnu_asm_output_operand", "gnu_asm_input_operand"):
        constraint = holder.child_by_field_name("constraint")
        if constraint is None or constraint.id != literal.id:
            return False
        holder = holder.parent
    elif holder.type != "gnu_asm_clobber_list":
        return False
    holder = holder.parent if holder is not None else None  # the list's statement
    return holder is not None and holder.id == asm.id


class _EditedSource(ParsedSource):
    """The new text with the old tree, edited (``Tree.edit``): every node where a parse of the
    new text puts it, since the edit only changed characters inside one string literal (no
    quote, backslash or line break; tests/test_incremental.py compares it with a fresh
    parse). Reading a node's own ``text`` needs a parse, though (py-tree-sitter drops an
    edited tree's source), so ``tree`` parses on first use, incrementally; ``positions``
    gives the edited tree without parsing, for the next edit's checks. Few lints need the
    parse: a parse walks every sibling of a long function body again (27 ms for the 5,000-line
    benchmark function) while the rest of the re-lint takes a few."""

    _pending: tree_sitter.Tree | None = None
    _parsed: tree_sitter.Tree | None = None

    @property
    def tree(self) -> tree_sitter.Tree:
        if self._parsed is None:
            assert self._pending is not None
            self._parsed = parse_again(self.data, self.grammar, self._pending, self.skipped)
        return self._parsed

    @tree.setter
    def tree(self, value: tree_sitter.Tree | None) -> None:
        self._pending, self._parsed = value, None

    def positions(self) -> tree_sitter.Tree:
        return self._parsed if self._parsed is not None else self._pending  # type: ignore[return-value]


class _KernelMacrosByLine:
    """The judge of kernel macros (``ParsedSource.kernel_macro``) of the text a document was
    last parsed from in full, asked at a character of an edited text. A fast-path edit adds or
    removes no line break, and what a macro means at a place depends only on the directive
    lines above it: the start of that place's line in the judged text answers for it. Every
    edit's judge asks the one of the full parse, so edits make no chain of wrappers."""

    def __init__(self, judge: Callable[[str, int], bool], line_starts: list[int],
                 text: str) -> None:
        self.judge, self.line_starts, self.text = judge, line_starts, text
        self._starts: list[int] | None = None  # the edited text's, found on the first ask

    def __call__(self, name: str, at: int) -> bool:
        if self._starts is None:
            self._starts = _line_starts(self.text)
        return self.judge(name, self.line_starts[bisect.bisect_right(self._starts, at) - 1])


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def _kernel_macros(old: ParsedSource, text: str) -> Callable[[str, int], bool] | None:
    judge = old.kernel_macro
    if judge is None:
        return None
    if isinstance(judge, _KernelMacrosByLine):
        return _KernelMacrosByLine(judge.judge, judge.line_starts, text)
    return _KernelMacrosByLine(judge, _line_starts(old.text), text)


def _reparse(old: ParsedSource, text: str, edit: _Edit) -> ParsedSource:
    """The new text's tree, from the old one (see ``_EditedSource``). An edit that keeps the
    length keeps every position: the old tree is the new text's, read or not."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) == len(old.data):
        skipped, uses = left_out_after_edit(old, data)
        return _EditedSource(text, data, old.positions(), old.grammar, skipped=skipped,
                             split=old.split, specifier_uses=uses,
                             left_out_names=old.left_out_names,
                             kernel_macro=_kernel_macros(old, text))
    start_b = old.to_byte(edit.start)
    old_end_b = old.to_byte(edit.old_end)
    new_end_b = start_b + len(text[edit.start : edit.new_end].encode("utf-8", "surrogatepass"))
    tree = old.positions().copy()
    tree.edit(
        start_byte=start_b,
        old_end_byte=old_end_b,
        new_end_byte=new_end_b,
        start_point=_point(old.data, start_b),
        old_end_point=_point(old.data, old_end_b),
        new_end_point=_point(data, new_end_b),
    )
    skipped, uses = left_out_after_edit(old, data)
    return _EditedSource(text, data, tree, old.grammar, skipped=skipped, split=old.split,
                         specifier_uses=uses, left_out_names=old.left_out_names,
                         kernel_macro=_kernel_macros(old, text))


def _point(data: bytes, byte: int) -> tuple[int, int]:
    return data.count(b"\n", 0, byte), byte - (data.rfind(b"\n", 0, byte) + 1)


# --------------------------------------------------------------------------- moving results
# Offsets at or before the edit's start stay; those at or after its old end move by its length
# (nothing kept lies inside it: only the re-read statement does).


def _at(offset: int, edit: _Edit) -> int:
    return offset + edit.delta if offset >= edit.old_end and offset > edit.start else offset


def _span(span: Span, edit: _Edit) -> Span:
    start, end = _at(span.start, edit), _at(span.end, edit)
    return span if (start, end) == (span.start, span.end) else Span(start, end)


def _move_statement(statement: AsmStatement, edit: _Edit, source: SourceFile) -> AsmStatement:
    """The statement in the new text: moved if after the edit, reading ``source``."""
    if not edit.delta or _last_offset(statement) <= edit.start:
        return statement.with_source(source)
    template = statement.template
    context = statement.context
    if context.expansion is not None:
        context = dataclasses.replace(context, expansion=_move_expansion(context.expansion, edit))
    return dataclasses.replace(
        statement,
        source=source,
        span=_span(statement.span, edit),
        qualifiers=tuple(Qualifier(q.name, _span(q.span, edit)) for q in statement.qualifiers),
        template=Template(
            template.text,
            tuple(_at(c, edit) for c in template.char_starts),
            tuple(_at(c, edit) for c in template.char_ends),
            tuple(
                dataclasses.replace(p, span=_span(p.span, edit)) for p in template.pieces
            ),
        ),
        operands=tuple(_move_operand(o, edit) for o in statement.operands),
        clobbers=tuple(Clobber(c.name, _span(c.span, edit)) for c in statement.clobbers),
        colons=tuple(_at(c, edit) for c in statement.colons),
        open_paren=_at(statement.open_paren, edit),
        close_paren=_at(statement.close_paren, edit),
        context=context,
        missing_commas=tuple((_at(a, edit), _at(b, edit)) for a, b in statement.missing_commas),
    )


def _last_offset(statement: AsmStatement) -> int:
    """The largest source offset the statement holds (its invocation's and #define's too)."""
    last = statement.span.end
    expansion = statement.context.expansion
    if expansion is not None:
        last = max(last, expansion.span.end, expansion.body.end if expansion.body else 0)
    return max(last, max(statement.template.char_ends, default=0))


def _move_operand(operand: Operand, edit: _Edit) -> Operand:
    return dataclasses.replace(
        operand,
        constraint=dataclasses.replace(
            operand.constraint, span=_span(operand.constraint.span, edit)
        ),
        expression_span=_span(operand.expression_span, edit),
        span=_span(operand.span, edit),
    )


def _move_expansion(expansion: Expansion, edit: _Edit) -> Expansion:
    return dataclasses.replace(
        expansion,
        span=_span(expansion.span, edit),
        body=_span(expansion.body, edit) if expansion.body is not None else None,
    )


def _move_finding(
    finding: Finding, edit: _Edit, moved: dict[int, AsmStatement], default: AsmStatement
) -> Finding:
    statement = default
    if finding.statement is not None:
        statement = moved.get(id(finding.statement), default)
    if not edit.delta:
        return dataclasses.replace(finding, statement=statement)
    fix = finding.fix
    if fix is not None:
        fix = Fix(
            fix.description,
            tuple(dataclasses.replace(e, span=_span(e.span, edit)) for e in fix.edits),
            fix.safe,
        )
    return dataclasses.replace(
        finding,
        span=_span(finding.span, edit),
        fix=fix,
        statement=statement,
        expansion=_move_expansion(finding.expansion, edit) if finding.expansion else None,
        spelled_at=_span(finding.spelled_at, edit) if finding.spelled_at else None,
    )
