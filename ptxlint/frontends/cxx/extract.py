"""Find every inline asm statement of a file and model it with exact source positions.

tree-sitter says where the ``asm`` keywords are (not in a comment or string; in code or in a
``#define`` body) and what surrounds them (function, specifiers, ``#if`` guards). The statement
itself is read with :mod:`.lexer`, which survives the macros real headers put there.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
import os
import re
from collections.abc import Callable, Sequence
from typing import Protocol

import tree_sitter

from ptxlint.frontends.cxx import branches, dialect, host_code, macro_uses, preproc
from ptxlint.frontends.cxx.defines import MacroDef
from ptxlint.frontends.cxx.guard_macros import GuardMacros
from ptxlint.frontends.cxx.guards import FileGuards, guards_of
from ptxlint.frontends.cxx.headers import real_path
from ptxlint.frontends.cxx.keyword_macro_bodies import (
    keyword_macro,
    keyword_macros,
    uses_in_bodies,
)
from ptxlint.frontends.cxx.lexer import (
    Token,
    tokens,
)
from ptxlint.frontends.cxx.operand_types import leave_types
from ptxlint.frontends.cxx.plain_reader import read_plain
from ptxlint.frontends.cxx.raw_statement import RawStatement as _RawStatement
from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
from ptxlint.frontends.cxx.statement_context import (
    C_BRANCH,
    C_BRANCH_NAMED,
    C_DIALECT,
    C_DIALECT_REASON,
    C_EMBEDDED_IN,
    C_EXPANSION,
    C_FUNCTION,
    C_GUARD_MACROS,
    C_GUARDS,
    C_LOCAL_GUARDS,
    C_MACRO,
    C_SPECIFIERS,
    CONTEXTS_KEPT,
    Ancestors,
    RecoveredFunction,
    context_of,
    follows_declarator,
    is_asm_label,
    macro_name_of,
    macro_params,
)
from ptxlint.frontends.cxx.statement_reader import (
    MacroPieces,
    NoPieces,
    RefusedPieces,
    StatementReader,
)
from ptxlint.frontends.cxx.statement_tokens import (
    KEYWORDS,
    code_tokens,
    end_of_directive,
    keyword_starts,
    keyword_tokens,
)
from ptxlint.frontends.extraction import WHOLE, ExtractionResult, Share
from ptxlint.frontends.statement_problems import directive_inside, left_out
from ptxlint.frontends.syntax_tree import (
    NodeFinder,
    ParsedSource,
    parse,
)
from ptxlint.model import (
    AsmStatement,
    Context,
    CType,
    Expansion,
    Operand,
    PtxTemplate,
    SourceFile,
    Span,
    new_span,
)

# the reader fills operands slot by slot (``model_slots``: why)
from ptxlint.model_slots import O_CTYPE, new, slot_setters

ASM_LABEL = "asm label"
_NON_CODE_NODES = {
    "comment",
    "string_literal",
    "string_content",
    "raw_string_literal",
    "raw_string_content",
    "raw_string_delimiter",
    "char_literal",
    "character",
    "escape_sequence",
    "system_lib_string",
}
_KIND_OF_NODE = operator.attrgetter("type")  # a node's kind, read in C over a few nodes

TemplateParser = Callable[[str, bool], PtxTemplate]
class TypeLookup(Protocol):
    """``TypeResolver.resolve``: an operand's type from its expression and offset, and, where
    the statement is in the file's syntax tree, the node of its asm keyword or that node's
    nearest ancestors (``_ancestors_of``)."""

    def __call__(
        self,
        expression: str,
        offset: int,
        statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None = None,
        /,
    ) -> CType | None: ...


def has_asm(text: str) -> bool:
    return next(keyword_starts(text), None) is not None


_WORD_CHAR = re.compile(r"[\w$]")


def shares(text: str, parts: int) -> list[Share]:
    """``text`` cut into at most ``parts`` shares (``Share``) of about as many asm keywords each,
    in text order; the last holds the macro invocations. The same text and count always give
    the same cut: each process linting a part works it out alone (a scan, 1 ms for CUTLASS's
    2.8 MB GMMA header)."""
    starts = [start for start, _ in keyword_starts(text)]
    parts = max(1, min(parts, len(starts)))
    cuts = [starts[len(starts) * k // parts] for k in range(1, parts)]
    bounds = [0, *cuts]
    return [Share(lo, hi) for lo, hi in zip(bounds, [*cuts, None], strict=True)]


def extract(
    source: SourceFile,
    parse_template: TemplateParser,
    make_type_lookup: Callable[[ParsedSource], TypeLookup] | None = None,
    share: Share = WHOLE,
    parsed: ParsedSource | None = None,
) -> ExtractionResult:
    """The asm statements of ``source``, or of its ``share`` (the same statements as the whole
    file's extraction reads there: each keyword's reading depends on the file, never on the
    statements before it). ``parsed``: the file's tree, when the caller has it."""
    result = ExtractionResult()
    macros = MacroPieces(source)
    if not has_asm(source.text):
        # LOAD(u32, global) may still expand to asm from a header included by relative path
        if "#include" not in source.text and "# include" not in source.text:
            return result
        names = macro_uses.asm_macros(macros.table)
        if not names or next(macro_uses.find_uses(source.text, names), None) is None:
            return result  # no asm macro is named: nothing can expand, no parse needed
    if parsed is None:
        parsed = parse(source.path, source.text, SpecifierMacros(macros.table_now))
    result.parsed = parsed
    lookup = make_type_lookup(parsed) if make_type_lookup else None
    file_guards = guards_of(source.text)  # shared with the file's other readers
    host = _HostCode(parsed, macros, file_guards)
    share_parents = getattr(lookup, "share_parents", None)
    if share_parents is not None:  # a TypeResolver: one parent step per node for both climbs
        share_parents(host.ancestors.parents)
        lookup.use_macros(macros.table_now)  # type: ignore[union-attr]  # macro invocations
    macro_tokens: dict[int, list[Token]] = {}
    macro_index: dict[int, dict[object, int]] = {}
    # the keywords come in text order: one cursor finds each and its ancestors
    finder = NodeFinder(parsed.tree.root_node, host.ancestors.parents)
    holds = share.holds
    ascii_text = parsed.ascii  # offsets are bytes: no conversion per statement
    keyword_macros_used: bool | None = None
    defines_keyword = False  # an asm keyword in an object-like #define's body
    for start, keyword in keyword_starts(source.text):
        if not holds(start):
            continue
        byte = start if ascii_text else parsed.to_byte(start)
        node, above = finder.find(byte, byte + len(keyword))
        kind = node.type
        if kind in _NON_CODE_NODES:
            continue
        # its three nearest ancestors, for the checks below
        ups = above[:3]
        if not _NON_CODE_NODES.isdisjoint(map(_KIND_OF_NODE, ups)):  # _inside_non_code(node)
            continue
        if kind == "preproc_arg":
            body_start = parsed.to_char(node.start_byte)
            if body_start not in macro_tokens:
                # to the directive's end: tree-sitter ends a "preproc_arg" at a block comment
                # (`"{\n" /* note */ \` in the body), the lexer reads past it
                end = max(parsed.to_char(node.end_byte), end_of_directive(source.text, body_start))
                macro_tokens[body_start] = list(tokens(source.text, body_start, end))
            toks = macro_tokens[body_start]
            if body_start not in macro_index:
                macro_index[body_start] = keyword_tokens(toks)
            at = macro_index[body_start]
            index = at.get(start)
            if index is None:  # inside a comment or string of the macro body
                continue
            owner = ups[0] if ups else None
            if owner is not None:
                # the function around the #define, from the way down to its body (a
                # "preproc_arg" is no function: the answer is its #define's)
                host.ancestors.known(owner, finder.functions())
            # up to the next asm keyword: one pass over the body for all its statements
            stream: Sequence[Token] = toks[index : at.get(("next", start), len(toks))]
            macro_name = macro_name_of(parsed, owner)
            context_node = owner
            plain = None
            defines_keyword = defines_keyword or owner is not None and owner.type == "preproc_def"
        elif kind in ("preproc_call", "preproc_directive"):
            continue
        elif is_asm_label(node, ups):
            result.skipped.append(
                (start, "asm label: names a declaration's symbol, not a statement")
            )
            continue
        else:
            # the function around it, from the way down to it: no climb
            host.ancestors.known(node, finder.functions())
            plain = read_plain(source, start, keyword, macros)
            stream = () if plain is not None else code_tokens(source.text, start)
            macro_name = None
            context_node = node
        pieces = macros
        if macro_name is not None:
            pieces = macros.with_forbidden(macro_params(parsed, owner))
        if macro_name is None and plain is None and _has_inner_directive(stream):
            _read_branches(
                result,
                source,
                parsed,
                stream,
                pieces,
                context_node,
                file_guards,
                parse_template,
                lookup,
                host,
                keyword,
                start,
            )
            continue
        raw = plain or StatementReader(source, stream, pieces, macro_name is not None).read()
        if raw is None:
            continue
        if keyword_macros_used is None:  # `#define asm __asm__ __volatile__`: once per file
            keyword_macros_used = "#" in source.text and any(
                map(macros.table.definitions, KEYWORDS))
        if keyword_macros_used:
            extra = macro_uses.keyword_qualifiers(macros.table, keyword, start, raw.qualifiers)
            if extra:
                raw = dataclasses.replace(raw, qualifiers=extra + raw.qualifiers)
        if not raw.extended and macro_name is None and follows_declarator(source.text, start):
            result.skipped.append(
                (start, f"{ASM_LABEL}: names a declaration's symbol, not a statement")
            )
            continue
        context = context_of(
            host.ancestors,
            context_node,
            macro_name,
            file_guards,
            start,
            raw.end,
            host.guard_macros,
            host.kind if macro_name is None else None,
        )
        _finish(
            result,
            source,
            raw,
            context,
            keyword,
            new_span(start, raw.end),
            parse_template,
            lookup,  # in a #define body: where the body declares the names (macro_body_place)
            host_only=host.reason(context_node if macro_name is None else None),
            statement=ups if macro_name is None else None,  # the resolver climbs from them
        )
    if share.end is None:
        if defines_keyword and (stand_for := keyword_macros(macros.table)):
            _read_keyword_macro_bodies(source, parsed, stand_for, macro_tokens, macros,
                                       file_guards, parse_template, lookup, result, host)
        _expand_macro_uses(
            source, parsed, macros, file_guards, parse_template, lookup, result, host
        )
    return result


def _read_keyword_macro_bodies(
    source: SourceFile, parsed: ParsedSource, stand_for: dict[str, tuple[str, ...]],
    bodies: dict[int, list[Token]], macros: MacroPieces, file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None, result: ExtractionResult, host: _HostCode,
) -> None:
    """Read the statements ``#define`` bodies begin with a keyword macro (``ASM("...")``, where
    ``#define ASM asm __volatile__``), as the walk reads those it begins with the keyword."""
    for use in uses_in_bodies(parsed, stand_for, bodies):
        pieces = macros.with_forbidden(macro_params(parsed, use.owner))
        raw = StatementReader(source, use.stream, pieces, True).read()
        if raw is None:
            continue
        name = macro_name_of(parsed, use.owner)
        context = context_of(host.ancestors, use.owner, name, file_guards, use.start, raw.end,
                             host.guard_macros, None)
        _finish(result, source, raw, context, use.spelled[0], new_span(use.start, raw.end),
                parse_template, lookup, host_only=host.reason(None), statement=None)


def reread(
    source: SourceFile, old: AsmStatement, parse_template: TemplateParser
) -> AsmStatement | None:
    """Statement ``old`` read again from ``source`` after an edit inside its template literals
    that kept its start, its context and its operands' C++ (the language server's re-lint):
    the same reading ``extract`` makes of it, its operands' types carried over. None where that
    cannot be shown: it no longer reads as one PTX statement, a macro piece or ``#if`` sits in
    it, or its operands changed."""
    if old.context.macro is not None or old.context.expansion is not None or old.context.branch:
        return None
    start, text = old.span.start, source.text
    raw: _RawStatement | None = None
    if text.startswith(old.keyword, start) and not _WORD_CHAR.match(text, start + len(old.keyword)):
        raw = read_plain(source, start, old.keyword)  # what the tokens read, where it reads
    if raw is None:
        stream = code_tokens(text, start)
        if not stream or stream[0].text != old.keyword or _has_inner_directive(stream):
            return None
        pieces = RefusedPieces(source)
        raw = StatementReader(source, stream, pieces, in_macro=False).read()
        if raw is None or pieces.asked:
            return None
    if raw.extended != old.extended:
        return None
    kept = tuple(q for q in old.qualifiers if q.span.start == start)  # ``keyword_qualifiers``
    if kept:
        raw = dataclasses.replace(raw, qualifiers=kept + raw.qualifiers)
    if not raw.extended and follows_declarator(source.text, old.span.start):
        return None
    if [o.expression for o in raw.operands] != [o.expression for o in old.operands]:
        return None
    found = ExtractionResult()
    # host_only is "": for a statement that was PTX it changes no verdict (a never-built file
    # or function would have made it host; elsewhere it only speaks outside device code,
    # where it would have made it host as well)
    _finish(found, source, raw, old.context, old.keyword, Span(old.span.start, raw.end),
            parse_template, None)
    if len(found.statements) != 1:
        return None
    typed = tuple(
        _with_ctype(new, was.ctype) if was.ctype is not None else new
        for new, was in zip(found.statements[0].operands, old.operands, strict=True)
    )
    return dataclasses.replace(found.statements[0], operands=typed)


def _finish(
    result: ExtractionResult,
    source: SourceFile,
    raw: _RawStatement,
    context: Context,
    keyword: str,
    span: Span,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    type_at: int | None = None,
    host_only: str = "",
    branch_split: bool = False,
    statement: tree_sitter.Node | Sequence[tree_sitter.Node] | None = None,
) -> None:
    """Classify a statement read from the source (or from an expansion) and keep it if PTX.
    ``branch_split``: one branch of a statement with #if inside (outside device code, only a
    context that says PTX makes it PTX). ``statement``: the asm keyword's node in the file's
    tree, or its nearest ancestors, for the operands' types."""
    ptx = parse_template(raw.template.text, raw.extended)
    split = branch_split or (
        bool(raw.problems) and directive_inside(raw.problems)
    )
    # nothing of the file: the verdicts carry across files, where templates repeat
    key: tuple[object, ...] = (
        parse_template, raw.template.text, raw.extended, context.function_specifiers,
        context.guards, split, host_only,
    )  # fmt: skip
    verdict = _verdict(key, raw.template.text, ptx, None, context, split, host_only)
    if verdict is dialect.LETTERS_NEEDED:  # the letters decide: joined only here
        letters = "".join(o.constraint.letters for o in raw.operands)
        clobbers = tuple(c.name for c in raw.clobbers)
        verdict = _verdict((*key, letters, clobbers), raw.template.text, ptx, letters, context,
                           split, host_only, clobbers)  # fmt: skip
    context = _with_verdict(context, verdict)
    if verdict.dialect != "ptx":
        if context.expansion is None:  # an expansion's statement is counted at its #define
            result.skipped.append((span.start, f"{verdict.dialect}: {verdict.reason}"))
        return
    if (reason := left_out(raw.problems)) is not None:  # nvcc never reads what it spells
        if context.expansion is not None:
            return  # said at its #define
        result.skipped.append((span.start, reason))  # and made for the left-out rules
    operands = raw.operands
    if lookup is not None and reason is None:
        # each operand's type worked out when first read (``operand_types``): one call of
        # the look-up's ``resolve_operands`` for the statement where it has one and the
        # statement is of the file's tree, else one call per operand
        leave_types(operands, lookup, type_at, statement)
    # AsmStatement(source=source, keyword=keyword, ..., missing_commas=raw.missing_commas)
    # filled slot by slot (its __init__ sets 20 fields through object.__setattr__: 5 us)
    statement_ = new(AsmStatement)
    _S_SOURCE(statement_, source)
    _S_KEYWORD(statement_, keyword)
    _S_SPAN(statement_, span)
    _S_QUALIFIERS(statement_, raw.qualifiers)
    _S_EXTENDED(statement_, raw.extended)
    _S_TEMPLATE(statement_, raw.template)
    _S_OPERANDS(statement_, operands)
    _S_CLOBBERS(statement_, raw.clobbers)
    _S_GOTO_LABELS(statement_, raw.goto_labels)
    _S_COLONS(statement_, raw.colons)
    _S_OPEN_PAREN(statement_, raw.open_paren)
    _S_CLOSE_PAREN(statement_, raw.end - 1)
    _S_CONTEXT(statement_, context)
    _S_PTX(statement_, ptx)
    _S_PROBLEMS(statement_, raw.problems)
    _S_OPAQUE_SECTIONS(statement_, raw.opaque_sections)
    _S_MISSING_COMMAS(statement_, raw.missing_commas)
    _S_SYNTAX(statement_, "gnu")
    _S_LLVM(statement_, None)
    _S_ROLES(statement_, None)
    (result.statements if reason is None else result.left_out).append(statement_)


(_S_SOURCE, _S_KEYWORD, _S_SPAN, _S_QUALIFIERS, _S_EXTENDED, _S_TEMPLATE, _S_OPERANDS, _S_CLOBBERS,
 _S_GOTO_LABELS, _S_COLONS, _S_OPEN_PAREN, _S_CLOSE_PAREN, _S_CONTEXT, _S_PTX, _S_PROBLEMS,
 _S_OPAQUE_SECTIONS, _S_MISSING_COMMAS, _S_SYNTAX, _S_LLVM, _S_ROLES) = slot_setters(
    AsmStatement,
    ("source", "keyword", "span", "qualifiers", "extended", "template", "operands", "clobbers",
     "goto_labels", "colons", "open_paren", "close_paren", "context", "ptx", "problems",
     "opaque_sections", "missing_commas", "syntax", "llvm", "_roles"),
)  # fmt: skip


def _verdict(
    key: tuple[object, ...],
    template: str,
    ptx: PtxTemplate,
    letters: str | None,
    context: Context,
    split: bool,
    host_only: str,
    clobbers: tuple[str, ...] = (),
) -> dialect.Verdict:
    """``dialect.classify``'s verdict, memoised by ``key`` (all that it reads: the letters
    and clobbers where given)."""
    verdict = _VERDICTS.get(key)
    if verdict is None:
        if len(_VERDICTS) >= _VERDICTS_KEPT:
            _VERDICTS.clear()
        verdict = _VERDICTS[key] = dialect.classify(
            template,
            ptx,
            letters,
            function_specifiers=context.function_specifiers,
            guards=context.guards,
            split_by_directives=split,
            host_only=host_only,
            clobbers=clobbers,
        )
    return verdict


def _with_verdict(context: Context, verdict: dialect.Verdict) -> Context:
    """``dataclasses.replace(context, dialect=verdict.dialect, dialect_reason=verdict.reason)``,
    one object per distinct answer: the statements of a function share their context, and a
    look-up (a hash of the context) costs a fraction of making one. Made slot by slot: a
    replace reads every field by name and calls the frozen ``__init__`` (3.4 us a context
    against 1.4 us; the CUDA 13 headers make one for nearly every statement)."""
    if context.expansion is not None:  # one per invocation: nothing to share
        return _made_with(context, verdict)
    key = (context, verdict.dialect, verdict.reason)
    found = _CONTEXTS.get(key)
    if found is None:
        if len(_CONTEXTS) >= CONTEXTS_KEPT:
            _CONTEXTS.clear()
        found = _CONTEXTS[key] = _made_with(context, verdict)
    return found


def _made_with(context: Context, verdict: dialect.Verdict) -> Context:
    made = new(Context)
    C_FUNCTION(made, context.function)
    C_SPECIFIERS(made, context.function_specifiers)
    C_MACRO(made, context.macro)
    C_GUARDS(made, context.guards)
    C_LOCAL_GUARDS(made, context.local_guards)
    C_GUARD_MACROS(made, context.guard_macros)
    C_DIALECT(made, verdict.dialect)
    C_DIALECT_REASON(made, verdict.reason)
    C_EMBEDDED_IN(made, context.embedded_in)
    C_EXPANSION(made, context.expansion)
    C_BRANCH(made, context.branch)
    C_BRANCH_NAMED(made, context.branch_named)
    return made




_CONTEXTS: dict[tuple[object, ...], Context] = {}


# ``dialect.classify``'s verdicts by all it reads (``ptx`` is ``parse_template(text, extended)``;
# nothing of the file): a pure function, and statements repeat their template
# in one context, within a file and across files (flashinfer's sample: 23,000 statements, 700
# templates). Keyed without the constraint letters and clobbers (``LETTERS_NEEDED`` there
# where they decide), and with them where they decide. Bounded: cleared when full.
_VERDICTS: dict[tuple[object, ...], dialect.Verdict] = {}
_VERDICTS_KEPT = 4096


# --------------------------------------------------------------------------- #if inside


def _has_inner_directive(stream: Sequence[Token]) -> bool:
    return "directive" in map(_KIND, itertools.islice(stream, 1, None))


_KIND = operator.itemgetter(0)  # a token's kind


def _read_branches(
    result: ExtractionResult,
    source: SourceFile,
    parsed: ParsedSource,
    stream: Sequence[Token],
    pieces: MacroPieces,
    node: tree_sitter.Node | None,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    host: _HostCode,
    keyword: str,
    start: int,
) -> None:
    """A statement with #if inside: one statement per combination of branches that a 64-bit
    Linux build can take, its branch conditions added to its guards."""
    try:
        variants = branches.split(list(stream))
    except branches.BranchError as exc:
        result.skipped.append((start, f"preprocessor directives inside the statement: {exc}"))
        return
    host_only = host.reason(node)
    # The branches are alternatives of one statement, so of one dialect: read them all, and when
    # one is another ISA's assembly (miniaudio's `clz %w[out]` beside `clz %[out]`), none is PTX.
    trial = ExtractionResult()
    in_device_code = False
    for variant in variants:
        guard_macros = host.guard_macros.inside(start, variant.conditions)
        if preproc.evaluate_guards(variant.conditions, macros=guard_macros) is False:
            continue  # a branch no 64-bit Linux build takes
        raw = StatementReader(source, variant.tokens, pieces, in_macro=False).read()
        if raw is None:
            continue
        if pieces.table.definitions(keyword):  # `#define asm __asm__ __volatile__`
            extra = macro_uses.keyword_qualifiers(pieces.table, keyword, start, raw.qualifiers)
            raw = dataclasses.replace(raw, qualifiers=extra + raw.qualifiers)
        base = context_of(
            host.ancestors, node, None, file_guards, start, raw.end, host.guard_macros, host.kind
        )
        in_device_code = bool(dialect.device_context_of(base.function_specifiers, base.guards))
        context = dataclasses.replace(
            base,
            guards=base.guards + variant.conditions,
            local_guards=base.local_guards + variant.conditions,
            guard_macros=guard_macros,
            branch=variant.conditions,
        )
        _finish(
            trial,
            source,
            raw,
            context,
            keyword,
            new_span(start, raw.end),
            parse_template,
            lookup,
            host_only=host_only,
        )
    host_skip = next((s for s in trial.skipped if s[1].startswith("host")), None)
    if host_skip is None and trial.skipped and not in_device_code:
        host_skip = trial.skipped[0]  # outside device code, one doubtful branch decides
    result.left_out.extend(trial.left_out if host_skip is None else ())  # each broken branch
    if host_skip is not None:
        result.skipped.append(host_skip)  # one entry for the statement
    elif trial.statements:
        _name_across_branches(trial.statements)
        result.statements.extend(trial.statements)
        result.branch_variants += len(trial.statements) - 1
    elif trial.skipped:
        result.skipped.append(trial.skipped[0])
    else:
        result.skipped.append(
            (start, "preprocessor directives inside the statement: no branch a 64-bit build takes")
        )


def _name_across_branches(statements: Sequence[AsmStatement]) -> None:
    """The branches of one statement with ``#if`` inside, each told the ``%N`` numbers that
    another branch's template names and its own does not (``Context.branch_named``), where
    that branch binds the same operands: an input that only the ``#if USE_RS`` template reads
    (``cvt.rs`` and its random bits) is used by the build that takes it, not a leftover."""
    if len(statements) < 2:
        return
    bound = [
        tuple((o.role, o.constraint.text, o.expression) for o in s.operands)
        for s in statements
    ]
    named = [
        frozenset([t.index for t in s.ptx.percents if t.kind == "ref" and t.index is not None])
        for s in statements
    ]
    for i, statement in enumerate(statements):
        elsewhere: set[int] = set()
        for j in range(len(statements)):
            if j != i and bound[j] == bound[i]:
                elsewhere |= named[j]
        elsewhere -= named[i]
        if elsewhere:
            _S_CONTEXT(statement, dataclasses.replace(
                statement.context, branch_named=frozenset(elsewhere)))


# --------------------------------------------------------------------------- macro invocations


def _expand_macro_uses(
    source: SourceFile,
    parsed: ParsedSource,
    macros: MacroPieces,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    result: ExtractionResult,
    host: _HostCode,
) -> None:
    """Expand every invocation, in code, of a macro whose expansion holds asm."""
    text = source.text
    if "#" not in text and not macros.table.headers:
        return
    table = macros.table
    names = macro_uses.asm_macros(table)
    if not names:
        return
    finder = NodeFinder(parsed.tree.root_node, host.ancestors.parents)
    covered = -1
    expanded: set[tuple[str, int]] = set()
    for name, start in macro_uses.find_uses(text, names):
        if start < covered:
            continue  # an argument of an invocation already expanded
        byte = parsed.to_byte(start)
        node, ups = finder.find(byte, byte + len(name))
        if not _is_code_use(node, ups) or _on_directive_line(file_guards, start):
            continue
        host.ancestors.known(node, finder.functions())  # the function around it: no climb
        d = table.lookup(name, start)
        if d is None:  # several definitions may be in force: each expanded (``expansions``)
            found = macro_uses.use_of_alternatives(table, text, name, start)
            if not isinstance(found, macro_uses.Use):
                if table.definitions(name):
                    result.skipped_invocations.append((start, found or _UNDECIDED.format(name)))
                continue
            use: macro_uses.Use | None = found
        else:
            use = macro_uses.read_use(text, name, start, d.params is not None)
        if use is None:
            continue
        if d is not None and d.params is None:
            spelled = keyword_macro(table, text, use, source.line_col(start).line)
            if spelled is not None:
                covered = _read_keyword_macro_use(
                    source, node, ups, use, spelled, macros, file_guards, parse_template,
                    lookup, result, host,
                )
                continue
        covered = use.end
        if use.has_directive:
            result.skipped_invocations.append(
                (start, f"macro {name}: preprocessor directive inside its arguments")
            )
            continue
        line = source.line_col(start).line
        each = macro_uses.expansions(
            table, text, use, line, host.guard_macros, table.asm_names()
        )
        if isinstance(each, str):
            result.skipped_invocations.append((start, each))
            continue
        read = len(result.statements) + len(result.skipped)
        for done in each:
            for used in done.used:
                expanded.add((used.path, used.start))
                # memoised per path (``os.path.realpath`` makes an lstat per component each time)
                result.expanded_macros.add(f"{real_path(used.path)}:{used.line}")
            definition = done.chosen or d  # an alternative's: the note tells them apart
            if definition is None:
                continue  # (no definition chosen for the name itself: nothing to name)
            _read_expansion(
                source, parsed, node, done, definition, file_guards, parse_template, lookup,
                result, host,
            )
        if d is None and len(result.statements) + len(result.skipped) == read:
            result.skipped_invocations.append((start, _UNDECIDED.format(name)))  # ASM("...")
    for defs in table.own.defines.values():
        for d in defs:
            if (
                d.params is not None
                and (d.path, d.start) not in expanded
                and table.asm_bearing(d.name)
            ):
                result.unexpanded_macros.append((d.start, d.signature))


_UNDECIDED = "macro {}: no single definition here; its asm is not expanded"


def _read_keyword_macro_use(
    source: SourceFile,
    node: tree_sitter.Node,
    ups: Sequence[tree_sitter.Node],
    use: macro_uses.Use,
    spelled: tuple[str, ...],
    macros: MacroPieces,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    result: ExtractionResult,
    host: _HostCode,
) -> int:
    """Read the statement a keyword macro's use begins (``ASM("..." : ...)``) as if its words
    were written there: the qualifiers the macro holds are the statement's, spanning the
    macro's name. Returns the offset up to which the text is read."""
    stream = code_tokens(source.text, use.start)
    if not stream or stream[0].text != use.name:
        return use.end
    name = stream[0]
    stand_ins = [Token("ident", word, name.start, name.end) for word in spelled[1:]]
    stream = [name, *stand_ins, *stream[1:]]
    if _has_inner_directive(stream):
        result.skipped_invocations.append(
            (use.start, f"macro {use.name}: preprocessor directive inside the statement")
        )
        return use.end
    raw = StatementReader(source, stream, macros, in_macro=False).read()
    if raw is None:
        return use.end
    context = context_of(
        host.ancestors, node, None, file_guards, use.start, raw.end, host.guard_macros, host.kind
    )
    # the keyword the macro stands for, so that a probe compiles without the macro; the span
    # starts at its name, where a reader of the file sees the statement begin
    _finish(
        result,
        source,
        raw,
        context,
        spelled[0],
        new_span(use.start, raw.end),
        parse_template,
        lookup,
        host_only=host.reason(node),
        statement=ups[:3],
    )
    return raw.end


def _display_path(path: str, linted: str) -> str:
    """A header's path as the user would write it: relative to the working directory when
    below it (headers are found by their real path)."""
    if path == linted or not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _on_directive_line(guards: FileGuards, offset: int) -> bool:
    """``#define NAME(...)``, ``#undef NAME``, a ``#define``'s continued body: part of a
    directive, not a use; read from the file's directive lines (``FileGuards.directives``),
    where a `#` inside a block comment or raw string starts none."""
    return guards.directives.holding(offset) >= 0


class _HostCode:
    """Why a statement at a node is never compiled for the GPU, or "" (lazily, per file)."""

    def __init__(self, parsed: ParsedSource, macros: MacroPieces, guards: FileGuards) -> None:
        self.parsed = parsed
        self.macros = macros
        self.guards = guards
        # bound methods of the pieces, not closures over this object: nothing of the file
        # refers back to it, so its objects go when the file is done (no collector pass)
        self.guard_macros = GuardMacros(guards, macros.table_now)
        self._functions: host_code.HostFunctions | None = None
        self._file_error: bool | None = None
        self.ancestors = Ancestors(parsed)
        # a .c file with no CUDA marker (grammar_for picked C++ for it)
        self._c_file = (
            os.path.splitext(macros.source.path)[1].lower() == ".c" and parsed.grammar == "cpp"
        )
        # a .cpp/.cc/.cxx file with no CUDA marker: nvcc builds no device code from it, so
        # "no __device__" says nothing of its asm, which is host assembly or PTX that clang
        # builds for NVPTX (Taichi's LLVM runtime, whose functions carry no specifier); the
        # template alone decides (``dialect.classify``: x86 or ARM words are host, a template
        # that is PTX through and through is PTX)
        self._no_cuda_marker = parsed.grammar == "cpp" and not self._c_file

    def kind(self, fn: tree_sitter.Node | RecoveredFunction) -> str:
        """``HostFunctions.kind``: whether ``fn``'s declaration says device code through a
        specifier macro (``context_of``'s ``kind_of``)."""
        if self._functions is None:
            self._functions = host_code.HostFunctions(
                self.parsed, self.macros.table_now, self.ancestors.headers
            )
        return self._functions.kind(fn)

    def reason(self, node: tree_sitter.Node | None) -> str:
        if self._file_error is None:
            self._file_error = host_code.file_errors_for_cuda(self.parsed.text, self.guards)
        if self._file_error:
            return f"{dialect.NEVER_BUILT}: the file stops with #error unless built elsewhere"
        if self._c_file:
            return f"{dialect.NEVER_BUILT}: a C file without CUDA code (nvcc compiles .c as host C)"
        fn = self.ancestors.enclosing_function(node)
        if fn is None or self._no_cuda_marker:
            return ""
        if self._functions is None:
            self._functions = host_code.HostFunctions(
                self.parsed, self.macros.table_now, self.ancestors.headers
            )
        if self._functions.host_only(fn):
            return "in a host-only function (no __device__/__global__, no device caller here)"
        return ""


def _is_code_use(node: tree_sitter.Node, ups: Sequence[tree_sitter.Node]) -> bool:
    """``ups``: the node's nearest ancestors, innermost first (three or more, fewer at the
    root)."""
    if (
        node.type in _NON_CODE_NODES
        or any(up.type in _NON_CODE_NODES for up in ups[:3])  # _inside_non_code(node)
        or node.type == "preproc_arg"
    ):
        return False
    parent = ups[0] if ups else None
    if parent is None:
        return True
    if parent.type in (
        "preproc_def",
        "preproc_function_def",
        "preproc_call",
        "preproc_defined",
        "preproc_params",
    ):
        return False
    return not (parent.type == "preproc_ifdef" and parent.child_by_field_name("name") == node)


def _read_expansion(
    source: SourceFile,
    parsed: ParsedSource,
    node: tree_sitter.Node,
    done: macro_uses.Expanded,
    definition: MacroDef,
    file_guards: FileGuards,
    parse_template: TemplateParser,
    lookup: TypeLookup | None,
    result: ExtractionResult,
    host: _HostCode,
) -> None:
    use = done.use
    host_only = host.reason(node)
    invocation = Span(use.start, use.end)
    same_file = [d for d in done.used if d.path == source.path]
    bodies = [Span(d.start, d.end) for d in same_file]
    remap = macro_uses.Remap(done.virtual, invocation, bodies)
    virtual_source = SourceFile(source.path, done.virtual.text)
    vtoks = list(tokens(done.virtual.text))
    # the plain reader where it reads a statement (it gives the token path's reading: an
    # expansion is laid out without comments or directives); its template is mapped back
    # when first read (``macro_uses.ExpansionMap``)
    raws = [(tok, raw) for k, tok in enumerate(vtoks)
            if tok.kind == "ident" and tok.text in KEYWORDS
            for raw in (read_plain(virtual_source, tok.start, tok.text) or StatementReader(
                virtual_source, vtoks[k:], NoPieces(), in_macro=False).read(),)
            if raw is not None]
    expansion = Expansion(
        macro=use.name,
        invocation=macro_uses.invocation_text(source.text, use),
        span=invocation,
        defined_at=f"{_display_path(definition.path, source.path)}:{definition.line}",
        body=Span(definition.start, definition.end) if definition.path == source.path else None,
        only_asm=bool(raws) and macro_uses.only_asm(
            vtoks, [(tok.start, raw.end) for tok, raw in raws]),
    )
    guards = tuple(g for d in done.used for g in d.guards)
    base = context_of(
        host.ancestors, node, None, file_guards, use.start, use.end, host.guard_macros, host.kind
    )
    context = dataclasses.replace(
        base,
        guards=base.guards + guards,
        local_guards=base.local_guards + guards,
        # an alternative's guards are the ones that set it apart: the file's macros they read
        # (`#define USE_SYNC` under an arch test, then `#ifndef USE_SYNC`), as for a branch's
        guard_macros=(
            host.guard_macros.inside(use.start, guards) if done.chosen else base.guard_macros
        ),
        expansion=expansion,
    )
    # NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, asm(A), asm(B)) inside the body: each branch's own
    inner = FileGuards(done.virtual.text) if "NV_" in done.virtual.text else None
    for ordinal, (tok, raw) in enumerate(raws):
        statement_context = context
        if inner is not None:
            nv = inner.at(tok.start, raw.end)[0]
            if nv:
                statement_context = dataclasses.replace(
                    context, guards=context.guards + nv, local_guards=context.local_guards + nv
                )
        # the reading mapped back to the file (made directly: ``Remap.operand`` says why)
        mapped = _RawStatement(
            tuple(map(remap.qualifier, raw.qualifiers)),
            raw.extended,
            # from its "(" through its first colon or its end: an empty template's piece is
            # at the character after the "(", the colon itself where none is between
            remap.template(
                raw.template, raw.open_paren, (raw.colons[0] if raw.colons else raw.end) + 1
            ),
            tuple(map(remap.operand, raw.operands)),
            tuple(map(remap.clobber, raw.clobbers)),
            raw.goto_labels,
            tuple(map(remap.point, raw.colons)),
            remap.point(raw.open_paren),
            remap.point(raw.end - 1) + 1,
            raw.problems,
            raw.opaque_sections,
            raw.missing_commas,
        )
        # Statements of one expansion keep their order (PTX203 pairs scopes across them).
        span = Span(min(use.start + ordinal, use.end - 1), use.end)
        _finish(
            result,
            source,
            mapped,
            statement_context,
            tok.text,
            span,
            parse_template,
            lookup,
            use.start,
            host_only,
        )


def _with_ctype(operand: Operand, ctype: CType) -> Operand:
    """``operand`` with its type: set in its slot, where a copy (``dataclasses.replace``, or
    even an unrolled one) made each typed operand twice (100,000 on flashinfer's sample).
    Sound because ``_finish`` types only operands that are its statement's own: every
    reading (``_RawStatement``) makes its operands anew, and nothing has seen or hashed them
    before they are typed."""
    O_CTYPE(operand, ctype)
    return operand


# --------------------------------------------------------------------------- the statement


# --------------------------------------------------------------------------- plain statements


# --------------------------------------------------------------------------- string macros


# --------------------------------------------------------------------------- context


